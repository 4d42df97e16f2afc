// CPU quota/period/shares and oom_score_adj against the reference's numbers
// (kuberuntime calculateLinuxResources, cm.MilliCPUToShares, qos.GetContainerOOMScoreAdjust).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  containerCpuResources,
  milliCpuToQuota,
  milliCpuToShares,
} from '../../../../../src/agent/runtime/settings/cpu.js';
import {
  containerOomScoreAdj,
  podQosClass,
} from '../../../../../src/agent/runtime/settings/qos.js';
import type { Container, Pod } from '../../../../../src/agent/pod/types.js';

const on = { cfsQuota: true, cfsQuotaPeriodUs: 100000 };

function c(resources: Container['resources']): Container {
  return { name: 'c', image: 'busybox:local', ...(resources !== undefined ? { resources } : {}) };
}
function pod(...containers: Container[]): Pod {
  return { metadata: { name: 'p', namespace: 'default', uid: 'u1' }, spec: { containers } };
}

test('CFS quota is limit x period / 1000 with the reference minimum of 1000us', () => {
  assert.equal(milliCpuToQuota(500, 100000), 50000);
  assert.equal(milliCpuToQuota(1000, 100000), 100000);
  assert.equal(milliCpuToQuota(2500, 50000), 125000);
  assert.equal(
    milliCpuToQuota(1, 100000),
    1000,
    'below the minimum quota period the reference sets 1000',
  );
  assert.equal(milliCpuToQuota(0, 100000), 0);
});

test('CPU shares: request x 1024 / 1000, between 2 and 262144; a missing request takes the limit', () => {
  assert.equal(milliCpuToShares(250), 256);
  assert.equal(milliCpuToShares(0), 2);
  assert.equal(milliCpuToShares(1), 2);
  assert.equal(milliCpuToShares(1_000_000), 262144);
  assert.deepEqual(containerCpuResources(c({ limits: { cpu: '1' } }), on), {
    CpuShares: 1024,
    CpuQuota: 100000,
    CpuPeriod: 100000,
  });
});

test('--cpu-cfs-quota-period sets the period; --cpu-cfs-quota=false sets no quota at all', () => {
  assert.deepEqual(
    containerCpuResources(c({ limits: { cpu: '500m' } }), {
      cfsQuota: true,
      cfsQuotaPeriodUs: 50000,
    }),
    { CpuShares: 512, CpuQuota: 25000, CpuPeriod: 50000 },
  );
  assert.deepEqual(
    containerCpuResources(c({ limits: { cpu: '500m' } }), {
      cfsQuota: false,
      cfsQuotaPeriodUs: 100000,
    }),
    { CpuShares: 512 },
  );
  // no limit: the reference still sets the period, with quota 0 (no limit)
  assert.deepEqual(containerCpuResources(c(undefined), on), {
    CpuShares: 2,
    CpuQuota: 0,
    CpuPeriod: 100000,
  });
});

test('QoS classes as the reference: BestEffort, Burstable, Guaranteed (requests default to limits)', () => {
  assert.equal(podQosClass(pod(c(undefined))), 'BestEffort');
  assert.equal(podQosClass(pod(c({ requests: { cpu: '100m' } }))), 'Burstable');
  assert.equal(podQosClass(pod(c({ limits: { cpu: '1', memory: '1Gi' } }))), 'Guaranteed');
  assert.equal(
    podQosClass(pod(c({ limits: { cpu: '1', memory: '1Gi' }, requests: { cpu: '500m' } }))),
    'Burstable',
  );
  assert.equal(
    podQosClass(pod(c({ limits: { cpu: '1', memory: '1Gi' } }), c(undefined))),
    'Burstable',
  );
});

test('oom_score_adj: Guaranteed -997, BestEffort 1000, Burstable 1000 - 1000 x request / capacity', () => {
  const gi = 1024 ** 3;
  const g = c({ limits: { cpu: '1', memory: '1Gi' } });
  assert.equal(containerOomScoreAdj(pod(g), g, 4 * gi), -997);
  const be = c(undefined);
  assert.equal(containerOomScoreAdj(pod(be), be, 4 * gi), 1000);
  const b = c({ requests: { memory: '1Gi' } });
  assert.equal(containerOomScoreAdj(pod(b), b, 4 * gi), 750);
  const b0 = c({ requests: { cpu: '100m' } });
  assert.equal(
    containerOomScoreAdj(pod(b0), b0, 4 * gi),
    999,
    'a Burstable container never gets BestEffort 1000',
  );
  const big = c({ requests: { memory: '8Gi' } });
  assert.equal(containerOomScoreAdj(pod(big), big, 4 * gi), 3, 'never below 1000 + (-997)');
  const crit: Pod = {
    ...pod(be),
    spec: { ...pod(be).spec, priorityClassName: 'system-node-critical', priority: 2000001000 },
  };
  assert.equal(containerOomScoreAdj(crit, be, 4 * gi), -997, 'node-critical pods as Guaranteed');
});
