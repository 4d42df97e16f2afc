// The ConfigMap/Secret manager per configMapAndSecretChangeDetectionStrategy, over a recording
// reader: Watch opens one watch per object registered pods refer to (fieldSelector
// metadata.name=<name>) and answers from it, with the reference's watch-based messages; Cache reads
// an object once per TTL (fresh after a pod registers); Get reads it at every call.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ObjectReader } from '../../../../src/agent/objects/reader.js';
import { WatchingObjectManager } from '../../../../src/agent/objects/watch-manager.js';
import {
  CachingObjectManager,
  GettingObjectManager,
} from '../../../../src/agent/objects/cache-manager.js';
import {
  ObjectNotFoundError,
  toPodObject,
  type ObjectKind,
  type RawObject,
} from '../../../../src/agent/objects/types.js';
import type { WatchEvent } from '../../../../src/agent/client/types.js';
import type { Pod } from '../../../../src/agent/pod/types.js';
import { silentLogger } from '../../../../src/common/log/types.js';
import { ManualClock } from '../../../helpers/manual-clock.js';
import { podObjectRefs } from '../../../../src/agent/objects/pod-references.js';

function pod(uid: string, cm: string): Pod {
  return {
    metadata: { name: uid, namespace: 'ns', uid },
    spec: {
      containers: [
        {
          name: 'c',
          env: [{ name: 'X', valueFrom: { secretKeyRef: { name: 's1', key: 'k' } } }],
        },
      ],
      volumes: [{ name: 'v', configMap: { name: cm } }],
    },
  };
}

/** A reader whose objects the test sets, recording gets and the watches opened and closed. */
function fakeReader(): ObjectReader & {
  objects: Map<string, RawObject>;
  gets: string[];
  watches: { selector: string; closed: boolean; push: (ev: WatchEvent<RawObject>) => void }[];
} {
  const objects = new Map<string, RawObject>();
  const gets: string[] = [];
  const watches: {
    selector: string;
    closed: boolean;
    push: (ev: WatchEvent<RawObject>) => void;
  }[] = [];
  return {
    objects,
    gets,
    watches,
    get(kind: ObjectKind, ns: string, name: string) {
      gets.push(`${kind}/${ns}/${name}`);
      const raw = objects.get(`${kind}/${name}`);
      return raw === undefined
        ? Promise.reject(
            new ObjectNotFoundError(
              kind,
              name,
              `${kind === 'ConfigMap' ? 'configmaps' : 'secrets'} "${name}" not found`,
            ),
          )
        : Promise.resolve(toPodObject(kind, raw, ns, name));
    },
    async *watch(kind: ObjectKind, _ns: string, name: string, signal: AbortSignal) {
      const queue: WatchEvent<RawObject>[] = [];
      let wake: (() => void) | undefined;
      const w = {
        selector: `metadata.name=${name}`,
        closed: false,
        push: (ev: WatchEvent<RawObject>) => {
          queue.push(ev);
          wake?.();
        },
      };
      watches.push(w);
      const raw = objects.get(`${kind}/${name}`);
      yield { type: 'RELIST', object: { items: raw === undefined ? [] : [raw] } };
      try {
        while (!signal.aborted) {
          const ev = queue.shift();
          if (ev !== undefined) yield ev;
          else
            await new Promise<void>((resolve) => {
              wake = resolve;
              signal.addEventListener('abort', () => resolve(), { once: true });
            });
        }
      } finally {
        w.closed = true;
      }
    },
  };
}

const cm = (value: string, immutable = false): RawObject => ({
  metadata: { name: 'cm1', namespace: 'ns', resourceVersion: value },
  data: { key: value },
  ...(immutable ? { immutable: true } : {}),
});

test('pod references: configMap/secret volumes, projected sources, env valueFrom and envFrom, image pull secrets', () => {
  const p = pod('u', 'cm1');
  p.spec['imagePullSecrets'] = [{ name: 'pull' }];
  p.spec.volumes?.push({ name: 'p', projected: { sources: [{ secret: { name: 's2' } }] } });
  assert.deepEqual(
    podObjectRefs(p)
      .map((r) => `${r.kind}/${r.name}`)
      .sort(),
    ['ConfigMap/cm1', 'Secret/pull', 'Secret/s1', 'Secret/s2'],
  );
});

