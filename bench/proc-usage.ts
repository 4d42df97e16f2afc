// A process's CPU time and resident set, read from /proc (Linux), for the benchmarks that measure
// another program (an agent, the reference's kubelet, an API server) while it works.

import { readFileSync } from 'node:fs';

/** The process's user + system CPU time in seconds, from /proc/<pid>/stat. */
export function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // utime and stime, fields 14 and 15 of stat(5), in clock ticks (USER_HZ, 100 on Linux)
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** The process's resident set in MB (VmRSS of /proc/<pid>/status). */
export function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = /^VmRSS:\s+(\d+) kB$/m.exec(status)?.[1];
  return Number(kb ?? NaN) / 1024;
}
