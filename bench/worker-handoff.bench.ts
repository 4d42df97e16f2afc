// What handing a request's body decoding to a worker thread would save plat-apiserver's main
// thread. The main thread needs the decoded object (admission, managed fields, the store's
// encoding all run there), so a worker that parses the JSON must send the object back, and the
// main thread then pays the structured clone's deserialization instead of JSON.parse. This
// measures, per body (an Event, a Node and a Pod as the node simulator sends them):
// - JSON.parse of its text on the main thread (the baseline, same run);
// - v8.deserialize of the same object, which is what receiving it from a worker costs the main
//   thread (postMessage uses the same serializer), plus posting the text;
// - the round trip through a real worker thread: latency, and the main thread's busy time per
//   body (event loop utilisation), with one body in flight and with 16.
// A ratio above 1 for the main thread's time means the hand-off takes more of it than it frees.
// It also measures what serialising a watch event's object costs: as JSON, posted to a thread,
// and as a protobuf message.

import { deserialize, serialize } from 'node:v8';
import { Worker } from 'node:worker_threads';
import { performance } from 'node:perf_hooks';
import { event, ms, percentile } from './apiserver-harness.js';
import { nodeObject, podObject } from './node-sim-objects.js';
import { encodeMessage } from '../src/common/protobuf/codec.js';

const N = 20_000;

function bestPerCall(rounds: number, n: number, fn: () => void): number {
  let best = Infinity;
  for (let r = 0; r < rounds; r++) {
    const t = performance.now();
    for (let i = 0; i < n; i++) fn();
    best = Math.min(best, (performance.now() - t) / n);
  }
  return best;
}

const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads');
parentPort.on('message', (m) => parentPort.postMessage({ id: m.id, obj: JSON.parse(m.text) }));
`;

interface Handoff {
  readonly latencies: number[];
  /** Main-thread busy ms per body. */
  readonly mainMs: number;
}

/** `n` bodies through the worker, `inFlight` at a time. */
async function throughWorker(
  w: Worker,
  text: string,
  n: number,
  inFlight: number,
): Promise<Handoff> {
  const latencies: number[] = [];
  const sent = new Map<number, number>();
  let next = 0;
  let done = 0;
  const elu0 = performance.eventLoopUtilization();
  const t0 = performance.now();
  await new Promise<void>((resolve) => {
    const send = (): void => {
      const id = next++;
      sent.set(id, performance.now());
      w.postMessage({ id, text });
    };
    w.on('message', (m: { id: number; obj: unknown }) => {
      latencies.push(performance.now() - (sent.get(m.id) ?? 0));
      sent.delete(m.id);
      if (++done === n) resolve();
      else if (next < n) send();
    });
    for (let i = 0; i < inFlight; i++) send();
  });
  const elu = performance.eventLoopUtilization(elu0);
  w.removeAllListeners('message');
  return { latencies, mainMs: (elu.utilization * (performance.now() - t0)) / n };
}

async function measure(name: string, body: unknown, w: Worker): Promise<void> {
  const text = JSON.stringify(body);
  const obj: unknown = JSON.parse(text);
  const bytes = serialize(obj);
  const parse = bestPerCall(5, N, () => JSON.parse(text));
  const receive = bestPerCall(5, N, () => deserialize(bytes));
  const post = bestPerCall(5, N, () => serialize({ id: 1, text }));
  console.log(
    `  ${name} (${text.length} bytes of JSON): JSON.parse ${(parse * 1000).toFixed(1)} us; ` +
      `receiving the object from a worker ${(receive * 1000).toFixed(1)} us + posting the text ` +
      `${(post * 1000).toFixed(1)} us: ${((receive + post) / parse).toFixed(2)}x`,
  );
  for (const inFlight of [1, 16]) {
    await throughWorker(w, text, 2000, inFlight); // warm
    const h = await throughWorker(w, text, N, inFlight);
    console.log(
      `    through a worker, ${inFlight} in flight: latency p50 ${ms(percentile(h.latencies, 0.5))}, ` +
        `p99 ${ms(percentile(h.latencies, 0.99))}; main thread ${(h.mainMs * 1000).toFixed(1)} us ` +
        `a body against ${(parse * 1000).toFixed(1)} us to parse it itself: ` +
        `${(h.mainMs / parse).toFixed(2)}x`,
    );
  }
}

/**
 * What serialising a watch event's object costs the main thread each way: JSON.stringify (a JSON
 * watch line), posting the object to a thread (v8.serialize, what postMessage does), and the
 * protobuf message (a protobuf watch frame), which --worker-threads makes on a thread from the
 * object's JSON text.
 */
function serialisations(name: string, obj: Record<string, unknown>): void {
  const apiVersion = String(obj['apiVersion'] ?? 'v1');
  const kind = String(obj['kind']);
  const json = bestPerCall(5, N, () => JSON.stringify(obj));
  const posted = bestPerCall(5, N, () => serialize(obj));
  const proto = bestPerCall(5, N, () => encodeMessage(obj, apiVersion, kind));
  const us = (x: number): string => `${(x * 1000).toFixed(1)} us`;
  console.log(
    `  ${name}: JSON.stringify ${us(json)}; posting the object ${us(posted)} ` +
      `(${(posted / json).toFixed(2)}x); the protobuf message ${us(proto)} (${(proto / json).toFixed(2)}x)`,
  );
}

console.log('[worker-handoff] serialising a watch event: JSON, posting the object, protobuf');
serialisations('Event', event('e1', 'bench'));
serialisations('Node', nodeObject('node-1', 1, 'run', Date.now()));
serialisations('Pod', podObject('pod-1', 'bench', 'run', ['sleep', '3600'], 'node-1'));

const w = new Worker(WORKER_SOURCE, { eval: true });
try {
  console.log('[worker-handoff] main-thread cost of a body decoded in a worker thread');
  await measure('Event', event('e1', 'bench'), w);
  await measure('Node', nodeObject('node-1', 1, 'run', Date.now()), w);
  await measure('Pod', podObject('pod-1', 'bench', 'run', ['sleep', '3600'], 'node-1'), w);
} finally {
  await w.terminate();
}
