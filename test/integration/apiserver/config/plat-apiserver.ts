// The configuration-file tests' view of the shared plat-apiserver helper (test/helpers/apiserver.ts):
// restart on the same data, requests as the admin or with a bearer token, and --validate-config
// runs. Not a test file.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot, startApiServer } from '../../../helpers/apiserver.js';

export interface Response {
  readonly status: number;
  readonly body: Record<string, unknown>;
}

export interface PlatApiserver {
  readonly url: string;
  readonly dir: string;
  readonly dataDir: string;
  readonly output: () => string;
  /** As the admin (system:masters client certificate), or with `token` and no certificate. */
  call(
    method: string,
    path: string,
    opts?: {
      body?: unknown;
      token?: string;
      anonymous?: boolean;
      headers?: Record<string, string>;
    },
  ): Promise<Response>;
  stop(): Promise<void>;
}

export function tempDir(prefix: string): { dir: string; cleanup(): void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Runs `plat-apiserver --validate-config ...` and returns its exit code and output. */
export function runValidate(
  args: readonly string[],
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((res) => {
    const p = spawn(
      process.execPath,
      [join(repoRoot(), 'bin', 'plat-apiserver'), '--validate-config', ...args],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    p.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    p.on('close', (code) => res({ code: code ?? -1, stdout, stderr }));
  });
}

/** Starts plat-apiserver with `args` (through the shared helper); `dir` holds certs and data, so
 * starting again on the same `dir` restarts on the same database. */
export async function startPlatApiserver(
  dir: string,
  args: readonly string[],
  timeoutMs = 30_000,
): Promise<PlatApiserver> {
  const dataDir = join(dir, 'data');
  let api;
  try {
    api = await startApiServer({
      args,
      dataDir,
      certDir: join(dir, 'certs'),
      startTimeoutMs: timeoutMs,
    });
  } catch (err) {
    // Keep the shape tests match on: "exited with <code> before listening".
    throw new Error(
      String(err instanceof Error ? err.message : err).replace(
        /exited \((\d+)\)/,
        'exited with $1',
      ),
      { cause: err },
    );
  }
  const started = api;
  return {
    url: started.url,
    dir,
    dataDir,
    output: () => started.logs(),
    async call(method, path, o = {}) {
      const r = await started.request(method, path, {
        ...(o.body === undefined ? {} : { body: o.body }),
        ...(o.token === undefined ? {} : { token: o.token }),
        ...(o.anonymous === undefined ? {} : { anonymous: o.anonymous }),
        headers: { accept: 'application/json', ...(o.headers ?? {}) },
      });
      return { status: r.status, body: r.json ?? { text: r.text } };
    },
    stop: () => started.stop(),
  };
}
