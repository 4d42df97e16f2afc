// The milliseconds each step of a pass took, for the pass's debug line (-v=4).
import type { Clock } from '../../common/util/clock.js';

export class StepTimes {
  readonly times: Record<string, number> = {};
  private last: number;

  constructor(private readonly clock: Clock) {
    this.last = clock.nowMs();
  }

  /** The time since the previous mark (or the start) goes to `step` (`<step>Ms`). */
  mark(step: string): void {
    const now = this.clock.nowMs();
    this.times[`${step}Ms`] = now - this.last;
    this.last = now;
  }
}
