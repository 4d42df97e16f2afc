// Facts about host processes read from /proc: start time (to tell a re-used pid from ours),
// descendants, CPU and memory.
import { readFileSync } from 'node:fs';

/** Field 22 of /proc/<pid>/stat (clock ticks since boot), or undefined when the pid is gone. */
export function processStartTicks(pid: number): string | undefined {
  try {
    const s = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const rest = s.slice(s.lastIndexOf(')') + 2).split(' ');
    // rest[0] is field 3 (state); field 22 is rest[19].
    if (rest[0] === 'Z' || rest[0] === 'X') return undefined;
    return rest[19];
  } catch {
    return undefined;
  }
}

export function isSameProcessAlive(pid: number, startTicks: string): boolean {
  return processStartTicks(pid) === startTicks;
}

function children(pid: number): number[] {
  try {
    const out: number[] = [];
    const tasks = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim();
    for (const c of tasks.split(/\s+/)) if (c !== '') out.push(Number(c));
    return out;
  } catch {
    return [];
  }
}

/** The process and all its descendants. */
export function processTree(pid: number): number[] {
  const out: number[] = [];
  const stack = [pid];
  while (out.length < 10_000) {
    const p = stack.pop();
    if (p === undefined) break;
    out.push(p);
    stack.push(...children(p));
  }
  return out;
}

const PAGE = 4096;
const TICKS_PER_SECOND = 100;

export function treeUsage(pid: number): { cpuNs: number; rssBytes: number } {
  let cpuTicks = 0;
  let rssPages = 0;
  for (const p of processTree(pid)) {
    try {
      const s = readFileSync(`/proc/${p}/stat`, 'utf8');
      const rest = s.slice(s.lastIndexOf(')') + 2).split(' ');
      cpuTicks += Number(rest[11] ?? 0) + Number(rest[12] ?? 0);
      rssPages += Number(rest[21] ?? 0);
    } catch {
      // gone meanwhile
    }
  }
  return { cpuNs: (cpuTicks / TICKS_PER_SECOND) * 1e9, rssBytes: rssPages * PAGE };
}
