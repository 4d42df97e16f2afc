import type { Names } from '../../common/names.js';
import type { Clock } from '../../common/util/clock.js';
import type { Logger } from '../../common/log/types.js';
import type { Pod } from '../pod/types.js';
import type { ValidatePodOptions } from '../pod/validate.js';

/** A full snapshot of one source's pods; a source always sends everything it has. */
export interface PodSnapshot {
  source: string;
  pods: Pod[];
}

export type SnapshotSink = (snapshot: PodSnapshot) => void;

/** What the polled sources (file, HTTP) are given besides their location. */
export interface PolledSourceOptions {
  checkFrequencyMs: number;
  nodeName: string;
  names: Names;
  validation: ValidatePodOptions;
  onSnapshot: SnapshotSink;
  logger: Logger;
  clock: Clock;
}

export interface PodSource {
  /** `file`, `http` or `api`. */
  readonly name: string;
  /**
   * Starts watching; resolves once the first snapshot has been sent (an unreachable source sends
   * nothing yet, but `start` still resolves). Stops when `signal` aborts.
   */
  start(signal: AbortSignal): Promise<void>;
  /** Resolves when the background loop has ended after the signal aborted. */
  closed(): Promise<void>;
}
