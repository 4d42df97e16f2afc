// Runs the BUILT `plat-apiserver token create|list|delete` against a test server with its admin
// platconfig.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { repoRoot, type StartedApiServer } from './apiserver.js';

export interface TokenCreateResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * `names: 'server'` leaves --platform-domain out, so the command reads the server's names itself;
 * by default it is given the server's domain.
 */
export function tokenCommand(
  api: StartedApiServer,
  sub: string,
  args: readonly string[] = [],
  names: 'given' | 'server' = 'given',
): Promise<TokenCreateResult> {
  const bin = join(repoRoot(), 'bin', 'plat-apiserver');
  const argv = [
    bin,
    'token',
    sub,
    `--platconfig=${api.adminPlatconfig}`,
    ...(names === 'given' ? [`--platform-domain=${api.platformDomain}`] : []),
    ...args,
  ];
  return new Promise((resolve) => {
    execFile(process.execPath, argv, { timeout: 30_000 }, (err, stdout, stderr) => {
      const code = err === null ? 0 : typeof err.code === 'number' ? err.code : 1;
      resolve({ code, stdout, stderr });
    });
  });
}

export function tokenCreate(
  api: StartedApiServer,
  args: readonly string[] = [],
): Promise<TokenCreateResult> {
  return tokenCommand(api, 'create', args);
}
