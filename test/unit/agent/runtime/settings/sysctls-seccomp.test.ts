// Sysctl admission (the reference's SysctlForbidden answer) and the seccomp default.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  admitSysctls,
  safeSysctls,
  SysctlAllowlist,
} from '../../../../../src/agent/runtime/settings/sysctls.js';
import {
  dockerSeccompOpts,
  seccompProfileOf,
} from '../../../../../src/agent/runtime/settings/seccomp.js';
import type { Pod } from '../../../../../src/agent/pod/types.js';

function pod(sysctls: { name: string; value: string }[], spec: Record<string, unknown> = {}): Pod {
  return {
    metadata: { name: 'p', namespace: 'default', uid: 'u1' },
    spec: { containers: [{ name: 'c' }], securityContext: { sysctls }, ...spec },
  };
}
const safe = new SysctlAllowlist(safeSysctls('6.1.0'));

test('a safe sysctl is admitted; any other is refused with SysctlForbidden and the reference message', () => {
  assert.deepEqual(
    admitSysctls(pod([{ name: 'net.ipv4.ip_local_port_range', value: '1024 65000' }]), safe),
    { admit: true },
  );
  assert.deepEqual(admitSysctls(pod([{ name: 'kernel.msgmax', value: '65536' }]), safe), {
    admit: false,
    reason: 'SysctlForbidden',
    message: 'forbidden sysctl: "kernel.msgmax" not allowlisted',
  });
});

test('--allowed-unsafe-sysctls patterns admit more; net sysctls are refused on the host network', () => {
  const w = new SysctlAllowlist([...safeSysctls('6.1.0'), 'kernel.msg*', 'net.core.somaxconn']);
  assert.deepEqual(
    admitSysctls(
      pod([
        { name: 'kernel.msgmax', value: '1' },
        { name: 'net.core.somaxconn', value: '1024' },
      ]),
      w,
    ),
    { admit: true },
  );
  assert.deepEqual(
    admitSysctls(pod([{ name: 'net.ipv4.tcp_syncookies', value: '1' }], { hostNetwork: true }), w),
    {
      admit: false,
      reason: 'SysctlForbidden',
      message: 'forbidden sysctl: "net.ipv4.tcp_syncookies" not allowed with host net enabled',
    },
  );
  assert.deepEqual(
    admitSysctls(pod([{ name: 'kernel.shm_rmid_forced', value: '1' }], { hostIPC: true }), w)
      .message,
    'forbidden sysctl: "kernel.shm_rmid_forced" not allowed with host ipc enabled',
  );
});

test('slashes as separators are normalised; a non-namespaced unsafe sysctl is a configuration error', () => {
  assert.deepEqual(
    admitSysctls(pod([{ name: 'net/ipv4/ip_local_port_range', value: '1 2' }]), safe),
    { admit: true },
  );
  assert.throws(
    () => new SysctlAllowlist(['vm.swappiness']),
    /the sysctls "vm.swappiness" are not known to be namespaced/,
  );
});

test('the safe set follows the kernel version, as the reference', () => {
  assert.equal(safeSysctls('4.4.0').includes('net.ipv4.tcp_keepalive_time'), false);
  assert.equal(safeSysctls('4.15.0').includes('net.ipv4.tcp_rmem'), true);
  assert.equal(safeSysctls('3.10.0').includes('kernel.shm_rmid_forced'), true);
});

const ROOT = '/var/lib/nodeagent/seccomp';

test('seccomp: Unconfined unless --seccomp-default or the pod asks for RuntimeDefault', () => {
  const p: Pod = {
    metadata: { name: 'p', namespace: 'd', uid: 'u' },
    spec: { containers: [{ name: 'c' }] },
  };
  const c = p.spec.containers[0]!;
  assert.deepEqual(dockerSeccompOpts(seccompProfileOf(p, c, false, ROOT)), ['seccomp=unconfined']);
  assert.deepEqual(
    dockerSeccompOpts(seccompProfileOf(p, c, true, ROOT)),
    [],
    "Docker's default profile",
  );
  const rd: Pod = {
    ...p,
    spec: { ...p.spec, securityContext: { seccompProfile: { type: 'RuntimeDefault' } } },
  };
  assert.deepEqual(dockerSeccompOpts(seccompProfileOf(rd, c, false, ROOT)), []);
  const un = { ...c, securityContext: { seccompProfile: { type: 'Unconfined' as const } } };
  assert.deepEqual(
    dockerSeccompOpts(seccompProfileOf(rd, un, true, ROOT)),
    ['seccomp=unconfined'],
    'the container wins over the pod',
  );
});
