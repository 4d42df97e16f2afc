// The queue one watch stream serves from: what is due to be sent, in order, until the stream
// closes. Producers (the store listener, the timeout, the bookmark ticks) push; the stream awaits
// next(). Closing runs the registered clean-ups once and wakes a waiting next(), which then ends
// the stream.

import type { Change, RawRevision } from '../storage/store.js';

export type WatchItem =
  | { readonly kind: 'raw'; readonly row: RawRevision; readonly initial: boolean }
  | { readonly kind: 'change'; readonly change: Change }
  | { readonly kind: 'bookmark'; readonly rv: number; readonly initialEnd: boolean };

export class WatchQueue {
  private readonly items: WatchItem[];
  private readonly cleanups: (() => void)[] = [];
  private wake: (() => void) | undefined;
  private closedFlag = false;

  constructor(opts: { readonly initial: readonly WatchItem[] }) {
    this.items = [...opts.initial];
  }

  get length(): number {
    return this.items.length;
  }

  get closed(): boolean {
    return this.closedFlag;
  }

  push(item: WatchItem): void {
    this.items.push(item);
    this.wakeUp();
  }

  /** Runs `fn` when the queue closes (in the order registered). */
  onClose(fn: () => void): void {
    this.cleanups.push(fn);
  }

  close(): void {
    if (this.closedFlag) return;
    this.closedFlag = true;
    for (const fn of this.cleanups) fn();
    this.wakeUp();
  }

  /**
   * The next item, waiting for one; undefined once the queue is closed (queued items are dropped).
   */
  async next(): Promise<WatchItem | undefined> {
    while (!this.closedFlag) {
      const item = this.items.shift();
      if (item !== undefined) return item;
      await new Promise<void>((resolve) => (this.wake = resolve));
    }
    return undefined;
  }

  private wakeUp(): void {
    const w = this.wake;
    this.wake = undefined;
    w?.();
  }
}
