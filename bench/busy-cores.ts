// BENCH_BUSY_CORES=N: N processes that each keep one core busy for the whole benchmark (a spin
// loop in another node), so a figure can be taken on a machine whose other work competes for the
// cores, as a control plane shares its machine. They end with the run, also when it fails.

import { spawn, type ChildProcess } from 'node:child_process';

/** How many busy cores BENCH_BUSY_CORES asks for (0 when unset). */
export function busyCoresWanted(): number {
  const text = process.env['BENCH_BUSY_CORES'] ?? '0';
  const n = Number(text);
  if (!Number.isInteger(n) || n < 0 || n > 64)
    throw new Error(`BENCH_BUSY_CORES=${text}: expected a whole number from 0 to 64`);
  return n;
}

/** Starts `n` spinning processes; the returned function stops them. */
export function startBusyCores(n: number): () => void {
  const children: ChildProcess[] = Array.from({ length: n }, () =>
    spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }),
  );
  const stop = (): void => {
    for (const c of children) c.kill('SIGKILL');
    process.off('exit', stop);
  };
  process.on('exit', stop);
  return stop;
}
