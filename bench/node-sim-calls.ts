// The simulator's calls to the API server, timed by kind: each call's duration goes to the
// current phase's record (setup or the steady window), and an answer the simulator did not
// expect ends the run with the call, its status and the server's message. Concurrency is bounded
// (a slot per call), so a slow server sees a queue in the simulator, not 30,000 sockets.

import { percentile, type Session } from './apiserver-harness.js';
import { callProtobuf, jsonObjectOf, type WireAnswer } from './node-sim-wire.js';

/** Whether a kind of call changes state (mutating) or only reads. */
export type CallClass = 'mutating' | 'read';

export interface CallAnswer {
  readonly status: number;
  readonly json: Record<string, unknown>;
}

/** Durations (ms) of one phase, by kind of call. */
export class PhaseRecord {
  readonly byKind = new Map<string, { cls: CallClass; ms: number[] }>();

  add(kind: string, cls: CallClass, ms: number): void {
    const r = this.byKind.get(kind) ?? { cls, ms: [] };
    r.ms.push(ms);
    this.byKind.set(kind, r);
  }

  /** Every duration of a class of calls. */
  ofClass(cls: CallClass): number[] {
    return [...this.byKind.values()].filter((r) => r.cls === cls).flatMap((r) => r.ms);
  }
}

/** p50 and p99 of durations, in ms, as text. */
export function quantiles(ms: readonly number[]): string {
  if (ms.length === 0) return 'no calls';
  const p = (q: number): string => percentile(ms, q).toFixed(1);
  return `p50 ${p(0.5)} ms, p99 ${p(0.99)} ms (n=${ms.length})`;
}

export interface SimRequest {
  readonly method: string;
  readonly path: string;
  readonly body?: unknown;
  readonly contentType?: string;
  /** 'protobuf': sent and answered in protobuf, as a node's heartbeats (node-sim-wire.ts). */
  readonly wire?: 'protobuf';
}

/** An answer; `json` is there when the wire decoded it (protobuf), else the text is parsed. */
type Sent = Omit<WireAnswer, 'json'> & Partial<Pick<WireAnswer, 'json'>>;

/** A connection closed by the server (undici's socket errors, a reset). */
function closedUnder(err: unknown): boolean {
  const code = (err as { code?: unknown } | undefined)?.code;
  return code === 'UND_ERR_SOCKET' || code === 'ECONNRESET';
}

/** The name of the object a POST creates in its collection (not a subresource such as binding). */
function createdName(req: SimRequest): string | undefined {
  if (req.method !== 'POST' || req.path.endsWith('/binding')) return undefined;
  const name = ((req.body as { metadata?: { name?: unknown } } | undefined)?.metadata ?? {}).name;
  return typeof name === 'string' ? name : undefined;
}

export class SimClient {
  record = new PhaseRecord();
  private active = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(
    private readonly session: Session,
    private readonly slots: number,
  ) {}

  /**
   * One call: waits for a slot, times it into the current record, and returns the answer when
   * its status is one of `accept`; anything else throws with the server's words.
   */
  async call(
    kind: string,
    cls: CallClass,
    req: SimRequest,
    accept: readonly number[] = [200, 201],
  ): Promise<CallAnswer> {
    await this.slot();
    const t = performance.now();
    try {
      const r = await this.send(req);
      this.record.add(kind, cls, performance.now() - t);
      if (!accept.includes(r.status))
        throw new Error(`${kind}: ${req.method} ${req.path}: ${r.status} ${r.text.slice(0, 300)}`);
      return { status: r.status, json: r.json ?? jsonObjectOf(r.text) };
    } finally {
      this.release();
    }
  }

  /** Connections the server closed under a request, each sent again once (counted). */
  resent = 0;

  /**
   * Sends once, and once more when the server closed the keep-alive connection under the
   * request (Go's server closes idle ones). A create sent again may find its object made by the
   * first: that object is read and answered as created.
   */
  private async send(req: SimRequest): Promise<Sent> {
    const once = (): Promise<Sent> =>
      req.wire === 'protobuf'
        ? callProtobuf(
            this.session,
            req.method,
            req.path,
            req.body as Record<string, unknown> | undefined,
          )
        : this.session.call(req.method, req.path, req.body, req.contentType);
    try {
      return await once();
    } catch (err) {
      if (!closedUnder(err)) throw err;
      this.resent++;
      const again = await once();
      const name = createdName(req);
      if (again.status !== 409 || name === undefined) return again;
      const got = await this.session.call('GET', `${req.path}/${name}`);
      return got.status === 200 ? { status: 201, text: got.text } : again;
    }
  }

  private async slot(): Promise<void> {
    if (this.active < this.slots) {
      this.active++;
      return;
    }
    await new Promise<void>((resolve) => this.waiting.push(resolve));
  }

  private release(): void {
    const next = this.waiting.shift();
    if (next === undefined) this.active--;
    else next();
  }
}

/** metadata.resourceVersion and metadata.uid of an answer's object. */
export function metaOf(o: Record<string, unknown>): { rv: string; uid: string } {
  const m = (o['metadata'] ?? {}) as Record<string, unknown>;
  return { rv: String(m['resourceVersion'] ?? ''), uid: String(m['uid'] ?? '') };
}
