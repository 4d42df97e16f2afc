// One list of the runtime for many callers. A pod start asks for its pod's containers several
// times per pass, and 30 pods starting at once asked containerd for about 260 lists of each kind
// in a turn. Here at most one list is in flight; the callers that come meanwhile wait for the
// next one, which is sent once the one in flight ends, and share it: one pod's list when they all
// asked for the same pod, otherwise the full list, each caller then taking its pod's part.
// A caller is only ever answered by a list sent after its call began, so it sees every change it
// made (or awaited) before it asked, as a list of its own would.
import type { RuntimeContainer } from '../types.js';

/** What a list answers: the containers and sandboxes of one pod, or of every pod. */
export type ListFetch = (podUid?: string) => Promise<RuntimeContainer[]>;

interface Waiter {
  podUid: string | undefined;
  resolve: (list: RuntimeContainer[]) => void;
  reject: (err: unknown) => void;
}

/** The pod every waiter asked for, or undefined when they differ or one asked for all. */
function onePod(waiters: readonly Waiter[]): string | undefined {
  const first = waiters[0]?.podUid;
  return waiters.every((w) => w.podUid === first) ? first : undefined;
}

export class ListBatch {
  private waiting: Waiter[] = [];
  private inFlight = false;
  /** Lists sent, and the callers they answered: how much the sharing saved. */
  readonly counts = { lists: 0, callers: 0 };

  constructor(private readonly fetch: ListFetch) {}

  list(podUid?: string): Promise<RuntimeContainer[]> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ podUid, resolve, reject });
      if (!this.inFlight) this.send();
    });
  }

  private send(): void {
    const batch = this.waiting;
    this.waiting = [];
    if (batch.length === 0) return;
    this.inFlight = true;
    this.counts.lists++;
    this.counts.callers += batch.length;
    const pod = onePod(batch);
    this.fetch(pod).then(
      (all) => {
        // each caller its own array: a caller may sort or cut what it gets
        for (const w of batch)
          w.resolve(
            w.podUid === undefined || w.podUid === pod
              ? all.slice()
              : all.filter((c) => c.podUid === w.podUid),
          );
        this.next();
      },
      (err: unknown) => {
        for (const w of batch) w.reject(err);
        this.next();
      },
    );
  }

  private next(): void {
    this.inFlight = false;
    this.send();
  }
}
