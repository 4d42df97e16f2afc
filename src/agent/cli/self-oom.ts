// --oom-score-adj: the agent's own oom_score_adj, written at start as the reference does
// (oom.ApplyOOMScoreAdj(0, OOMScoreAdj)). Not permitted: one warning naming the option.
import { readFile, writeFile } from 'node:fs/promises';
import type { Logger } from '../../common/log/types.js';
import { errnoCode } from '../../common/util/errno.js';

export const SELF_OOM_SCORE_ADJ = '/proc/self/oom_score_adj';

/** Returns whether the value now holds. */
export async function applySelfOomScoreAdj(
  value: number,
  path: string,
  logger: Logger,
): Promise<boolean> {
  try {
    const current = Number.parseInt((await readFile(path, 'utf8')).trim(), 10);
    if (current === value) return true;
    await writeFile(path, `${value}\n`);
    return true;
  } catch (err) {
    const code = errnoCode(err) ?? String(err);
    logger.warn(
      { option: '--oom-score-adj', value, path, reason: code },
      `Could not set the agent's oom_score_adj (oomScoreAdj, --oom-score-adj) to ` +
        `${value}: ${code}; the agent keeps the kernel's score (lowering it needs ` +
        `CAP_SYS_RESOURCE)`,
    );
    return false;
  }
}
