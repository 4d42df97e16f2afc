// A simulated node's watch of every Service, as the kubelet's service lister (and the agent's)
// keeps one for its pods' service environment variables: a list, then a watch from the list's
// resourceVersion with bookmarks, both in protobuf. The stream is read and dropped (the run
// checks nothing of it), and listed and watched again when it ends.

import { request, type Agent } from 'undici';
import type { Session } from './apiserver-harness.js';
import { callProtobuf, PROTOBUF_ACCEPT } from './node-sim-wire.js';

export class ServiceWatch {
  private readonly abort = new AbortController();
  private stopped = false;
  /** Times the watch was opened again after it ended or failed. */
  restarts = 0;

  constructor(
    private readonly session: Session,
    private readonly agent: Agent,
  ) {}

  /** Lists, then keeps the watch open in the background until stop(). */
  async start(): Promise<void> {
    const rv = await this.list();
    void this.keep(rv);
  }

  stop(): void {
    this.stopped = true;
    this.abort.abort();
  }

  private async list(): Promise<string> {
    const r = await callProtobuf(this.session, 'GET', '/api/v1/services');
    if (r.status !== 200) throw new Error(`listing services: ${r.status} ${r.text.slice(0, 200)}`);
    const meta = (r.json['metadata'] ?? {}) as Record<string, unknown>;
    return String(meta['resourceVersion'] ?? '');
  }

  private async keep(firstRv: string): Promise<void> {
    let rv = firstRv;
    while (!this.stopped) {
      try {
        await this.watchOnce(rv);
      } catch {
        if (this.stopped) return;
        await new Promise((r) => setTimeout(r, 1000)); // back off from a failing server
      }
      if (this.stopped) return;
      this.restarts++;
      rv = await this.list().catch(() => rv);
    }
  }

  private async watchOnce(rv: string): Promise<void> {
    const res = await request(
      `${this.session.url}/api/v1/services?watch=true&allowWatchBookmarks=true&resourceVersion=${rv}`,
      {
        dispatcher: this.agent,
        headers: { ...this.session.headers, accept: PROTOBUF_ACCEPT },
        signal: this.abort.signal,
      },
    );
    if (res.statusCode !== 200) {
      const text = await res.body.text();
      throw new Error(`watching services: ${res.statusCode} ${text.slice(0, 200)}`);
    }
    for await (const _ of res.body) {
      // dropped: the load is the server's sending it
    }
  }
}
