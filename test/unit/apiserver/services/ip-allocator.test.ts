// The cluster IP allocator against the reference's (pkg/registry/core/service/ipallocator): the
// first address kept for the kubernetes service, dynamic addresses from the upper band first, the
// reference's errors, and the flag's checks.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ClusterIpAllocator, parseCidr } from '../../../../src/apiserver/services/ip-allocator.js';
import { clusterIpAllocatorOf } from '../../../../src/apiserver/services/flags.js';

function allocator(cidr: string): ClusterIpAllocator {
  const r = parseCidr(cidr);
  assert.ok(typeof r !== 'string');
  return new ClusterIpAllocator(r);
}

test('10.0.0.0/24: the first IP is 10.0.0.1; dynamic addresses come from .17-.254 before the lower band', () => {
  const a = allocator('10.0.0.0/24');
  assert.equal(a.firstIp(), '10.0.0.1');
  for (let i = 0; i < 238; i++) {
    const got = a.allocate(`k${i}`, undefined);
    assert.ok('ip' in got);
    const last = Number(got.ip.split('.')[3]);
    assert.ok(last >= 17 && last <= 254, got.ip);
  }
  const lower = a.allocate('lower', undefined);
  assert.ok('ip' in lower && Number(lower.ip.split('.')[3]) <= 16);
});

test("the reference's allocation errors", () => {
  const a = allocator('10.0.0.0/30');
  assert.deepEqual(a.allocate('x', '10.0.0.1'), { ip: '10.0.0.1' });
  assert.deepEqual(a.allocate('y', '10.0.0.1'), {
    error: 'provided IP is already allocated',
    internal: false,
  });
  assert.deepEqual(a.allocate('y', '10.0.0.3'), {
    error:
      'the provided IP (10.0.0.3) is not in the valid range. The range of valid IPs is 10.0.0.0/30',
    internal: false,
  });
  assert.deepEqual(a.allocate('y', undefined), { ip: '10.0.0.2' });
  assert.deepEqual(a.allocate('z', undefined), { error: 'range is full', internal: true });
  a.release('10.0.0.2', 'other-owner');
  assert.deepEqual(a.allocate('z', undefined), { error: 'range is full', internal: true });
  a.release('10.0.0.2', 'y');
  assert.deepEqual(a.allocate('z', undefined), { ip: '10.0.0.2' });
});

test("--service-cluster-ip-range: the reference's default and its checks", () => {
  assert.equal(clusterIpAllocatorOf(undefined).cidr, '10.0.0.0/24');
  assert.equal(clusterIpAllocatorOf('10.96.0.7/12').cidr, '10.96.0.0/12');
  assert.throws(
    () => clusterIpAllocatorOf('10.0.0.0/8'),
    /specified --service-cluster-ip-range is too large; for 32-bit addresses, the mask must be >= 12/,
  );
  assert.throws(
    () => clusterIpAllocatorOf('banana'),
    /invalid value "banana" for flag --service-cluster-ip-range: invalid CIDR address: banana/,
  );
  assert.throws(() => clusterIpAllocatorOf('10.0.0.0/24,fd00::/108'), /only one IPv4 range/);
});
