// The namespaces a namespaced create checks: remembered once read, forgotten as soon as the
// store's deletion of the namespace is durable, whether deleted or force-deleted; other keys'
// deletions change nothing.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Store } from '../../../../src/apiserver/storage/store.js';
import { identityTransformers } from '../../../../src/apiserver/storage/identity.js';
import { LiveNamespaces } from '../../../../src/apiserver/registry/live-namespaces.js';
import { silentLogger } from '../../../../src/common/log/types.js';
import { systemClock } from '../../../../src/common/util/clock.js';

function open(): Store {
  return new Store({
    dataDir: undefined,
    transformers: identityTransformers(),
    logger: silentLogger(),
    clock: systemClock,
    compactionIntervalMs: 60_000,
  });
}

test('a namespace exists once written and stops existing once deleted or force-deleted', async () => {
  const store = open();
  try {
    let reads = 0;
    const counted: Pick<Store, 'getRaw' | 'onKeyGone'> = {
      getRaw: (key) => {
        reads++;
        return store.getRaw(key);
      },
      onKeyGone: (l) => store.onKeyGone(l),
    };
    const live = new LiveNamespaces(counted);
    assert.equal(live.exists('a'), false);
    const a = await store.write(
      '/core/namespaces/a',
      'ADDED',
      { metadata: { name: 'a' } },
      0,
      undefined,
    );
    await store.write('/core/namespaces/b', 'ADDED', { metadata: { name: 'b' } }, 0, undefined);
    assert.equal(live.exists('a'), true);
    const before = reads;
    assert.equal(live.exists('a'), true);
    assert.equal(reads, before, 'the second answer is remembered');
    const pod = await store.write(
      '/core/pods/a/p',
      'ADDED',
      { metadata: { name: 'p' } },
      0,
      undefined,
    );
    await store.write('/core/pods/a/p', 'DELETED', pod.object, pod.rv, pod.object);
    assert.equal(live.exists('a'), true);
    assert.equal(reads, before, "another key's deletion forgets nothing");
    await store.write('/core/namespaces/a', 'DELETED', a.object, a.rv, a.object);
    assert.equal(live.exists('a'), false);
    assert.equal(live.exists('b'), true);
    store.forceDelete('/core/namespaces/b');
    assert.equal(live.exists('b'), false);
  } finally {
    store.close();
  }
});
