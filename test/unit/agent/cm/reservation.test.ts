// --reserved-cpus in node allocatable: it supersedes the CPU of --system-reserved and
// --plat-reserved (the reference's server.go), so allocatable cpu is capacity less its count.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { reservationsOf } from '../../../../src/agent/cm/reservation.js';
import { nodeResources } from '../../../../src/agent/node/capacity.js';

test('--reserved-cpus sets system-reserved cpu to its count and drops plat-reserved cpu; allocatable follows', () => {
  const c = {
    reservedSystemCPUs: '0,2-3',
    systemReserved: { cpu: '500m', memory: '1Gi' },
    platReserved: { cpu: '1', memory: '100Mi' },
  };
  const r = reservationsOf(c);
  assert.deepEqual(r, {
    systemReserved: { cpu: '3', memory: '1Gi' },
    platReserved: { memory: '100Mi' },
  });
  const res = nodeResources(
    { cpuCores: 8, memoryBytes: 8 * 1024 ** 3, ephemeralStorageBytes: 0 },
    { maxPods: 110, ...r, hardThresholds: [] },
  );
  assert.equal(res.allocatable['cpu'], '5');
  assert.deepEqual(reservationsOf({ ...c, reservedSystemCPUs: '' }), {
    systemReserved: c.systemReserved,
    platReserved: c.platReserved,
  });
});
