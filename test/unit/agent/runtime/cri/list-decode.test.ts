// CRI list answers are decoded item by item, each item once while the answers carry it, in
// whatever order they come; each decodeCri call still gets objects of its own (a caller changing
// its answer changes no other's), and what is not a plain list is decoded whole.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import protobuf from 'protobufjs';
import { decodeCri, encodeCri } from '../../../../../src/agent/runtime/cri/codec.js';
import { decodeListItems } from '../../../../../src/agent/runtime/cri/list-decode.js';
import { ContainerState } from '../../../../../src/agent/runtime/cri/types.generated.js';

const container = (id: string) => ({
  id,
  podSandboxId: 'sb',
  metadata: { name: 'c', attempt: 0 },
  image: { image: 'busybox' },
  imageRef: 'sha256:1',
  state: ContainerState.CONTAINER_RUNNING,
  createdAt: 1_700_000_000_123_456_000,
  labels: { a: '1' },
  annotations: { b: '2' },
});

test('decodeCri: equal answers for the same list, each its own objects, in the answer order', () => {
  const bytes = encodeCri('ListContainersResponse', {
    containers: [container('one'), container('two')],
  });
  const first = decodeCri('ListContainersResponse', bytes);
  const second = decodeCri('ListContainersResponse', Buffer.from(bytes));
  assert.deepEqual(second, first);
  assert.notEqual(second.containers?.[0], first.containers?.[0]);
  const f0 = first.containers?.[0];
  if (f0?.labels !== undefined) f0.labels['a'] = 'changed';
  assert.equal(decodeCri('ListContainersResponse', bytes).containers?.[0]?.labels?.['a'], '1');
  const swapped = encodeCri('ListContainersResponse', {
    containers: [container('two'), container('one')],
  });
  const ids = decodeCri('ListContainersResponse', swapped).containers?.map((c) => c.id);
  assert.deepEqual(ids, ['two', 'one']);
});

const root = protobuf.Root.fromJSON({
  nested: {
    Item: { fields: { name: { type: 'string', id: 1 } } },
    List: { fields: { items: { rule: 'repeated', type: 'Item', id: 1 } } },
    Mixed: {
      fields: {
        items: { rule: 'repeated', type: 'Item', id: 1 },
        next: { type: 'string', id: 2 },
      },
    },
  },
});
const List = root.lookupType('List');
const Mixed = root.lookupType('Mixed');
const listOf = (...names: string[]): Uint8Array =>
  List.encode(List.create({ items: names.map((name) => ({ name })) })).finish();
const items = (m: protobuf.Message | undefined): protobuf.Message[] =>
  (m as unknown as { items: protobuf.Message[] }).items;

test('an item is decoded once while the answers carry it, in any order; a gone one is dropped', () => {
  const first = items(decodeListItems('Test', List, listOf('a', 'b', 'c')));
  const second = items(decodeListItems('Test', List, listOf('c', 'a', 'b')));
  assert.deepEqual(
    second.map((i) => (i as unknown as { name: string }).name),
    ['c', 'a', 'b'],
  );
  assert.equal(second[1], first[0]);
  assert.equal(second[0], first[2]);
  // 'b' changed: decoded anew; 'a' left out, so it is dropped and decoded anew when it is back
  const third = items(decodeListItems('Test', List, listOf('c', 'b2')));
  assert.equal(third[0], first[2]);
  assert.equal((third[1] as unknown as { name: string }).name, 'b2');
  const fourth = items(decodeListItems('Test', List, listOf('a')));
  assert.notEqual(fourth[0], first[0]);
  assert.deepEqual(fourth[0]?.toJSON(), { name: 'a' });
  // each call's items are kept apart from another call's
  const other = items(decodeListItems('Other', List, listOf('a')));
  assert.notEqual(other[0], fourth[0]);
});

test('what is not a plain list is left to be decoded whole', () => {
  const mixed = Mixed.encode(Mixed.create({ items: [{ name: 'a' }], next: 't' })).finish();
  assert.equal(decodeListItems('Test', Mixed, mixed), undefined);
  assert.equal(decodeListItems('Test', List, Uint8Array.from([0x0a, 0x05, 0x0a])), undefined);
  assert.equal(decodeListItems('Test', root.lookupType('Item'), listOf('a')), undefined);
  assert.deepEqual(items(decodeListItems('Test', List, new Uint8Array(0))), []);
});

/** What `f` gave, or that it threw. */
function attempt<T>(f: () => T): { ok: true; value: T } | { ok: false } {
  try {
    return { ok: true, value: f() };
  } catch {
    return { ok: false };
  }
}

test('property: item by item gives what a whole decode gives, for any answers in any order', () => {
  fc.assert(
    fc.property(
      fc.array(fc.array(fc.string({ maxLength: 8 }), { maxLength: 6 }), {
        minLength: 1,
        maxLength: 6,
      }),
      (answers) => {
        for (const names of answers) {
          const bytes = listOf(...names);
          const got = decodeListItems('Property', List, bytes);
          assert.deepEqual(got?.toJSON(), List.decode(bytes).toJSON());
        }
      },
    ),
  );
});

test('property: for any bytes, item by item decodes what a whole decode does, throws as it does, or leaves it to it', () => {
  fc.assert(
    fc.property(fc.uint8Array({ maxLength: 64 }), (bytes) => {
      const whole = attempt(() => List.decode(bytes).toJSON());
      const items = attempt(() => decodeListItems('Bytes', List, bytes));
      if (!items.ok) assert.equal(whole.ok, false, 'item by item threw, the whole decode did not');
      else if (items.value !== undefined) {
        assert.ok(whole.ok, 'item by item decoded what the whole decode refused');
        assert.deepEqual(items.value.toJSON(), whole.value);
      }
    }),
  );
});
