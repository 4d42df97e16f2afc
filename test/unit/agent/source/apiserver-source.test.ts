import { namesFor } from '../../../../src/common/names.js';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiserverSource, type ApiPod } from '../../../../src/agent/source/apiserver.js';
import { ApiStatusSync } from '../../../../src/agent/worker/api-status-sync.js';
import type { ResourceClient } from '../../../../src/agent/client/resource-client.js';
import type { WatchEvent } from '../../../../src/agent/client/types.js';
import { ApiError } from '../../../../src/common/util/errors.js';
import type { PodSnapshot } from '../../../../src/agent/source/types.js';
import type { Pod, PodStatus } from '../../../../src/agent/pod/types.js';
import { ManualClock } from '../../../helpers/manual-clock.js';
import { PodRefusals } from '../../../../src/agent/pod/refusal-notes.js';
import { recordingLogger } from '../../../helpers/recording-logger.js';

const apiPod = (name: string, uid: string, extra: Record<string, unknown> = {}): ApiPod => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: 'default', uid, ...extra },
  spec: { nodeName: 'n1', containers: [{ name: 'c', image: 'i' }] },
});

test('the API source: list then watch events become full snapshots; mirror pods skipped; a pod it cannot decode is handed on with its problems noted', async () => {
  const events: WatchEvent<ApiPod>[] = [
    {
      type: 'RELIST',
      object: {
        items: [
          apiPod('a', 'ua'),
          apiPod('m', 'um', { annotations: { 'platform.io/config.mirror': 'h' } }),
        ],
      },
    },
    { type: 'ADDED', object: apiPod('b', 'ub') },
    { type: 'MODIFIED', object: { ...apiPod('b', 'ub'), spec: { containers: 'none' } } },
    { type: 'DELETED', object: apiPod('a', 'ua') },
  ];
  let selector = '';
  const client = {
    async *watch(o: { fieldSelector?: string }) {
      selector = o.fieldSelector ?? '';
      for (const e of events) yield e;
    },
  } as unknown as ResourceClient<ApiPod>;
  const snaps: PodSnapshot[] = [];
  const ac = new AbortController();
  const clock = new ManualClock();
  const refusals = new PodRefusals();
  const src = new ApiserverSource({
    pods: client,
    nodeName: 'n1',
    names: namesFor('platform', 'platform.io'),
    refusals,
    onSnapshot: (s) => snaps.push(s),
    logger: recordingLogger(),
    clock,
  });
  await src.start(ac.signal);
  // the stream ended: the source waits to list again instead of ending
  await clock.waitForSleepers(1);
  ac.abort();
  await src.closed();
  assert.equal(selector, 'spec.nodeName=n1');
  assert.deepEqual(
    snaps.map((s) => s.pods.map((p) => p.metadata.name)),
    [['a'], ['a', 'b'], ['a', 'b'], ['b']],
  );
  // the undecodable b: a stand-in with no containers, refused at admission with why
  const b = snaps[2]?.pods.find((p) => p.metadata.name === 'b');
  assert.ok(b);
  assert.deepEqual(b.spec.containers, []);
  assert.deepEqual(refusals.get(b), [
    'the pod cannot be decoded: pod default/b from the API server: invalid pod: spec.containers: Invalid value: "none": must be a list',
  ]);
  assert.equal(snaps[0]?.pods[0]?.metadata.annotations?.['platform.io/config.source'], 'api');
});

