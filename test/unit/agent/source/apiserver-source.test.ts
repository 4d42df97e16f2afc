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
import { recordingLogger } from '../../../helpers/recording-logger.js';

const apiPod = (name: string, uid: string, extra: Record<string, unknown> = {}): ApiPod => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: 'default', uid, ...extra },
  spec: { nodeName: 'n1', containers: [{ name: 'c', image: 'i' }] },
});

test('the API source: list then watch events become full snapshots; mirror pods and broken pods are skipped', async () => {
  const events: WatchEvent<ApiPod>[] = [
    { type: 'RELIST', object: { items: [apiPod('a', 'ua'), apiPod('m', 'um', { annotations: { 'platform.io/config.mirror': 'h' } })] } },
    { type: 'ADDED', object: apiPod('b', 'ub') },
    { type: 'MODIFIED', object: { ...apiPod('b', 'ub'), spec: { containers: [] } } },
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
  const src = new ApiserverSource({ pods: client, nodeName: 'n1', names: namesFor('platform', 'platform.io'), onSnapshot: (s) => snaps.push(s), logger: recordingLogger(), clock: new ManualClock() });
  await src.start(new AbortController().signal);
  await src.closed();
  assert.equal(selector, 'spec.nodeName=n1');
  assert.deepEqual(snaps.map((s) => s.pods.map((p) => p.metadata.name)), [['a'], ['a', 'b'], ['a'], []]);
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
  const sync = new ApiStatusSync({ pods: client, names: namesFor('platform', 'platform.io'), logger: recordingLogger(), clock: new ManualClock() });
  const staticPod = (hash: string): Pod => ({
    metadata: { name: 'web-n1', namespace: 'default', uid: hash, annotations: { 'platform.io/config.hash': hash, 'platform.io/config.source': 'file' } },
    spec: { containers: [{ name: 'c', command: ['x'] }] },
  });
  const status: PodStatus = { phase: 'Running', conditions: [], containerStatuses: [] };
  await sync.statusChanged(staticPod('h1'), status);
  assert.equal(store.get('web-n1')?.metadata?.annotations?.['platform.io/config.mirror'], 'h1');
  assert.equal((store.get('web-n1') as { spec: { containers: { image: string }[] } }).spec.containers[0]?.image, 'process');
  await sync.statusChanged(staticPod('h1'), status);
  assert.deepEqual(calls, ['create web-n1', 'status web-n1'], 'an unchanged status is not sent again');
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
      if (!up) throw new ApiError('connection refused', { status: 503, reason: 'ServiceUnavailable' });
      patched.push(name);
      return {};
    },
  } as unknown as ResourceClient<ApiPod>;
  const logger = recordingLogger();
  const sync = new ApiStatusSync({ pods: client, names: namesFor('platform', 'platform.io'), logger, clock, retryMs: 10_000 });
  const ac = new AbortController();
  sync.start(ac.signal);
  const p: Pod = { metadata: { name: 'api-pod', namespace: 'default', uid: 'u1', annotations: { 'platform.io/config.source': 'api' } }, spec: { containers: [{ name: 'c' }] } };
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
