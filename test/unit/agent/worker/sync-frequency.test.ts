// --sync-frequency: every running pod is synced again each period, and not in between.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { makeWorld, pod } from './harness.js';

test('--sync-frequency: each pod is synced again every period (60 s here), not in between', async () => {
  const w = makeWorld();
  const synced: string[] = [];
  const original = w.syncer.syncPod.bind(w.syncer);
  w.syncer.syncPod = (p) => {
    synced.push(p.metadata.uid);
    return original(p);
  };
  const ac = new AbortController();
  w.manager.handleUpdate({
    op: 'ADD',
    source: 'file',
    pods: [pod('u1', { containers: [{ name: 'app', command: ['x'] }] })],
  });
  await w.settle();
  w.manager.start(ac.signal);
  try {
    const first = synced.length;
    assert.ok(first >= 1 && w.runtime.running('app'));
    await w.advance(59_000);
    assert.equal(synced.length, first, 'no sync before the period');
    await w.advance(1000);
    assert.equal(synced.length, first + 1, 'synced at the period');
    await w.advance(60_000);
    assert.equal(synced.length, first + 2);
  } finally {
    ac.abort();
  }
});
