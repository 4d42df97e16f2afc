import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PodConfig, type PodUpdate } from '../../../../src/agent/source/merger.js';
import { silentLogger } from '../../../../src/common/log/types.js';
import type { Pod } from '../../../../src/agent/pod/types.js';

const pod = (uid: string, image = 'i', extra: Partial<Pod['metadata']> = {}): Pod => ({
  metadata: { name: `p-${uid}`, namespace: 'default', uid, ...extra },
  spec: { containers: [{ name: 'c', image }] },
});

/** A pod config over `sources` that keeps every operation it emits. */
function recordingConfig(...sources: string[]): { cfg: PodConfig; ops: PodUpdate[] } {
  const ops: PodUpdate[] = [];
  const cfg = new PodConfig({ sources, onUpdate: (u) => ops.push(u), logger: silentLogger() });
  return { cfg, ops };
}

test('snapshots become ADD, UPDATE, REMOVE, DELETE and RECONCILE; seenAllSources', () => {
  const { cfg, ops } = recordingConfig('file', 'http');
  const summary = (): string[] =>
    ops.splice(0).map((u) => `${u.op}:${u.pods.map((p) => p.metadata.uid).join(',')}`);

  cfg.apply({ source: 'file', pods: [pod('a'), pod('b')] });
  assert.deepEqual(summary(), ['ADD:a,b']);
  assert.equal(cfg.seenAllSources(), false);
  cfg.apply({ source: 'http', pods: [] });
  assert.equal(cfg.seenAllSources(), true);
  assert.deepEqual(summary(), []);

  cfg.apply({ source: 'file', pods: [pod('a'), pod('b')] });
  assert.deepEqual(summary(), [], 'an unchanged snapshot gives nothing');

  cfg.apply({ source: 'file', pods: [pod('a', 'j'), pod('c')] });
  assert.deepEqual(summary(), ['REMOVE:b', 'ADD:c', 'UPDATE:a']);

  cfg.apply({
    source: 'file',
    pods: [{ ...pod('a', 'j'), status: { phase: 'Running' } }, pod('c')],
  });
  assert.deepEqual(summary(), ['RECONCILE:a']);

  cfg.apply({
    source: 'file',
    pods: [
      { ...pod('a', 'j'), status: { phase: 'Running' } },
      pod('c', 'i', { deletionTimestamp: '2026-01-01T00:00:00Z' }),
    ],
  });
  assert.deepEqual(summary(), ['DELETE:c']);

  cfg.apply({ source: 'file', pods: [pod('d'), pod('d')] });
  assert.deepEqual(
    summary(),
    ['REMOVE:a,c', 'ADD:d'],
    'a duplicate UID in one snapshot is dropped',
  );
  assert.deepEqual(
    cfg.pods().map((p) => p.metadata.uid),
    ['d'],
  );
});

test('as the reference podsDifferSemantically: spec, labels, annotations and deletion make an UPDATE; the rest of the metadata (the managedFields of a status write) with the status a RECONCILE', () => {
  const { cfg, ops } = recordingConfig('api');
  const summary = (): string[] => ops.splice(0).map((u) => u.op);
  cfg.apply({ source: 'api', pods: [pod('a', 'i', { resourceVersion: '1' })] });
  assert.deepEqual(summary(), ['ADD']);
  // the agent's own status write coming back: a new resourceVersion, managedFields and status
  const written: Pod = {
    ...pod('a', 'i', {
      resourceVersion: '2',
      managedFields: [{ manager: 'nodeagent', operation: 'Update', subresource: 'status' }],
    }),
    status: { phase: 'Running' },
  };
  cfg.apply({ source: 'api', pods: [written] });
  assert.deepEqual(summary(), ['RECONCILE']);
  assert.equal(cfg.pods()[0]?.metadata.resourceVersion, '2', 'the newest pod is kept');
  for (const extra of [
    { labels: { app: 'x' } },
    { annotations: { note: 'y' } },
    { deletionGracePeriodSeconds: 5 },
  ]) {
    cfg.apply({
      source: 'api',
      pods: [{ ...written, metadata: { ...written.metadata, ...extra } }],
    });
    assert.deepEqual(summary(), ['UPDATE'], JSON.stringify(extra));
    cfg.apply({ source: 'api', pods: [written] });
    assert.deepEqual(summary(), ['UPDATE']);
  }
});

test('a pod handed again as the same object is not read again: one spec read per new object', () => {
  const { cfg, ops } = recordingConfig('api');
  let reads = 0;
  const counted = (uid: string): Pod => {
    const base = pod(uid);
    return {
      metadata: base.metadata,
      get spec() {
        reads++;
        return base.spec;
      },
    };
  };
  const a = counted('a');
  const b = counted('b');
  cfg.apply({ source: 'api', pods: [a, b] });
  assert.equal(reads, 2, 'each new pod is keyed once');
  for (let i = 0; i < 50; i++) cfg.apply({ source: 'api', pods: [a, b] });
  assert.equal(reads, 2, 'fifty snapshots of the same objects read no spec');
  cfg.apply({ source: 'api', pods: [a, { ...pod('b', 'j') }] });
  assert.deepEqual(
    ops.map((u) => `${u.op}:${u.pods.map((p) => p.metadata.uid).join(',')}`),
    ['ADD:a,b', 'UPDATE:b'],
    'a new object for b is still compared with the last one',
  );
});
