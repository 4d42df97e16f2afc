// Pod status writes carry the stop signal given to start(): once the agent stops, a write in
// flight to an API server that does not answer gives up at once, so the agent's stop (which waits
// for the status writes, idle()) does not wait on it; it is not kept for a retry nor warned about.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { namesFor } from '../../../../src/common/names.js';
import { ApiStatusSync } from '../../../../src/agent/worker/api-status-sync.js';
import type { ResourceClient } from '../../../../src/agent/client/resource-client.js';
import type { ApiPod } from '../../../../src/agent/source/apiserver.js';
import type { Pod } from '../../../../src/agent/pod/types.js';
import { ManualClock } from '../../../helpers/manual-clock.js';
import { recordingLogger } from '../../../helpers/recording-logger.js';

/** A call to a server that never answers: it settles only when its signal aborts. */
function unanswered(
  o: { signal?: AbortSignal } | undefined,
  calls: string[],
  what: string,
): Promise<never> {
  calls.push(what);
  if (o?.signal?.aborted === true) return Promise.reject(o.signal.reason as Error);
  return new Promise<never>((_resolve, reject) =>
    o?.signal?.addEventListener('abort', () => reject(o.signal?.reason as Error), { once: true }),
  );
}

const names = namesFor('platform', 'platform.io');

test('a status write in flight when the agent stops ends with the stop signal; no retry, no warning', async () => {
  const calls: string[] = [];
  const client = {
    patch: (_n: string, _p: unknown, o?: { signal?: AbortSignal }) => unanswered(o, calls, 'patch'),
  } as unknown as ResourceClient<ApiPod>;
  const logger = recordingLogger();
  const sync = new ApiStatusSync({
    pods: client,
    names,
    logger,
    clock: new ManualClock(),
    retryMs: 10_000,
  });
  const stop = new AbortController();
  sync.start(stop.signal);
  const pod: Pod = {
    metadata: {
      name: 'api-pod',
      namespace: 'default',
      uid: 'u1',
      annotations: { 'platform.io/config.source': 'api' },
    },
    spec: { containers: [{ name: 'c' }] },
  };
  const write = sync.statusChanged(pod, {
    phase: 'Running',
    conditions: [],
    containerStatuses: [],
  });
  while (calls.length === 0) await new Promise((r) => setImmediate(r));
  stop.abort();
  await write;
  await sync.idle();
  await sync.stopped();
  assert.deepEqual(calls, ['patch']);
  assert.deepEqual(
    logger.lines.filter((l) => l.level === 'warn'),
    [],
  );
  assert.ok(logger.lines.some((l) => l.msg === 'pod status not reported: the agent is stopping'));
});

test('the mirror pod of a static pod: the Node read for its owner carries the stop signal', async () => {
  const calls: string[] = [];
  const client = {
    create: (_obj: unknown, o?: { signal?: AbortSignal }) => unanswered(o, calls, 'create'),
  } as unknown as ResourceClient<ApiPod>;
  const ownerSignals: (AbortSignal | undefined)[] = [];
  const sync = new ApiStatusSync({
    pods: client,
    names,
    logger: recordingLogger(),
    clock: new ManualClock(),
    ownerNode: (signal) => {
      ownerSignals.push(signal);
      return unanswered({ ...(signal ? { signal } : {}) }, calls, 'get node');
    },
  });
  const stop = new AbortController();
  sync.start(stop.signal);
  const pod: Pod = {
    metadata: {
      name: 'static',
      namespace: 'default',
      uid: 'u2',
      annotations: { 'platform.io/config.source': 'file', 'platform.io/config.hash': 'h' },
    },
    spec: { containers: [{ name: 'c' }] },
  };
  const write = sync.statusChanged(pod, {
    phase: 'Running',
    conditions: [],
    containerStatuses: [],
  });
  while (calls.length === 0) await new Promise((r) => setImmediate(r));
  assert.equal(ownerSignals[0], stop.signal);
  stop.abort();
  await write;
  await sync.idle();
  assert.deepEqual(calls, ['get node']);
});
