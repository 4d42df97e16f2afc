// Container starts and exits on a CRI runtime, found by listing (the reference's generic PLEG
// relists every second): each list compared with the one before, a change told to the listeners.
// As the reference's PLEG, a container (or sandbox) seen exited for the first time is an exit even
// when no list saw it running (an init container that ran for less than the interval), and one
// gone from the list without having exited is one too. The loop runs only while someone listens,
// and stops with close().
import type { Clock } from '../../../common/util/clock.js';
import type { ContainerEventListener, RuntimeContainer } from '../types.js';

export interface CriEventsOptions {
  list: () => Promise<RuntimeContainer[]>;
  clock: Clock;
  intervalMs: number;
}

export class CriEvents {
  private readonly listeners: ContainerEventListener[] = [];
  private readonly stopper = new AbortController();
  private loop: Promise<void> | undefined;
  private last = new Map<string, Pick<RuntimeContainer, 'podUid' | 'state'>>();

  constructor(private readonly o: CriEventsOptions) {}

  add(listener: ContainerEventListener): void {
    this.listeners.push(listener);
    this.loop ??= this.run();
  }

  private emit(podUid: string, containerId: string, type: 'exited' | 'started'): void {
    for (const l of this.listeners) l({ podUid, containerId, type });
  }

  private compare(now: RuntimeContainer[]): void {
    const next = new Map<string, Pick<RuntimeContainer, 'podUid' | 'state'>>();
    for (const c of now) {
      next.set(c.id, { podUid: c.podUid, state: c.state });
      const before = this.last.get(c.id)?.state;
      if (before === c.state) continue;
      if (c.state === 'running' && c.kind !== 'sandbox') this.emit(c.podUid, c.id, 'started');
      else if (c.state === 'exited') this.emit(c.podUid, c.id, 'exited');
    }
    for (const [id, was] of this.last)
      if (!next.has(id) && was.state !== 'exited') this.emit(was.podUid, id, 'exited');
    this.last = next;
  }

  private async run(): Promise<void> {
    const signal = this.stopper.signal;
    while (!signal.aborted) {
      try {
        this.compare(await this.o.list());
      } catch {
        // the runtime is away: the next list tries again (the node's status says so)
      }
      await this.o.clock.sleep(this.o.intervalMs, signal).catch(() => undefined);
    }
  }

  async stop(): Promise<void> {
    this.stopper.abort();
    await this.loop;
  }
}
