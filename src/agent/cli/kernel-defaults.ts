// --protect-kernel-defaults: the reference's kernel tunables (pkg/kubelet/cm setupKernelTunables).
// With the flag, a differing value refuses the start, each named as the reference names it. Without
// it the reference rewrites them; nodeagent leaves the host's kernel alone and says so once per
// setting.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from '../../common/log/types.js';
import { errnoCode } from '../../common/util/errno.js';

/** The reference's desired state, by /proc/sys path (utilsysctl names). */
export const KERNEL_DEFAULTS: readonly { flag: string; expected: number }[] = [
  { flag: 'vm/overcommit_memory', expected: 1 },
  { flag: 'vm/panic_on_oom', expected: 0 },
  { flag: 'kernel/panic', expected: 10 },
  { flag: 'kernel/panic_on_oops', expected: 1 },
  { flag: 'kernel/keys/root_maxkeys', expected: 1000000 },
  { flag: 'kernel/keys/root_maxbytes', expected: 25000000 },
];

export interface KernelDefaultsResult {
  /** The reference's messages for the settings that differ or cannot be read. */
  problems: string[];
}

export async function checkKernelDefaults(procSys: string): Promise<KernelDefaultsResult> {
  const problems: string[] = [];
  for (const { flag, expected } of KERNEL_DEFAULTS) {
    let text: string;
    try {
      text = await readFile(join(procSys, flag), 'utf8');
    } catch (err) {
      problems.push(
        `could not read kernel flag ${flag} under ${procSys}: ${errnoCode(err) ?? String(err)}`,
      );
      continue;
    }
    const actual = Number.parseInt(text.trim(), 10);
    if (actual !== expected)
      problems.push(
        `invalid kernel flag: ${flag}, expected value: ${expected}, actual value: ${text.trim()}`,
      );
  }
  return { problems };
}

/** Throws (one line, every setting named) with protect; otherwise logs each difference once. */
export async function enforceKernelDefaults(
  protect: boolean,
  procSys: string,
  logger: Logger,
): Promise<void> {
  const { problems } = await checkKernelDefaults(procSys);
  if (problems.length === 0) return;
  if (protect) {
    throw new Error(
      `protectKernelDefaults (--protect-kernel-defaults) is true and the kernel differs ` +
        `from the expected defaults: [${problems.join(', ')}]`,
    );
  }
  for (const p of problems) {
    logger.warn(
      { option: '--protect-kernel-defaults' },
      `${p}; the reference would set it, nodeagent leaves the host's kernel settings ` +
        `unchanged (set it with sysctl, or pass --protect-kernel-defaults to refuse to ` +
        `start)`,
    );
  }
}
