// A list answered with the same bytes as the last one is decoded once: each call still gets
// objects of its own (a caller changing its answer changes no other's), and other bytes are
// decoded anew.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeCri, encodeCri } from '../../../../../src/agent/runtime/cri/codec.js';
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

test('the same list bytes: equal answers, each its own objects; new bytes decode anew', () => {
  const bytes = encodeCri('ListContainersResponse', { containers: [container('one')] });
  const first = decodeCri('ListContainersResponse', bytes);
  const second = decodeCri('ListContainersResponse', Buffer.from(bytes));
  assert.deepEqual(second, first);
  assert.notEqual(second, first);
  assert.notEqual(second.containers?.[0], first.containers?.[0]);
  const f0 = first.containers?.[0];
  if (f0?.labels !== undefined) f0.labels['a'] = 'changed';
  assert.equal(decodeCri('ListContainersResponse', bytes).containers?.[0]?.labels?.['a'], '1');
  const other = encodeCri('ListContainersResponse', { containers: [container('two')] });
  assert.equal(decodeCri('ListContainersResponse', other).containers?.[0]?.id, 'two');
  assert.equal(decodeCri('ListContainersResponse', bytes).containers?.[0]?.id, 'one');
});
