// Parsed selectors by text (src/apiserver/selectors/parsed-cache.ts): one parse per text, shared
// and immutable; a selector that does not parse throws its error every time, with the
// reference's message.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  cachedFieldSelector,
  cachedLabelSelector,
  cachedShardSelector,
  SelectorError,
} from '../../../../src/apiserver/selectors/index.js';

test('the same text gives the same frozen selector, matching as a fresh parse does', () => {
  const a = cachedLabelSelector('app=web,tier in (fe,be)');
  assert.equal(cachedLabelSelector('app=web,tier in (fe,be)'), a);
  assert.ok(Object.isFrozen(a));
  assert.equal(a.matches({ app: 'web', tier: 'fe' }), true);
  assert.equal(a.matches({ app: 'web', tier: 'db' }), false);
  const f = cachedFieldSelector('spec.nodeName=n1');
  assert.equal(cachedFieldSelector('spec.nodeName=n1'), f);
  assert.notEqual(cachedFieldSelector('spec.nodeName=n2'), f);
  assert.deepEqual(f.requirements, [{ field: 'spec.nodeName', op: '=', value: 'n1' }]);
  const s = cachedShardSelector(
    "shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')",
  );
  assert.equal(
    cachedShardSelector(
      "shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')",
    ),
    s,
  );
});

test('a selector that does not parse is not kept: each call throws the reference message', () => {
  for (let i = 0; i < 2; i++) {
    assert.throws(
      () => cachedFieldSelector('a'),
      (e: unknown) =>
        e instanceof SelectorError && e.message === "invalid selector: 'a'; can't understand 'a'",
    );
  }
});
