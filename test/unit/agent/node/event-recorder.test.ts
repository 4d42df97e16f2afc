import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ManualClock } from '../../../helpers/manual-clock.js';
import { silentLogger } from '../../../../src/common/log/types.js';
import { ApiError } from '../../../../src/common/util/errors.js';
import { EventRecorder } from '../../../../src/agent/node/events/recorder.js';
import type { CoreEvent, EventSink } from '../../../../src/agent/node/events/types.js';

class FakeSink implements EventSink {
  created: CoreEvent[] = [];
  patches: { name: string; patch: Partial<CoreEvent> }[] = [];
  failNext = 0;
  hang = false;
  private fail(): Promise<never> | undefined {
    if (this.hang) return new Promise<never>(() => undefined);
    if (this.failNext > 0) {
      this.failNext--;
      return Promise.reject(
        new ApiError('unavailable', { status: 503, reason: 'ServiceUnavailable' }),
      );
    }
    return undefined;
  }
  create(_ns: string, e: CoreEvent): Promise<unknown> {
    const f = this.fail();
    if (f) return f;
    this.created.push(e);
    return Promise.resolve(e);
  }
  patch(_ns: string, name: string, patch: Partial<CoreEvent>): Promise<unknown> {
    const f = this.fail();
    if (f) return f;
    this.patches.push({ name, patch });
    return Promise.resolve({});
  }
}

function setup(
  qps = 0,
  burst = 0,
  queueLength?: number,
): { clock: ManualClock; sink: FakeSink; rec: EventRecorder; abort: AbortController } {
  const clock = new ManualClock(Date.UTC(2026, 0, 1, 12, 0, 0));
  const sink = new FakeSink();
  const rec = new EventRecorder({
    sink,
    clock,
    logger: silentLogger(),
    host: 'node-a',
    qps,
    burst,
    ...(queueLength !== undefined ? { queueLength } : {}),
  });
  const abort = new AbortController();
  rec.start(abort.signal);
  return { clock, sink, rec, abort };
}

const pod = { kind: 'Pod', namespace: 'team', name: 'web', uid: 'u1', apiVersion: 'v1' };

test('an event carries the reference fields; identical ones raise count by PATCH', async (t) => {
  const { sink, rec, abort, clock } = setup();
  t.after(() => abort.abort());
  rec.event(pod, 'Normal', 'Pulling', 'Pulling image "nginx"');
  await rec.drained();
  const e = sink.created[0]!;
  assert.match(e.metadata.name, /^web\.[0-9a-f]+$/);
  assert.equal(e.metadata.name, `web.${(BigInt(clock.nowMs()) * 1_000_000n).toString(16)}`);
  assert.equal(e.metadata.namespace, 'team');
  assert.deepEqual(e.source, { component: 'nodeagent', host: 'node-a' });
  assert.equal(e.count, 1);
  assert.equal(e.type, 'Normal');
  clock.advance(5_000);
  rec.event(pod, 'Normal', 'Pulling', 'Pulling image "nginx"');
  rec.event(pod, 'Normal', 'Pulling', 'Pulling image "nginx"');
  await rec.drained();
  assert.equal(sink.created.length, 1);
  assert.deepEqual(
    sink.patches.map((p) => [p.name, p.patch.count, p.patch.lastTimestamp]),
    [
      [e.metadata.name, 2, '2026-01-01T12:00:05Z'],
      [e.metadata.name, 3, '2026-01-01T12:00:05Z'],
    ],
  );
  // Node events go to the default namespace.
  rec.event(
    { kind: 'Node', name: 'node-a', uid: 'node-a' },
    'Normal',
    'Starting',
    'Starting nodeagent.',
  );
  await rec.drained();
  assert.equal(sink.created.at(-1)?.metadata.namespace, 'default');
});

