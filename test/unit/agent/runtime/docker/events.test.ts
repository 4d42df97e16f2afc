import { test } from 'node:test';
import assert from 'node:assert/strict';
import { containerEventOf } from '../../../../../src/agent/runtime/docker/events.js';
import { LABELS } from '../../../../../src/agent/runtime/types.js';

test('docker events: die and start lines of our pods become events; partial, foreign and mistyped lines none', () => {
  const line = (status: string, attrs: Record<string, unknown>): string =>
    JSON.stringify({ status, id: 'c1', Actor: { Attributes: attrs } });
  assert.deepEqual(containerEventOf(line('die', { [LABELS.podUid]: 'u1' })), {
    podUid: 'u1',
    containerId: 'c1',
    type: 'exited',
  });
  assert.deepEqual(containerEventOf(line('start', { [LABELS.podUid]: 'u1', name: 'x' })), {
    podUid: 'u1',
    containerId: 'c1',
    type: 'started',
  });
  for (const bad of [
    '{"status":"die"',
    line('die', { name: 'x' }),
    line('die', { [LABELS.podUid]: 7 }),
    JSON.stringify({ status: 'die', Actor: { Attributes: { [LABELS.podUid]: 'u1' } } }),
    'null',
    '[]',
  ]) {
    assert.equal(containerEventOf(bad), undefined, bad);
  }
});
