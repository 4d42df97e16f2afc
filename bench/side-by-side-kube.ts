// The side-by-side benchmark's client of the reference control plane: JSON over HTTPS with the
// admin kubeconfig's client certificate (one keep-alive agent, so 30 or 110 creates go out at
// once), and a pod watch that stamps every event with the time it arrived.
import { Agent, request } from 'node:https';
import { loadConnection } from '../src/common/platconfig/platconfig.js';
import { isRecord, listOf, recordOf } from '../src/common/util/json-shape.js';

export interface Answer {
  readonly status: number;
  readonly body: unknown;
}

/** One pod as a watch event showed it, with performance.now() at its arrival. */
export interface PodSeen {
  readonly at: number;
  readonly type: string;
  readonly pod: Record<string, unknown>;
}

export interface PodWatch {
  stop(): void;
}

/** What a pod watch calls: each event, and `ended` when the server closed the stream. */
export interface PodWatchHandlers {
  onEvent(seen: PodSeen): void;
  ended(): void;
}

export interface Kube {
  readonly server: string;
  call(method: string, path: string, body?: unknown): Promise<Answer>;
  /**
   * Watches the pods of `ns`: first every pod of the list (as ADDED events), then every change.
   * A server may close a watch (under load it drops slow watchers): `ended` is then called.
   */
  watchPods(ns: string, h: PodWatchHandlers): Promise<PodWatch>;
  close(): void;
}

export async function connectKube(kubeconfig: string): Promise<Kube> {
  const c = await loadConnection(kubeconfig);
  const agent = new Agent({
    keepAlive: true,
    maxSockets: 128,
    ...(c.caPem === undefined ? {} : { ca: c.caPem }),
    ...(c.certPem === undefined ? {} : { cert: c.certPem }),
    ...(c.keyPem === undefined ? {} : { key: c.keyPem }),
  });
  const base = new URL(c.server);
  const call = (method: string, path: string, body?: unknown): Promise<Answer> =>
    new Promise((resolve, reject) => {
      const text = body === undefined ? undefined : JSON.stringify(body);
      const req = request(
        new URL(path, base),
        {
          method,
          agent,
          headers: {
            accept: 'application/json',
            ...(text === undefined ? {} : { 'content-type': 'application/json' }),
          },
          timeout: 60_000,
        },
        (res) => {
          let data = '';
          res.setEncoding('utf8').on('data', (d: string) => (data += d));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: parseOr(data) }));
          res.on('error', reject);
        },
      );
      req.on('timeout', () => req.destroy(new Error(`${method} ${path}: no answer in 60 s`)));
      req.on('error', reject);
      req.end(text);
    });
  return {
    server: c.server,
    call,
    watchPods: (ns, h) => watchPods(base, agent, call, ns, h),
    close: () => agent.destroy(),
  };
}

function parseOr(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

async function watchPods(
  base: URL,
  agent: Agent,
  call: Kube['call'],
  ns: string,
  h: PodWatchHandlers,
): Promise<PodWatch> {
  const list = await call('GET', `/api/v1/namespaces/${ns}/pods`);
  const listed = performance.now();
  for (const pod of listOf(recordOf(list.body)['items']))
    if (isRecord(pod)) h.onEvent({ at: listed, type: 'ADDED', pod });
  const rv = String(recordOf(recordOf(list.body)['metadata'])['resourceVersion'] ?? '');
  const path = `/api/v1/namespaces/${ns}/pods?watch=1&resourceVersion=${rv}`;
  return await new Promise((resolve, reject) => {
    const req = request(new URL(path, base), { agent, headers: { accept: 'application/json' } });
    req.on('response', (res) => {
      if (res.statusCode !== 200) {
        reject(new Error(`watch of pods in ${ns}: HTTP ${res.statusCode ?? 0}`));
        res.resume();
        return;
      }
      let buf = '';
      res.setEncoding('utf8').on('data', (d: string) => {
        const at = performance.now();
        buf += d;
        for (let nl = buf.indexOf('\n'); nl >= 0; nl = buf.indexOf('\n')) {
          const ev = parseOr(buf.slice(0, nl));
          buf = buf.slice(nl + 1);
          if (isRecord(ev) && isRecord(ev['object']))
            h.onEvent({ at, type: String(ev['type']), pod: ev['object'] });
        }
      });
      res.on('error', () => undefined);
      res.on('close', () => h.ended());
      resolve({ stop: () => req.destroy() });
    });
    req.on('error', reject);
    req.end();
  });
}

/** Names of the items of a list answer. */
export function itemNames(a: Answer): string[] {
  return listOf(recordOf(a.body)['items']).map((i) =>
    String(recordOf(recordOf(i)['metadata'])['name'] ?? ''),
  );
}

/** Throws unless the answer's status is one of `ok`. */
export function expectStatus(a: Answer, what: string, ...ok: number[]): Answer {
  if (ok.includes(a.status)) return a;
  const message = recordOf(a.body)['message'];
  throw new Error(`${what}: HTTP ${a.status} ${typeof message === 'string' ? message : ''}`);
}
