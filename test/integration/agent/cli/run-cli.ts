// Runs the BUILT nodeagent program (npm run build first) and collects its output.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { resolve } from 'node:path';
import { launcherEnv } from '../../../helpers/launcher.js';

/** Repository root, from dist/test/integration/agent/cli or test/integration/agent/cli. */
export const REPO = resolve(
  fileURLToPath(new URL('.', import.meta.url)),
  fileURLToPath(import.meta.url).includes('/dist/') ? '../../../../..' : '../../../..',
);
export const BIN = resolve(REPO, 'bin/nodeagent');

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function runCli(
  args: string[],
  opts: { cwd?: string; timeoutMs?: number } = {},
): Promise<CliResult> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(BIN, args, {
      cwd: opts.cwd ?? REPO,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: launcherEnv(),
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 20_000);
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolvePromise({ code, stdout, stderr });
    });
  });
}

/** stderr without the deprecation notices of cfg/dep flags (they precede every other line). */
export function problemLines(stderr: string): string[] {
  return stderr.split('\n').filter((l) => l !== '' && !l.startsWith('Flag --'));
}
