// One simulated node's pod watch, as a kubelet's reflector keeps it: a list of the pods bound to
// the node (field selector spec.nodeName=<node>), then a watch from the list's resourceVersion,
// resumed from the last event's on an end and listed again on 410 Gone. It keeps what the run's
// consistency check needs: the last version seen of each pod, events out of resourceVersion
// order, and pods of another node.

import { request, type Agent } from 'undici';
import type { Session } from './apiserver-harness.js';

/** BENCH_SIM_WATCH=labels: watch by a label instead of spec.nodeName. */
export const BY_LABEL = process.env['BENCH_SIM_WATCH'] === 'labels';

export interface PodView {
  readonly name: string;
  readonly namespace: string;
  readonly uid: string;
  readonly rv: string;
  readonly nodeName: string;
  readonly phase: string;
}

export interface WatchCounts {
  events: number;
  outOfOrder: number;
  foreign: number;
  restarts: number;
  relists: number;
  /** The last failure that ended a watch (a server's answer or a lost connection). */
  lastError: string;
  /** The first events out of order, as `<type>@<rv> after <type>@<rv>`. */
  readonly disorder: string[];
}

function view(o: Record<string, unknown>): PodView {
  const m = (o['metadata'] ?? {}) as Record<string, unknown>;
  const spec = (o['spec'] ?? {}) as Record<string, unknown>;
  const status = (o['status'] ?? {}) as Record<string, unknown>;
  return {
    name: String(m['name'] ?? ''),
    namespace: String(m['namespace'] ?? ''),
    uid: String(m['uid'] ?? ''),
    rv: String(m['resourceVersion'] ?? ''),
    nodeName: String(spec['nodeName'] ?? ''),
    phase: String(status['phase'] ?? ''),
  };
}

/** resourceVersions compare as integers on both servers (etcd revisions, SQLite revisions). */
export function rvNewer(a: string, b: string): boolean {
  return a.length !== b.length ? a.length > b.length : a > b;
}

/**
 * A change's resourceVersion is newer than everything before it; a bookmark's may equal the last
 * change's (it says every change up to it was sent), never be older.
 */
function inOrder(type: string, rv: string, last: string): boolean {
  return type === 'BOOKMARK' ? rv === last || rvNewer(rv, last) : rvNewer(rv, last);
}

export class NodePodWatch {
  readonly pods = new Map<string, PodView>();
  readonly counts: WatchCounts = {
    events: 0,
    outOfOrder: 0,
    foreign: 0,
    restarts: 0,
    relists: 0,
    lastError: '',
    disorder: [],
  };
  private lastType = '';
  private lastRv = '';
  private readonly abort = new AbortController();
  private stopped = false;

  constructor(
    private readonly session: Session,
    private readonly agent: Agent,
    readonly node: string,
    private readonly onPod: (p: PodView) => void,
  ) {}

  /**
   * The kubelet's field selector, or with BENCH_SIM_WATCH=labels a label selector on the pods'
   * `bench-node` label (a selector no server indexes: every pod change reaches every watcher).
   */
  private get selector(): string {
    return BY_LABEL
      ? `labelSelector=${encodeURIComponent(`bench-node=${this.node}`)}`
      : `fieldSelector=${encodeURIComponent(`spec.nodeName=${this.node}`)}`;
  }

  /** Lists, then keeps the watch open until stop(); resolves once the first list is in. */
  async start(): Promise<void> {
    await this.list();
    void this.loop();
  }

  stop(): void {
    this.stopped = true;
    this.abort.abort();
  }

  private async list(): Promise<void> {
    const r = await this.session.call('GET', `/api/v1/pods?${this.selector}`);
    if (r.status !== 200) throw new Error(`listing ${this.node}'s pods: ${r.status} ${r.text}`);
    const body = JSON.parse(r.text) as { metadata: { resourceVersion: string }; items: [] };
    for (const item of body.items) this.see(view(item));
    this.lastRv = body.metadata.resourceVersion;
  }

  private async loop(): Promise<void> {
    while (!this.stopped) {
      try {
        await this.watchOnce();
      } catch (err) {
        if (this.stopped) return;
        this.counts.lastError = err instanceof Error ? err.message : String(err);
        if (err instanceof Gone) {
          this.counts.relists++;
          await this.list().catch((e: unknown) => {
            this.counts.lastError = `relist: ${e instanceof Error ? e.message : String(e)}`;
          });
        } else await new Promise((r) => setTimeout(r, 1000)); // back off from a failing server
      }
      if (!this.stopped) this.counts.restarts++;
    }
  }

  private async watchOnce(): Promise<void> {
    const path =
      `/api/v1/pods?${this.selector}&watch=1&allowWatchBookmarks=true` +
      `&resourceVersion=${this.lastRv}`;
    const res = await request(`${this.session.url}${path}`, {
      dispatcher: this.agent,
      headers: this.session.headers,
      signal: this.abort.signal,
    });
    if (res.statusCode !== 200) {
      const text = await res.body.text();
      if (res.statusCode === 410) throw new Gone();
      throw new Error(`watching ${this.node}'s pods: ${res.statusCode} ${text.slice(0, 200)}`);
    }
    let buf = '';
    for await (const chunk of res.body) {
      buf += (chunk as Buffer).toString('utf8');
      let nl: number;
      while ((nl = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        if (line.trim() !== '') this.event(JSON.parse(line) as Record<string, unknown>);
      }
    }
  }

  private event(e: Record<string, unknown>): void {
    const o = (e['object'] ?? {}) as Record<string, unknown>;
    if (e['type'] === 'ERROR') {
      if (o['code'] === 410) throw new Gone();
      throw new Error(`watch error on ${this.node}: ${JSON.stringify(o).slice(0, 200)}`);
    }
    this.counts.events++;
    const p = view(o);
    const type = String(e['type']);
    if (this.lastRv !== '' && !inOrder(type, p.rv, this.lastRv)) {
      this.counts.outOfOrder++;
      if (this.counts.disorder.length < 3)
        this.counts.disorder.push(`${type}@${p.rv} after ${this.lastType}@${this.lastRv}`);
    }
    this.lastRv = p.rv;
    this.lastType = type;
    if (e['type'] === 'BOOKMARK') return;
    if (e['type'] === 'DELETED') {
      this.pods.delete(p.name);
      return;
    }
    this.see(p);
  }

  private see(p: PodView): void {
    if (BY_LABEL && p.nodeName === '') return; // created for this node, not bound yet
    if (p.nodeName !== this.node) {
      this.counts.foreign++;
      return;
    }
    this.pods.set(p.name, p);
    this.onPod(p);
  }
}

class Gone extends Error {
  constructor() {
    super('410 Gone');
  }
}
