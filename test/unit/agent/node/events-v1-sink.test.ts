// The recorder's events.k8s.io/v1 sink (the reference's newer recorder's shape and series
// patch) and the choice between it and core/v1 by the server's discovery, logged once.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError } from '../../../../src/common/util/errors.js';
import {
  eventsV1Sink,
  microTime,
  NegotiatedEventSink,
  NOTE_LIMIT,
  toEventsV1,
} from '../../../../src/agent/node/events/events-v1-sink.js';
import type { CoreEvent, EventSink } from '../../../../src/agent/node/events/types.js';
import { recordingLogger } from '../../../helpers/recording-logger.js';

const coreEvent = (message = 'Started container app'): CoreEvent => ({
  apiVersion: 'v1',
  kind: 'Event',
  metadata: { name: 'web.18a', namespace: 'default' },
  involvedObject: {
    kind: 'Pod',
    name: 'web',
    namespace: 'default',
    uid: 'u1',
    apiVersion: 'v1',
    fieldPath: 'spec.containers{app}',
  },
  reason: 'Started',
  message,
  source: { component: 'kubelet', host: 'node-1' },
  firstTimestamp: '2026-01-01T00:00:00Z',
  lastTimestamp: '2026-01-01T00:00:00Z',
  count: 1,
  type: 'Normal',
  eventTime: null,
  reportingComponent: 'kubelet',
  reportingInstance: 'node-1',
});

test('an event as the newer recorder creates it: eventTime, reporting fields, action NoKind, no deprecated fields', () => {
  assert.deepEqual(toEventsV1(coreEvent(), 'events.k8s.io/v1'), {
    apiVersion: 'events.k8s.io/v1',
    kind: 'Event',
    metadata: { name: 'web.18a', namespace: 'default' },
    eventTime: '2026-01-01T00:00:00.000000Z',
    reportingController: 'kubelet',
    reportingInstance: 'node-1',
    action: 'NoKind',
    reason: 'Started',
    regarding: {
      kind: 'Pod',
      name: 'web',
      namespace: 'default',
      uid: 'u1',
      apiVersion: 'v1',
      fieldPath: 'spec.containers{app}',
    },
    note: 'Started container app',
    type: 'Normal',
  });
  assert.equal(microTime('2026-01-01T00:00:00.123Z'), '2026-01-01T00:00:00.123000Z');
  const long = toEventsV1(coreEvent('x'.repeat(NOTE_LIMIT + 10)), 'events.k8s.io/v1');
  assert.equal(String(long['note']).length, NOTE_LIMIT);
  assert.ok(String(long['note']).endsWith('...'));
});

test('a repeat is a merge patch of series only (note is immutable through events.k8s.io)', async () => {
  const calls: unknown[] = [];
  const sink = eventsV1Sink(
    {
      create: (body, opts) => Promise.resolve(calls.push(['create', opts.namespace, body['note']])),
      patch: (name, patch, opts) =>
        Promise.resolve(calls.push(['patch', opts.type, opts.namespace, name, patch])),
    },
    'events.k8s.io/v1',
    () => new Date('2026-01-01T00:09:00Z'),
  );
  await sink.create('default', coreEvent());
  await sink.patch('default', 'web.18a', {
    count: 3,
    lastTimestamp: '2026-01-01T00:05:00Z',
    message: 'changed',
  });
  assert.deepEqual(calls, [
    ['create', 'default', 'Started container app'],
    [
      'patch',
      'merge',
      'default',
      'web.18a',
      { series: { count: 3, lastObservedTime: '2026-01-01T00:05:00.000000Z' } },
    ],
  ]);
});

function fakeSink(name: string, log: string[]): EventSink {
  return {
    create: () => Promise.resolve(log.push(`${name}:create`)),
    patch: () => Promise.resolve(log.push(`${name}:patch`)),
  };
}

/** A negotiating sink over `preferred` (fake "v1" when not given) and a fake "core", writing to `log`. */
function negotiated(
  log: string[],
  logger: ReturnType<typeof recordingLogger>,
  served: () => Promise<boolean>,
  preferred: EventSink = fakeSink('v1', log),
): NegotiatedEventSink {
  return new NegotiatedEventSink({
    preferred,
    fallback: fakeSink('core', log),
    served,
    groupVersion: 'events.k8s.io/v1',
    logger,
  });
}

test('negotiation: events.k8s.io when discovery lists it; core/v1 (logged once) when it does not or the group is absent', async () => {
  for (const [served, want] of [
    [() => Promise.resolve(true), 'v1'],
    [() => Promise.resolve(false), 'core'],
    [() => Promise.reject(new ApiError('not found', { status: 404, reason: 'NotFound' })), 'core'],
  ] as const) {
    const writes: string[] = [];
    const logger = recordingLogger();
    let asked = 0;
    const sink = negotiated(writes, logger, () => {
      asked++;
      return served();
    });
    assert.equal(sink.mode, 'undecided');
    await sink.create('default', coreEvent());
    await sink.patch('default', 'x', { count: 2 });
    await sink.create('default', coreEvent());
    assert.deepEqual(writes, [`${want}:create`, `${want}:patch`, `${want}:create`]);
    assert.equal(asked, 1, 'discovery is read once');
    assert.equal(sink.mode, want === 'v1' ? 'events.k8s.io' : 'core');
    const fallbacks = logger.lines.filter((l) =>
      l.msg.includes('recording events through core/v1'),
    );
    assert.equal(fallbacks.length, want === 'core' ? 1 : 0);
  }
});

test('negotiation: an unreadable discovery writes through core/v1 for now, says so once, and asks again next time', async () => {
  const writes: string[] = [];
  const logger = recordingLogger();
  let asked = 0;
  const sink = negotiated(writes, logger, () =>
    ++asked < 3
      ? Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:6443'))
      : Promise.resolve(true),
  );
  await sink.create('default', coreEvent());
  await sink.create('default', coreEvent());
  await sink.create('default', coreEvent());
  assert.deepEqual(writes, ['core:create', 'core:create', 'v1:create']);
  assert.equal(
    logger.lines.filter((l) =>
      l.msg.startsWith(
        "cannot read the API server's discovery of events.k8s.io/v1 (connect ECONNREFUSED",
      ),
    ).length,
    1,
  );
});

test('negotiation: a 403 from events.k8s.io (the reference system:node role grants core events only) moves to core/v1 for good, this event included', async () => {
  const writes: string[] = [];
  const logger = recordingLogger();
  const forbidden: EventSink = {
    create: () =>
      Promise.reject(
        new ApiError(
          'events.events.k8s.io is forbidden: User "system:node:n1" cannot create resource "events"',
          { status: 403, reason: 'Forbidden' },
        ),
      ),
    patch: () => Promise.reject(new Error('unexpected')),
  };
  const sink = negotiated(writes, logger, () => Promise.resolve(true), forbidden);
  await sink.create('default', coreEvent());
  await sink.create('default', coreEvent());
  assert.deepEqual(writes, ['core:create', 'core:create']);
  assert.equal(sink.mode, 'core');
  assert.equal(
    logger.lines.filter((l) =>
      l.msg.startsWith(
        'this user may not write events.k8s.io/v1 events (events.events.k8s.io is forbidden',
      ),
    ).length,
    1,
  );
  const other = negotiated(writes, logger, () => Promise.resolve(true), {
    create: () => Promise.reject(new ApiError('bad', { status: 422, reason: 'Invalid' })),
    patch: () => Promise.resolve(),
  });
  await assert.rejects(other.create('default', coreEvent()), /bad/);
  assert.equal(other.mode, 'events.k8s.io', "other errors are the recorder's to handle");
});
