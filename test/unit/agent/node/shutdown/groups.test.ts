// The shutdown grace period groups, against the reference's tables (pkg/kubelet/nodeshutdown,
// Kubernetes 1.32: Test_migrateConfig, Test_groupByPriority) and its logind drop-in text.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  groupByPriority,
  migrateConfig,
  periodRequestedMs,
  shutdownGroups,
} from '../../../../../src/agent/node/shutdown/groups.js';
import { dropinContent, dropinPath } from '../../../../../src/agent/node/shutdown/logind-dropin.js';

test('migrateConfig: shutdownGracePeriod and shutdownGracePeriodCriticalPods become priority 0 and 2000000000 groups, as the reference', () => {
  assert.deepEqual(migrateConfig(300_000, 120_000), [
    { priority: 0, shutdownGracePeriodSeconds: 180 },
    { priority: 2_000_000_000, shutdownGracePeriodSeconds: 120 },
  ]);
  assert.deepEqual(migrateConfig(100_000, 0), [
    { priority: 0, shutdownGracePeriodSeconds: 100 },
    { priority: 2_000_000_000, shutdownGracePeriodSeconds: 0 },
  ]);
  assert.deepEqual(migrateConfig(0, 0), []);
  assert.deepEqual(
    migrateConfig(1000, 2000),
    [],
    'critical above the total: off, as the reference',
  );
  assert.equal(periodRequestedMs(migrateConfig(300_000, 120_000)), 300_000);
});

test('groupByPriority: above the highest → highest, below the lowest → lowest, between two → the lower one', () => {
  const groups = shutdownGroups(
    [
      { priority: 100, shutdownGracePeriodSeconds: 2 },
      { priority: 1, shutdownGracePeriodSeconds: 1 },
      { priority: 1000, shutdownGracePeriodSeconds: 3 },
    ],
    0,
    0,
  );
  assert.deepEqual(
    groups.map((g) => g.priority),
    [1, 100, 1000],
    'sorted low to high',
  );
  const pods = [-1, 0, 1, 99, 100, 101, 999, 1000, 1001];
  const out = groupByPriority(groups, pods, (p) => p);
  assert.deepEqual(
    out.map((g) => [g.priority, g.pods]),
    [
      [1, [-1, 0, 1, 99]],
      [100, [100, 101, 999]],
      [1000, [1000, 1001]],
    ],
  );
});

test('the logind drop-in: the reference text in 99-<agent>.conf, InhibitDelayMaxSec in whole seconds', () => {
  const d = { dir: '/etc/systemd/logind.conf.d', agent: 'kubelet', title: 'Kubelet' };
  assert.equal(dropinPath(d), '/etc/systemd/logind.conf.d/99-kubelet.conf');
  assert.equal(
    dropinContent(d, 30_000),
    '# Kubelet logind override\n[Login]\nInhibitDelayMaxSec=30\n',
  );
  assert.equal(
    dropinPath({ ...d, agent: 'nodeagent' }),
    '/etc/systemd/logind.conf.d/99-nodeagent.conf',
  );
});
