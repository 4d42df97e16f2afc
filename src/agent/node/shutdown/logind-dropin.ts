// The logind drop-in that raises InhibitDelayMaxSec to the grace period the node needs, as the
// reference's OverrideInhibitDelay (/etc/systemd/logind.conf.d/99-kubelet.conf), named for the
// agent of the naming profile.
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from '../../../common/util/atomic-file.js';
import { userMessage } from '../../../common/util/errors.js';

export const LOGIND_CONFIG_DIRECTORY = '/etc/systemd/logind.conf.d';

export interface LogindDropin {
  /** The drop-in directory (logind's; tests give a temporary one). */
  dir: string;
  /** The agent's name: the file is 99-<agent>.conf. */
  agent: string;
  /** The comment line's word for the agent (the reference: Kubelet). */
  title: string;
}

export function dropinPath(d: LogindDropin): string {
  return join(d.dir, `99-${d.agent}.conf`);
}

/** The file's content: InhibitDelayMaxSec in whole seconds, rounded as Go's %.0f. */
export function dropinContent(d: LogindDropin, delayMs: number): string {
  const seconds = Math.round(delayMs / 1000);
  return `# ${d.title} logind override\n[Login]\nInhibitDelayMaxSec=${seconds}\n`;
}

export async function overrideInhibitDelay(d: LogindDropin, delayMs: number): Promise<void> {
  try {
    await mkdir(d.dir, { recursive: true, mode: 0o755 });
  } catch (err) {
    throw new Error(`failed creating ${d.dir} directory: ${userMessage(err)}`, { cause: err });
  }
  const path = dropinPath(d);
  try {
    await writeFileAtomic(path, dropinContent(d, delayMs), { mode: 0o644 });
  } catch (err) {
    throw new Error(
      `failed writing logind shutdown inhibit override file ${path}: ${userMessage(err)}`,
      { cause: err },
    );
  }
}
