// A burst of 10,000 events in one second into the event recorder (defaults: --event-qps 50,
// --event-burst 100) writing to a sink that records when each write happens: the writes must keep
// to the bucket, the queue must stay at 1000 (the rest dropped with a count) and memory bounded.
// Baseline in the same run: the same burst kept in an unbounded array (what a naive queue holds).
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { silentLogger } from '../src/common/log/types.js';
import { systemClock } from '../src/common/util/clock.js';
import { EventRecorder } from '../src/agent/node/events/recorder.js';
import type { CoreEvent, EventSink } from '../src/agent/node/events/types.js';

const EVENTS = 10_000;
const QPS = 50;
const BURST = 100;
const OBSERVE_MS = Number(process.env['BENCH_OBSERVE_MS'] ?? 3000);

// A real collection before each reading, even when run without --expose-gc.
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

function heapMb(): number {
  gc();
  return process.memoryUsage().heapUsed / 1024 / 1024;
}

const writes: number[] = [];
const sink: EventSink = {
  create: () => {
    writes.push(Date.now());
    return Promise.resolve({});
  },
  patch: () => {
    writes.push(Date.now());
    return Promise.resolve({});
  },
};

function makeEvent(i: number): CoreEvent {
  const ts = new Date().toISOString();
  return {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name: `pod-${i}.${i.toString(16)}`, namespace: 'bench' },
    involvedObject: { kind: 'Pod', namespace: 'bench', name: `pod-${i}`, uid: `uid-${i}` },
    reason: 'Started',
    message: `Started container c (${'x'.repeat(200)})`,
    source: { component: 'nodeagent', host: 'bench-node' },
    firstTimestamp: ts,
    lastTimestamp: ts,
    count: 1,
    type: 'Normal',
    eventTime: null,
    reportingComponent: 'nodeagent',
    reportingInstance: 'bench-node',
  };
}

const abort = new AbortController();
const recorder = new EventRecorder({
  sink,
  clock: systemClock,
  logger: silentLogger(),
  host: 'bench-node',
  qps: QPS,
  burst: BURST,
});
recorder.start(abort.signal);

const before = heapMb();
const start = Date.now();
let maxCallMs = 0;
// 10,000 events spread over one second, in 100 slices of 100.
for (let slice = 0; slice < 100; slice++) {
  for (let i = 0; i < EVENTS / 100; i++) {
    const n = slice * 100 + i;
    const t0 = performance.now();
    recorder.event(
      { kind: 'Pod', namespace: 'bench', name: `pod-${n}`, uid: `uid-${n}` },
      'Normal',
      'Started',
      `Started container c (${'x'.repeat(200)})`,
    );
    maxCallMs = Math.max(maxCallMs, performance.now() - t0);
  }
  await new Promise((r) => setTimeout(r, 10));
}
const burstMs = Date.now() - start;
await new Promise((r) => setTimeout(r, Math.max(0, OBSERVE_MS - burstMs)));
const elapsedS = (Date.now() - start) / 1000;
const recorderMb = heapMb() - before;
const allowed = BURST + QPS * elapsedS;
console.log(
  `burst: ${EVENTS} events in ${burstMs} ms; slowest event() call ${maxCallMs.toFixed(3)} ms`,
);
console.log(
  `writes in ${elapsedS.toFixed(2)} s: ${writes.length} (bucket allows at most ${allowed.toFixed(0)} = burst ${BURST} + ${QPS}/s): ${writes.length <= allowed + 1 ? 'QPS honoured' : 'QPS EXCEEDED'}`,
);
const lastSecond = writes.filter((t) => t > Date.now() - 1000).length;
console.log(`steady rate over the last second: ${lastSecond} writes/s (event-qps ${QPS})`);
console.log(
  `queued ${recorder.stats.queued} (cap 1000), dropped when full ${recorder.stats.droppedQueueFull}, spam-filtered ${recorder.stats.droppedSpam}`,
);
abort.abort();

// Baseline: the same burst held in an unbounded queue.
const base0 = heapMb();
const unbounded: CoreEvent[] = [];
for (let n = 0; n < EVENTS; n++) unbounded.push(makeEvent(n));
const baselineMb = heapMb() - base0;
console.log(
  `heap growth: recorder ${recorderMb.toFixed(2)} MB vs unbounded queue baseline ${baselineMb.toFixed(2)} MB, ratio ${(recorderMb / baselineMb).toFixed(2)}x (${unbounded.length} held)`,
);