test("more than 10 similar events are combined; the spam filter allows 25 per object, type and reason (the reference's getSpamKey), then 1 per 5 minutes", async (t) => {
  const { sink, rec, abort, clock } = setup(1000, 1000);
  t.after(() => abort.abort());
  for (let i = 0; i < 30; i++)
    rec.event(pod, 'Warning', 'BackOff', `Back-off restarting failed container ${i}`);
  await rec.drained();
  assert.equal(rec.stats.droppedSpam, 5);
  assert.equal(sink.created.length, 11, '10 distinct events and one combined');
  assert.match(
    sink.created[10]!.message,
    /^\(combined from similar events\): Back-off restarting failed container 10$/,
  );
  assert.equal(sink.patches.length, 14, 'later similar events raise the combined event count');
  assert.equal(sink.patches.at(-1)?.patch.count, 15);
  clock.advance(300_000);
  rec.event(pod, 'Warning', 'BackOff', 'again');
  rec.event(pod, 'Warning', 'BackOff', 'again and again');
  await rec.drained();
  assert.equal(rec.stats.droppedSpam, 6);
  // Another object has its own bucket.
  rec.event({ ...pod, name: 'other', uid: 'u2' }, 'Warning', 'BackOff', 'x');
  await rec.drained();
  assert.equal(rec.stats.droppedSpam, 6);
  // So has another reason of the same object: a pod whose probe failed all along is still
  // reported Killing (the kubelet 1.32.13 wrote Killing after 27 events of one pod).
  rec.event(pod, 'Normal', 'Killing', 'Stopping container c');
  await rec.drained();
  assert.equal(rec.stats.droppedSpam, 6);
  assert.equal(sink.created.at(-1)?.reason, 'Killing');
});

test('writes are limited by event-qps/event-burst (0 means 5/10)', async (t) => {
  const { sink, rec, abort, clock } = setup(0, 0);
  t.after(() => abort.abort());
  for (let i = 0; i < 15; i++)
    rec.event(
      { kind: 'Pod', namespace: 'n', name: `p${i}`, uid: `u${i}` },
      'Normal',
      'Created',
      'Created container',
    );
  await clock.waitForSleepers(1);
  assert.equal(sink.created.length, 10, 'the burst goes at once');
  for (let i = 0; i < 5; i++) {
    assert.equal(clock.sleeps.at(-1), 200, 'then one every 200 ms');
    clock.advance(200);
    if (i < 4) await clock.waitForSleepers(1);
  }
  await rec.drained();
  assert.equal(sink.created.length, 15);
});

test('failed writes are retried up to 12 times, 10 s apart, then dropped with a count', async (t) => {
  const { sink, rec, abort, clock } = setup(1000, 1000);
  t.after(() => abort.abort());
  sink.failNext = 3;
  rec.event(pod, 'Normal', 'Started', 'Started container c');
  for (let i = 0; i < 3; i++) {
    await clock.waitForSleepers(1);
    clock.advance(10_000);
  }
  await rec.drained();
  assert.equal(sink.created.length, 1);
  assert.deepEqual(clock.sleeps, [10_000, 10_000, 10_000]);
  sink.failNext = 100;
  rec.event(pod, 'Normal', 'Killing', 'Stopping container c');
  for (let i = 0; i < 11; i++) {
    await clock.waitForSleepers(1);
    clock.advance(10_000);
  }
  await rec.drained();
  assert.equal(rec.stats.droppedFailed, 1);
  assert.equal(sink.created.length, 1);
  assert.equal(clock.sleeps.length, 14);
});

test('API server down: the queue holds 1000 events, the rest are dropped with a count; event() never blocks', async (t) => {
  const { sink, rec, abort } = setup(1000, 1000);
  t.after(() => abort.abort());
  sink.hang = true;
  rec.event(pod, 'Normal', 'Created', 'first, stuck in flight');
  await new Promise((r) => setImmediate(r));
  const start = process.hrtime.bigint();
  for (let i = 0; i < 1500; i++)
    rec.event(
      { kind: 'Pod', namespace: 'n', name: `p${i}`, uid: `u${i}` },
      'Normal',
      'Created',
      'Created container',
    );
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  assert.ok(ms < 500, `1500 event() calls took ${ms} ms`);
  // One is in flight (hanging), 1000 queued, the rest dropped.
  assert.equal(rec.stats.droppedQueueFull, 500);
  assert.equal(rec.stats.queued, 1000);
});
