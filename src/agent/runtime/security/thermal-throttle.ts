// The per-CPU thermal_throttle directories this host has, which the reference masks in every
// container with procMount Default (read once at start: the possible CPUs from
// /sys/devices/system/cpu/possible, else as many as the host has).
import { existsSync, readFileSync } from 'node:fs';
import { cpus } from 'node:os';

/** The CPU numbers of a kernel CPU list ("0-3,8"); undefined when it does not parse. */
export function parseCpuList(text: string): number[] | undefined {
  const out: number[] = [];
  for (const part of text.trim().split(',')) {
    const m = /^(\d+)(?:-(\d+))?$/.exec(part);
    if (m === null) return undefined;
    const start = Number(m[1]);
    const end = m[2] !== undefined ? Number(m[2]) : start;
    if (end < start || end - start > 65_535) return undefined;
    for (let i = start; i <= end; i++) out.push(i);
  }
  return out;
}

function possibleCpus(sys: string): number[] {
  try {
    const list = parseCpuList(readFileSync(`${sys}/devices/system/cpu/possible`, 'utf8'));
    if (list !== undefined) return list;
  } catch {
    // no sysfs entry: fall back to the CPUs node sees
  }
  return cpus().map((_, i) => i);
}

export function hostThermalThrottlePaths(sys = '/sys'): string[] {
  return possibleCpus(sys)
    .map((n) => `/sys/devices/system/cpu/cpu${String(n)}/thermal_throttle`)
    .filter((p) => existsSync(p.replace(/^\/sys/, sys)));
}
