// One checkpoint file of the resource managers (cpu_manager_state, memory_manager_state) in the
// root directory: read once at start within bounds, written atomically after every change (writes
// are queued so the last state always lands last).
import { readFileSync } from 'node:fs';
import type { Logger } from '../../common/log/types.js';
import { writeFileAtomic } from '../../common/util/atomic-file.js';
import {
  DEFAULT_PARSE_LIMITS,
  parseJsonBounded,
  type ParseLimits,
} from '../../common/util/bounded-parse.js';
import { userMessage } from '../../common/util/errors.js';
import { errnoCode } from '../../common/util/errno.js';

/**
 * A checkpoint is at most 6 levels deep (memory_manager_state) and holds an entry per container.
 */
export const CHECKPOINT_LIMITS: ParseLimits = {
  ...DEFAULT_PARSE_LIMITS,
  maxDepth: 8,
  maxStringLength: 64 * 1024,
};

/** The file's JSON value; undefined when there is no file. Throws with the parse problem. */
export function readCheckpoint(path: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if (errnoCode(err) === 'ENOENT') return undefined;
    throw err;
  }
  return parseJsonBounded(text, { source: path, limits: CHECKPOINT_LIMITS });
}

export class CheckpointWriter {
  private chain: Promise<void> = Promise.resolve();

  constructor(private readonly o: { path: string; logger: Logger }) {}

  /** Queues a write of `text`; a failure is logged (the next change writes again). */
  write(text: string): void {
    this.chain = this.chain
      .then(() => writeFileAtomic(this.o.path, text, { mode: 0o600 }))
      .catch((err: unknown) => {
        this.o.logger.error(
          { file: this.o.path, err: userMessage(err) },
          'could not write the resource manager checkpoint; the next change writes it again',
        );
      });
  }

  /** Resolves when every queued write has landed. */
  flush(): Promise<void> {
    return this.chain;
  }
}
