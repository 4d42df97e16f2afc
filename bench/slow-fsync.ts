// BENCH_SLOW_FSYNC_MS=N: the servers this run starts flush to disk as a slow disk does, N ms a
// fsync or fdatasync (network block storage and busy disks take 2-10 ms where this project's
// machine takes 0.2-0.4 ms). native/slow-fsync.c, preloaded into the server, sleeps before each
// flush; it is built here with the host's C compiler (cc) into a directory removed at exit.

import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from '../test/helpers/apiserver.js';

let built: string | undefined;

/** The environment that slows a started server's flushes, or {} when BENCH_SLOW_FSYNC_MS is unset. */
export function slowFsyncEnv(): Record<string, string> {
  const text = process.env['BENCH_SLOW_FSYNC_MS'] ?? '';
  if (text === '') return {};
  const ms = Number(text);
  if (!Number.isFinite(ms) || ms <= 0 || ms > 1000)
    throw new Error(`BENCH_SLOW_FSYNC_MS=${text}: expected milliseconds above 0, at most 1000`);
  built ??= buildShim();
  return { LD_PRELOAD: built, SLOW_FSYNC_MS: String(ms) };
}

function buildShim(): string {
  const dir = mkdtempSync(join(tmpdir(), 'bench-slow-fsync-'));
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  const out = join(dir, 'slow-fsync.so');
  const src = join(repoRoot(), 'bench', 'native', 'slow-fsync.c');
  const cc = spawnSync('cc', ['-O2', '-shared', '-fPIC', '-o', out, src, '-ldl'], {
    encoding: 'utf8',
  });
  if (cc.status !== 0)
    throw new Error(`BENCH_SLOW_FSYNC_MS needs a C compiler (cc): ${cc.stderr || cc.error}`);
  return out;
}
