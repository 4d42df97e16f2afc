// Container starts and exits on a CRI runtime, found by listing (the reference's generic PLEG
// relists every second): each list compared with the one before, a change told to the listeners.
// The loop runs only while someone listens, and stops with close().
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
  private last = new Map<string, RuntimeContainer['state']>();

  constructor(private readonly o: CriEventsOptions) {}

  add(listener: ContainerEventListener): void {
    this.listeners.push(listener);
    this.loop ??= this.run();
  }

  private emit(c: RuntimeContainer, type: 'exited' | 'started'): void {
    for (const l of this.listeners) l({ podUid: c.podUid, containerId: c.id, type });
  }

  private compare(now: RuntimeContainer[]): void {
    const next = new Map<string, RuntimeContainer['state']>();
    for (const c of now) {
      next.set(c.id, c.state);
      if (c.kind === 'sandbox') continue;
      const before = this.last.get(c.id);
      if (before === c.state) continue;
      if (c.state === 'running') this.emit(c, 'started');
      else if (c.state === 'exited' && before !== undefined) this.emit(c, 'exited');
    }
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
