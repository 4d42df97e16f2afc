// A process's CPU time and resident set, read from /proc (Linux), for the benchmarks that measure
// another program (an agent, the reference's kubelet, an API server) while it works.

import { readdirSync, readFileSync } from 'node:fs';
import { cpus } from 'node:os';

/** The process's user + system CPU time in seconds, from /proc/<pid>/stat. */
export function cpuSeconds(pid: number): number {
  return ticksOf(`/proc/${pid}/stat`);
}

/**
 * The CPU time in seconds of the process's first thread alone (/proc/<pid>/task/<pid>/stat):
 * for a Node server, its event loop, without its worker threads, GC helpers and libuv pool.
 */
export function mainThreadCpuSeconds(pid: number): number {
  return ticksOf(`/proc/${pid}/task/${pid}/stat`);
}

function ticksOf(file: string): number {
  const stat = readFileSync(file, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // utime and stime, fields 14 and 15 of stat(5), in clock ticks (USER_HZ, 100 on Linux)
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** The process and its children (each thread's list in /proc/<pid>/task/<tid>/children). */
export function withChildren(pid: number): number[] {
  const kids = new Set<number>();
  try {
    for (const tid of readdirSync(`/proc/${pid}/task`))
      for (const c of readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8').split(' '))
        if (c.trim() !== '') kids.add(Number(c));
  } catch {
    // gone: the process alone (its reads will say so)
  }
  return [pid, ...kids];
}

/** The process's resident set in MB (VmRSS of /proc/<pid>/status). */
export function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = /^VmRSS:\s+(\d+) kB$/m.exec(status)?.[1];
  return Number(kb ?? NaN) / 1024;
}

/** Cores busy on the whole machine (all but idle and iowait) since the last call, from /proc/stat. */
function machineTicks(): { busy: number; all: number } {
  const line = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0] ?? '';
  const t = line.split(/\s+/).slice(1).map(Number);
  const all = t.slice(0, 8).reduce((a, b) => a + b, 0);
  return { busy: all - (t[3] ?? 0) - (t[4] ?? 0), all };
}

/**
 * Waits until the machine has used less than `maxCores` for `forS` seconds in a row (what an
 * earlier run left, such as a hundred processes ending, has passed), at most `timeoutS`; when it
 * did not get quiet, says so on a line that starts with `who`, and the caller measures anyway.
 */
export async function untilQuiet(
  who: string,
  maxCores: number,
  forS: number,
  timeoutS: number,
): Promise<void> {
  if (!(await quietWithin(maxCores, forS, timeoutS)))
    console.log(
      `${who}the machine stayed busier than ${maxCores} cores for ${timeoutS} s; measuring anyway`,
    );
}

async function quietWithin(maxCores: number, forS: number, timeoutS: number): Promise<boolean> {
  const cores = cpus().length;
  let last = machineTicks();
  let quietS = 0;
  for (let s = 0; s < timeoutS; s++) {
    await new Promise((r) => setTimeout(r, 1000));
    const now = machineTicks();
    const used = ((now.busy - last.busy) / Math.max(1, now.all - last.all)) * cores;
    last = now;
    quietS = used < maxCores ? quietS + 1 : 0;
    if (quietS >= forS) return true;
  }
  return false;
}
