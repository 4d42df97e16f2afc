// Indexed watch triggers: a pod watch pinned to spec.nodeName=<node> (every agent's) and a watch
// pinned to metadata.name=<name> hear only the changes of objects with that value before or after
// the change, in commit order, and the store loses its listener once the last such watch ends.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Store, type Change } from '../../../../src/apiserver/storage/store.js';
import { identityTransformers } from '../../../../src/apiserver/storage/identity.js';
import { silentLogger } from '../../../../src/common/log/types.js';
import { systemClock } from '../../../../src/common/util/clock.js';
import { podDef } from '../../../../src/apiserver/registry/resources/pod.js';
import { parseFieldSelector } from '../../../../src/apiserver/selectors/field.js';
import { subscribeTriggered, triggerOf } from '../../../../src/apiserver/watch/triggers.js';

function open(): Store {
  return new Store({
    transformers: identityTransformers(),
    logger: silentLogger(),
    clock: systemClock,
    compactionIntervalMs: 60_000,
  });
}

const pod = (name: string, node: string): Record<string, unknown> => ({
  metadata: { name, namespace: 'ns' },
  spec: { nodeName: node },
});

test('a field selector pinning spec.nodeName (pods) or metadata.name is a trigger; others are not', () => {
  assert.deepEqual(triggerOf(podDef, parseFieldSelector('spec.nodeName=n1')), {
    field: 'spec.nodeName',
    value: 'n1',
  });
  assert.deepEqual(triggerOf(podDef, parseFieldSelector('metadata.name=p,status.phase=Running')), {
    field: 'metadata.name',
    value: 'p',
  });
  assert.equal(triggerOf(podDef, parseFieldSelector('spec.nodeName!=n1')), undefined);
  assert.equal(triggerOf(podDef, parseFieldSelector('status.phase=Running')), undefined);
  assert.equal(triggerOf(podDef, undefined), undefined);
});

test('each node watch hears only its own pods, a pod that moves off a node reaches both, in order', async () => {
  const store = open();
  const heard = new Map<string, string[]>();
  const stops = ['n1', 'n2', 'n3'].map((node) =>
    subscribeTriggered(store, podDef, '/core/pods/', { field: 'spec.nodeName', value: node }, (c) =>
      heard.set(node, [...(heard.get(node) ?? []), `${c.type} ${c.rv}`]),
    ),
  );
  assert.equal(store.listenerCount(), 1, 'one store listener for every triggered watch');
  const a = await store.write('/core/pods/ns/a', 'ADDED', pod('a', 'n1'), 0, undefined);
  await store.write('/core/pods/ns/b', 'ADDED', pod('b', 'n2'), 0, undefined);
  const moved = await store.write('/core/pods/ns/a', 'MODIFIED', pod('a', 'n3'), a.rv, a.object);
  await store.write('/core/leases/ns/n1', 'ADDED', pod('n1', 'n1'), 0, undefined);
  assert.deepEqual(Object.fromEntries(heard), {
    n1: ['ADDED 1', `MODIFIED ${moved.rv}`],
    n2: ['ADDED 2'],
    n3: [`MODIFIED ${moved.rv}`],
  });
  for (const stop of stops) stop();
  assert.equal(store.listenerCount(), 0, 'the last watch gone, the store has no listener left');
  store.close();
});

test('a listener that throws does not keep the change from the others', async () => {
  const store = open();
  const heard: Change[] = [];
  const trigger = { field: 'metadata.name', value: 'p' };
  subscribeTriggered(store, podDef, '/core/pods/', trigger, () => {
    throw new Error('boom');
  });
  subscribeTriggered(store, podDef, '/core/pods/', trigger, (c) => heard.push(c));
  await store.write('/core/pods/ns/p', 'ADDED', pod('p', 'n1'), 0, undefined);
  assert.equal(heard.length, 1);
  store.close();
});