test('configMapAndSecretChangeDetectionStrategy: Watch watches each registered object by metadata.name, Cache reads it once per TTL, Get reads it every time', async () => {
  const clock = new ManualClock();
  // Watch
  const r = fakeReader();
  r.objects.set('ConfigMap/cm1', cm('v1'));
  const watch = new WatchingObjectManager({ reader: r, clock, logger: silentLogger() });
  await assert.rejects(
    watch.get('ConfigMap', 'ns', 'cm1'),
    /^Error: object "ns"\/"cm1" not registered$/,
  );
  watch.registerPod(pod('a', 'cm1'));
  watch.registerPod(pod('b', 'cm1'));
  assert.deepEqual(r.watches.map((w) => w.selector).sort(), [
    'metadata.name=cm1',
    'metadata.name=s1',
  ]);
  assert.equal((await watch.get('ConfigMap', 'ns', 'cm1')).data.get('key')?.toString(), 'v1');
  r.watches[0]?.push({ type: 'MODIFIED', object: cm('v2') });
  await new Promise((res) => setImmediate(res));
  assert.equal((await watch.get('ConfigMap', 'ns', 'cm1')).data.get('key')?.toString(), 'v2');
  await assert.rejects(
    watch.get('Secret', 'ns', 's1'),
    (e: unknown) => e instanceof ObjectNotFoundError && e.message === 'secret "s1" not found',
  );
  assert.equal(r.gets.length, 0, 'Watch never gets');
  watch.unregisterPod(pod('a', 'cm1'));
  assert.equal(r.watches[0]?.closed, false, 'still wanted by pod b');
  watch.unregisterPod(pod('b', 'cm1'));
  await new Promise((res) => setImmediate(res));
  assert.ok(
    r.watches.every((w) => w.closed),
    'the last pod gone: the watches stop',
  );

  // Cache
  const rc = fakeReader();
  rc.objects.set('ConfigMap/cm1', cm('v1'));
  const cache = new CachingObjectManager({ reader: rc, clock });
  cache.registerPod(pod('a', 'cm1'));
  await cache.get('ConfigMap', 'ns', 'cm1');
  rc.objects.set('ConfigMap/cm1', cm('v2'));
  assert.equal((await cache.get('ConfigMap', 'ns', 'cm1')).data.get('key')?.toString(), 'v1');
  clock.advance(60_000);
  assert.equal((await cache.get('ConfigMap', 'ns', 'cm1')).data.get('key')?.toString(), 'v2');
  assert.equal(rc.gets.length, 2, 'one read per TTL');
  await assert.rejects(cache.get('Secret', 'ns', 's1'), { message: 'secrets "s1" not found' });

  // Get
  const rg = fakeReader();
  rg.objects.set('ConfigMap/cm1', cm('v1'));
  const get = new GettingObjectManager({ reader: rg });
  await get.get('ConfigMap', 'ns', 'cm1');
  await get.get('ConfigMap', 'ns', 'cm1');
  assert.equal(rg.gets.length, 2);
});

test('Watch: an immutable object stops its watch once read; a watch that has not listed within 1 s fails with the reference message', async () => {
  const clock = new ManualClock();
  const r = fakeReader();
  r.objects.set('ConfigMap/cm1', cm('v1', true));
  const m = new WatchingObjectManager({ reader: r, clock, logger: silentLogger() });
  m.registerPod(pod('a', 'cm1'));
  await m.get('ConfigMap', 'ns', 'cm1');
  await new Promise((res) => setImmediate(res));
  assert.equal(r.watches.find((w) => w.selector === 'metadata.name=cm1')?.closed, true);

  const never: ObjectReader = {
    get: () => Promise.reject(new Error('unused')),
    // eslint-disable-next-line require-yield -- a watch that never lists
    async *watch(_k, _n, _name, signal) {
      await new Promise((res) => signal.addEventListener('abort', res, { once: true }));
    },
  };
  const slow = new WatchingObjectManager({ reader: never, clock, logger: silentLogger() });
  slow.registerPod(pod('b', 'cm1'));
  const pending = slow.get('ConfigMap', 'ns', 'cm1');
  clock.advance(1000);
  await assert.rejects(
    pending,
    /^Error: failed to sync configmap cache: timed out waiting for the condition$/,
  );
  slow.stop();
});