test('mirror pods: created for a static pod, replaced when the config hash changes, deleted with it', async () => {
  const store = new Map<string, ApiPod>();
  const calls: string[] = [];
  const client = {
    async create(o: ApiPod) {
      const name = o.metadata?.name ?? '';
      calls.push(`create ${name}`);
      if (store.has(name)) throw new ApiError('exists', { status: 409, reason: 'AlreadyExists' });
      store.set(name, o);
      return o;
    },
    async get(name: string) {
      const o = store.get(name);
      if (!o) throw new ApiError('not found', { status: 404, reason: 'NotFound' });
      return o;
    },
    async delete(name: string) {
      calls.push(`delete ${name}`);
      store.delete(name);
      return { kind: 'Status' };
    },
    async patch(name: string, body: { status: unknown }) {
      calls.push(`status ${name}`);
      const o = store.get(name);
      if (o) store.set(name, { ...o, status: body.status });
      return o;
    },
  } as unknown as ResourceClient<ApiPod>;
  const sync = new ApiStatusSync({
    pods: client,
    names: namesFor('platform', 'platform.io'),
    logger: recordingLogger(),
    clock: new ManualClock(),
  });
  const staticPod = (hash: string): Pod => ({
    metadata: {
      name: 'web-n1',
      namespace: 'default',
      uid: hash,
      annotations: { 'platform.io/config.hash': hash, 'platform.io/config.source': 'file' },
    },
    spec: { containers: [{ name: 'c', command: ['x'] }] },
  });
  const status: PodStatus = { phase: 'Running', conditions: [], containerStatuses: [] };
  await sync.statusChanged(staticPod('h1'), status);
  assert.equal(store.get('web-n1')?.metadata?.annotations?.['platform.io/config.mirror'], 'h1');
  assert.equal(
    (store.get('web-n1') as { spec: { containers: { image: string }[] } }).spec.containers[0]
      ?.image,
    'process',
  );
  await sync.statusChanged(staticPod('h1'), status);
  assert.deepEqual(
    calls,
    ['create web-n1', 'status web-n1'],
    'an unchanged status is not sent again',
  );
  // edited manifest: new hash, same name; the old static pod's removal must not delete the new mirror
  await sync.statusChanged(staticPod('h2'), { ...status, phase: 'Pending' });
  await sync.podRemoved(staticPod('h1'));
  assert.equal(store.get('web-n1')?.metadata?.annotations?.['platform.io/config.mirror'], 'h2');
  assert.deepEqual((store.get('web-n1') as { status: PodStatus }).status.phase, 'Pending');
  await sync.podRemoved(staticPod('h2'));
  assert.equal(store.has('web-n1'), false);
});

test('status writes that fail are retried by the loop until they succeed', async () => {
  const clock = new ManualClock();
  let up = false;
  const patched: string[] = [];
  const client = {
    async patch(name: string) {
      if (!up)
        throw new ApiError('connection refused', { status: 503, reason: 'ServiceUnavailable' });
      patched.push(name);
      return {};
    },
  } as unknown as ResourceClient<ApiPod>;
  const logger = recordingLogger();
  const sync = new ApiStatusSync({
    pods: client,
    names: namesFor('platform', 'platform.io'),
    logger,
    clock,
    retryMs: 10_000,
  });
  const ac = new AbortController();
  sync.start(ac.signal);
  const p: Pod = {
    metadata: {
      name: 'api-pod',
      namespace: 'default',
      uid: 'u1',
      annotations: { 'platform.io/config.source': 'api' },
    },
    spec: { containers: [{ name: 'c' }] },
  };
  await sync.statusChanged(p, { phase: 'Running', conditions: [], containerStatuses: [] });
  assert.deepEqual(patched, []);
  await clock.waitForSleepers(1);
  clock.advance(10_000);
  await sync.idle();
  assert.deepEqual(patched, [], 'still down');
  up = true;
  await clock.waitForSleepers(1);
  clock.advance(10_000);
  await new Promise((r) => setImmediate(r));
  await sync.idle();
  assert.deepEqual(patched, ['api-pod']);
  assert.equal(logger.lines.filter((l) => l.level === 'warn').length, 1, 'one warning, then debug');
  ac.abort();
  await sync.stopped();
});

/** A pod client whose list+watch fails with `failures[i]` on attempt i, then lists `pods`. */
function flakyClient(
  failures: unknown[],
  pods: ApiPod[],
): { client: ResourceClient<ApiPod>; attempts: () => number } {
  let n = 0;
  const client = {
    async *watch(o: { signal?: AbortSignal }) {
      const i = n++;
      if (i < failures.length) throw failures[i];
      yield { type: 'RELIST', object: { items: pods } } as WatchEvent<ApiPod>;
      await new Promise<void>((resolve) =>
        o.signal?.addEventListener('abort', () => resolve(), { once: true }),
      );
    },
  } as unknown as ResourceClient<ApiPod>;
  return { client, attempts: () => n };
}

test('the API source retries a failed list forever with back-off (800 ms doubling to 30 s) and recovers', async () => {
  // Regression: one failed list used to end the source for good ("pods from the API server are
  // no longer updated"), leaving the node without API pods until a restart.
  const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6443'), {
    code: 'ECONNREFUSED',
  });
  const failures: unknown[] = [
    refused,
    new ApiError('etcd is sad', { status: 500, reason: 'InternalError' }),
    new ApiError('slow down', { status: 429, reason: 'TooManyRequests' }),
    new ApiError('too old', { status: 410, reason: 'Expired' }),
    ...Array.from({ length: 6 }, () => refused),
  ];
  const { client, attempts } = flakyClient(failures, [apiPod('a', 'ua')]);
  const clock = new ManualClock();
  const logger = recordingLogger();
  const snaps: PodSnapshot[] = [];
  const ac = new AbortController();
  const src = new ApiserverSource({
    pods: client,
    nodeName: 'n1',
    names: namesFor('platform', 'platform.io'),
    onSnapshot: (s) => snaps.push(s),
    logger,
    clock,
  });
  await src.start(ac.signal);
  for (let i = 0; i < failures.length; i++) {
    await clock.waitForSleepers(1);
    assert.equal(snaps.length, 0);
    clock.advance(clock.sleeps.at(-1) ?? 0);
  }
  while (snaps.length === 0) await new Promise((r) => setImmediate(r));
  assert.deepEqual(
    snaps[0]?.pods.map((p) => p.metadata.name),
    ['a'],
  );
  assert.equal(attempts(), failures.length + 1);
  assert.deepEqual(
    clock.sleeps,
    [800, 1600, 3200, 6400, 12_800, 25_600, 30_000, 30_000, 30_000, 30_000],
  );
  const warns = logger.lines.filter(
    (l) => l.msg === 'api source: list or watch of pods failed; retrying with back-off',
  );
  assert.equal(warns.length, failures.length);
  assert.equal(warns[0]?.fields.err, 'connect ECONNREFUSED 127.0.0.1:6443');
  assert.ok(
    logger.lines.some((l) => l.msg === 'api source: pods listed from the API server again'),
  );
  assert.equal(logger.lines.filter((l) => l.level === 'error').length, 0);
  ac.abort();
  await src.closed();
});

for (const [status, reason] of [
  [403, 'Forbidden'],
  [401, 'Unauthorized'],
  [400, 'BadRequest'],
  [404, 'NotFound'],
] as const) {
  test(`the API source gives up on a ${status} (${reason}) and says so in the log`, async () => {
    const { client, attempts } = flakyClient(
      [new ApiError(`pods is ${reason.toLowerCase()}`, { status, reason })],
      [apiPod('a', 'ua')],
    );
    const logger = recordingLogger();
    const src = new ApiserverSource({
      pods: client,
      nodeName: 'n1',
      names: namesFor('platform', 'platform.io'),
      onSnapshot: () => undefined,
      logger,
      clock: new ManualClock(),
    });
    await src.start(new AbortController().signal);
    await src.closed();
    assert.equal(attempts(), 1);
    const err = logger.lines.find((l) => l.level === 'error');
    assert.match(
      err?.msg ?? '',
      /giving up: pods from the API server are no longer updated until the agent restarts/,
    );
    assert.equal(err?.fields.status, status);
    assert.equal(err?.fields.reason, reason);
  });
}
