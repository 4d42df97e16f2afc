// The security context as the reference's kubelet 1.32 applies it (pkg/securitycontext,
// kuberuntime/security_context*.go, helpers.go; dockershim's Docker fields), per runtime.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Container, Pod } from '../../../../../src/agent/pod/types.js';
import { defaultContainerSettings } from '../../../../../src/agent/runtime/settings/container-settings.js';
import { containerCreateOptions } from '../../../../../src/agent/runtime/docker/convert.js';
import { ContainerConfigError } from '../../../../../src/agent/runtime/types.js';
import { effectiveSecurity } from '../../../../../src/agent/runtime/security/effective.js';
import {
  dockerSecurity,
  dockerUser,
  prepareDockerSecurity,
} from '../../../../../src/agent/runtime/security/docker-security.js';
import {
  parseImageUser,
  runAsNonRootViolation,
} from '../../../../../src/agent/runtime/security/run-as-non-root.js';
import { criContainerSecurity } from '../../../../../src/agent/runtime/security/cri-security.js';
import { admitAppArmor } from '../../../../../src/agent/runtime/security/apparmor.js';
import { parseCpuList } from '../../../../../src/agent/runtime/security/thermal-throttle.js';

const UID = '6c1f0a8e-0000-4000-8000-000000000001';

function pod(spec: Partial<Pod['spec']>, c: Partial<Container> = {}): Pod {
  return {
    metadata: { name: 'sec', namespace: 'default', uid: UID },
    spec: { containers: [{ name: 'c', image: 'busybox:local', ...c }], ...spec },
  };
}
const first = (p: Pod): Container => p.spec.containers[0]!;

/** The reference's defaultMaskedPaths (no thermal_throttle directories) and defaultReadonlyPaths. */
const MASKED = [
  '/proc/asound',
  '/proc/acpi',
  '/proc/interrupts',
  '/proc/kcore',
  '/proc/keys',
  '/proc/latency_stats',
  '/proc/timer_list',
  '/proc/timer_stats',
  '/proc/sched_debug',
  '/proc/scsi',
  '/sys/firmware',
  '/sys/devices/virtual/powercap',
];
const READONLY = ['/proc/bus', '/proc/fs', '/proc/irq', '/proc/sys', '/proc/sysrq-trigger'];

test('effective context: the container overrides the pod field by field; only runAsUser, runAsGroup, runAsNonRoot and seLinuxOptions come from the pod', () => {
  const p = pod(
    {
      securityContext: {
        runAsUser: 1000,
        runAsGroup: 3000,
        runAsNonRoot: true,
        seLinuxOptions: { type: 'pod_t', level: 's0:c1' },
      },
    },
    { securityContext: { runAsUser: 2000, seLinuxOptions: { user: 'u' } } },
  );
  const e = effectiveSecurity(p, first(p));
  assert.equal(e.runAsUser, 2000);
  assert.equal(e.runAsGroup, 3000);
  assert.equal(e.runAsNonRoot, true);
  assert.deepEqual(
    e.seLinuxOptions,
    { user: 'u' },
    "the container's options replace the pod's whole",
  );
});

test('Docker: every field in the create body as dockershim wrote it', () => {
  const p = pod(
    {
      securityContext: {
        runAsUser: 1000,
        runAsGroup: 3000,
        fsGroup: 2000,
        supplementalGroups: [4000, 5000],
      },
    },
    {
      securityContext: {
        capabilities: { add: ['NET_ADMIN', 'cap_sys_time'], drop: ['all'] },
        readOnlyRootFilesystem: true,
        allowPrivilegeEscalation: false,
        seccompProfile: { type: 'RuntimeDefault' },
        seLinuxOptions: { type: 'spc_t', level: 's0:c1,c2' },
        appArmorProfile: { type: 'Localhost', localhostProfile: 'k8s-deny-write' },
      },
    },
  );
  const body = containerCreateOptions({
    pod: p,
    container: first(p),
    kind: 'app',
    attempt: 0,
    specHash: 'h',
    sandboxId: 'sb',
    volumePaths: {},
    logOpts: {},
    settings: { ...defaultContainerSettings(), thermalThrottlePaths: [] },
  });
  assert.equal(body.User, '1000:3000');
  const hc = body.HostConfig!;
  assert.deepEqual(hc.GroupAdd, ['2000', '4000', '5000'], 'fsGroup first, then supplementalGroups');
  assert.deepEqual(hc.CapAdd, ['CAP_NET_ADMIN', 'CAP_SYS_TIME']);
  assert.deepEqual(hc.CapDrop, ['ALL']);
  assert.equal(hc.ReadonlyRootfs, true);
  assert.equal(hc.Privileged, undefined);
  assert.deepEqual(
    hc.SecurityOpt,
    ['label=type:spc_t', 'label=level:s0:c1,c2', 'apparmor=k8s-deny-write', 'no-new-privileges'],
    "RuntimeDefault is Docker's own profile: no seccomp option",
  );
  assert.deepEqual(hc.MaskedPaths, MASKED);
  assert.deepEqual(hc.ReadonlyPaths, READONLY);
});

test('Docker: privileged has no masked paths; Unmasked empties both lists; Unconfined seccomp is said', () => {
  const s = {
    ...defaultContainerSettings(),
    thermalThrottlePaths: ['/sys/devices/system/cpu/cpu0/thermal_throttle'],
  };
  const priv = pod({}, { securityContext: { privileged: true } });
  const d = dockerSecurity(priv, first(priv), s, { seccomp: { type: 'Unconfined' } });
  assert.equal(d.HostConfig.Privileged, true);
  assert.equal(d.HostConfig.MaskedPaths, undefined);
  assert.deepEqual(d.HostConfig.SecurityOpt, ['seccomp=unconfined']);
  const unmasked = pod({}, { securityContext: { procMount: 'Unmasked' } });
  const u = dockerSecurity(unmasked, first(unmasked), s, { seccomp: { type: 'RuntimeDefault' } });
  assert.deepEqual([u.HostConfig.MaskedPaths, u.HostConfig.ReadonlyPaths], [[], []]);
  const plain = pod({});
  const m = dockerSecurity(plain, first(plain), s, { seccomp: { type: 'RuntimeDefault' } });
  assert.deepEqual(m.HostConfig.MaskedPaths, [
    ...MASKED,
    '/sys/devices/system/cpu/cpu0/thermal_throttle',
  ]);
  assert.equal(m.User, undefined, 'no runAsUser or runAsGroup: the image decides');
  assert.equal(m.HostConfig.GroupAdd, undefined);
});

test("Docker User: runAsUser, else the image's uid or name without its group, root when it names none", () => {
  assert.equal(dockerUser({ runAsGroup: 3000 }, parseImageUser('nobody:nogroup')), 'nobody:3000');
  assert.equal(dockerUser({ runAsGroup: 3000 }, parseImageUser('')), '0:3000');
  assert.equal(dockerUser({ runAsGroup: 3000 }, parseImageUser('1001')), '1001:3000');
  assert.equal(
    dockerUser({}, parseImageUser('1001:2002')),
    '1001',
    'the group of USER is not kept',
  );
  assert.equal(dockerUser({}, parseImageUser('')), '0');
  assert.equal(dockerUser({ runAsUser: 7 }, undefined), '7');
  assert.equal(dockerUser({}, undefined), undefined);
});

test('seccomp Localhost: the profile under <root-dir>/seccomp is read and given inline, compacted', async (t) => {
  const root = await mkdtemp(join(tmpdir(), 'na-seccomp-'));
  t.after(() => rm(root, { recursive: true, force: true }));
  await writeFile(join(root, 'audit.json'), '{\n  "defaultAction": "SCMP_ACT_LOG"\n}\n');
  const s = { ...defaultContainerSettings(), seccompProfileRoot: root };
  const p = pod(
    {},
    { securityContext: { seccompProfile: { type: 'Localhost', localhostProfile: 'audit.json' } } },
  );
  const input = await prepareDockerSecurity(p, first(p), s, () => Promise.resolve(undefined));
  assert.deepEqual(input.seccomp, { type: 'Localhost', path: join(root, 'audit.json') });
  assert.deepEqual(dockerSecurity(p, first(p), s, input).HostConfig.SecurityOpt, [
    'seccomp={"defaultAction":"SCMP_ACT_LOG"}',
  ]);
  const missing = pod(
    {},
    { securityContext: { seccompProfile: { type: 'Localhost', localhostProfile: 'nope.json' } } },
  );
  await assert.rejects(
    prepareDockerSecurity(missing, first(missing), s, () => Promise.resolve(undefined)),
    (err: Error) => {
      assert.match(
        err.message,
        new RegExp(`^cannot load seccomp profile "${join(root, 'nope.json')}": `),
      );
      return true;
    },
  );
  const unnamed = pod({ securityContext: { seccompProfile: { type: 'Localhost' } } });
  await assert.rejects(
    prepareDockerSecurity(unnamed, first(unnamed), s, () => Promise.resolve(undefined)),
    new ContainerConfigError('localhostProfile must be set if seccompProfile type is Localhost.'),
  );
});

test("runAsNonRoot: the reference's three messages, and the image users that pass", () => {
  const nonRoot = pod({ securityContext: { runAsNonRoot: true } });
  const c = first(nonRoot);
  assert.equal(
    runAsNonRootViolation(nonRoot, c, parseImageUser('')),
    `container has runAsNonRoot and image will run as root (pod: "sec_default(${UID})", container: c)`,
  );
  assert.equal(
    runAsNonRootViolation(nonRoot, c, parseImageUser('0:0')),
    `container has runAsNonRoot and image will run as root (pod: "sec_default(${UID})", container: c)`,
  );
  assert.equal(
    runAsNonRootViolation(nonRoot, c, parseImageUser('nginx')),
    `container has runAsNonRoot and image has non-numeric user (nginx), cannot verify user is non-root (pod: "sec_default(${UID})", container: c)`,
  );
  const zero = pod(
    { securityContext: { runAsNonRoot: true } },
    { securityContext: { runAsUser: 0 } },
  );
  assert.equal(
    runAsNonRootViolation(zero, first(zero), {}),
    `container's runAsUser breaks non-root policy (pod: "sec_default(${UID})", container: c)`,
  );
  assert.equal(runAsNonRootViolation(nonRoot, c, parseImageUser('1000:1000')), undefined);
  const explicit = pod({ securityContext: { runAsNonRoot: true, runAsUser: 1000 } });
  assert.equal(runAsNonRootViolation(explicit, first(explicit), parseImageUser('')), undefined);
  const off = pod({}, { securityContext: { runAsNonRoot: false } });
  assert.equal(runAsNonRootViolation(off, first(off), parseImageUser('')), undefined);
});

test('Docker: runAsNonRoot reads the image user only when runAsUser is unset, and refuses root as a config error', async () => {
  const s = defaultContainerSettings();
  const p = pod({ securityContext: { runAsNonRoot: true } });
  let reads = 0;
  const read = (u: string) => () => {
    reads++;
    return Promise.resolve(u);
  };
  await assert.rejects(prepareDockerSecurity(p, first(p), s, read('')), (err: unknown) => {
    assert.ok(err instanceof ContainerConfigError);
    assert.equal(
      err.message,
      `container has runAsNonRoot and image will run as root (pod: "sec_default(${UID})", container: c)`,
    );
    return true;
  });
  const ok = await prepareDockerSecurity(p, first(p), s, read('1000'));
  assert.deepEqual(ok.imageUser, { uid: 1000 });
  const set = pod({ securityContext: { runAsNonRoot: true, runAsUser: 5 } });
  await prepareDockerSecurity(set, first(set), s, read(''));
  assert.equal(reads, 2, 'no image read when runAsUser settles it');
});

test("CRI: the reference's LinuxContainerSecurityContext", () => {
  const s = {
    ...defaultContainerSettings(),
    seccompProfileRoot: '/var/lib/nodeagent/seccomp',
    thermalThrottlePaths: [],
  };
  const p = pod(
    {
      securityContext: {
        runAsGroup: 3000,
        fsGroup: 2000,
        supplementalGroups: [4000],
        supplementalGroupsPolicy: 'Strict',
      },
    },
    {
      securityContext: {
        capabilities: { add: ['NET_ADMIN'] },
        allowPrivilegeEscalation: false,
        seccompProfile: { type: 'Localhost', localhostProfile: 'profiles/audit.json' },
        appArmorProfile: { type: 'RuntimeDefault' },
      },
    },
  );
  const sc = criContainerSecurity(p, first(p), s, { network: 0, pid: 1, ipc: 0 }, { uid: 1001 });
  assert.deepEqual(sc, {
    capabilities: { add_capabilities: ['NET_ADMIN'], drop_capabilities: [] },
    privileged: false,
    readonly_rootfs: false,
    namespace_options: { network: 0, pid: 1, ipc: 0 },
    run_as_user: { value: 1001 },
    run_as_group: { value: 3000 },
    supplemental_groups: [2000, 4000],
    supplemental_groups_policy: 1,
    no_new_privs: true,
    masked_paths: MASKED,
    readonly_paths: READONLY,
    seccomp: { profile_type: 2, localhost_ref: '/var/lib/nodeagent/seccomp/profiles/audit.json' },
    apparmor: { profile_type: 0 },
    apparmor_profile: 'runtime/default',
  });
  const named = criContainerSecurity(pod({}), first(pod({})), s, {}, { username: 'nginx' });
  assert.equal(named.run_as_user, undefined);
  assert.equal(named.run_as_username, 'nginx');
  assert.deepEqual(
    criContainerSecurity(pod({}), first(pod({})), s, {}, {}).run_as_user,
    { value: 0 },
    'no USER: root',
  );
});

test('AppArmor admission: a confining profile on a host without AppArmor is refused as the reference refuses it', () => {
  const rd = pod({ securityContext: { appArmorProfile: { type: 'RuntimeDefault' } } });
  assert.deepEqual(admitAppArmor(rd, false), {
    admit: false,
    reason: 'AppArmor',
    message: 'Cannot enforce AppArmor: AppArmor is not enabled on the host',
  });
  assert.deepEqual(admitAppArmor(rd, true), { admit: true });
  const un = pod({}, { securityContext: { appArmorProfile: { type: 'Unconfined' } } });
  assert.deepEqual(admitAppArmor(un, false), { admit: true });
});

test('the possible-CPU list as the kernel writes it', () => {
  assert.deepEqual(parseCpuList('0-3,8\n'), [0, 1, 2, 3, 8]);
  assert.equal(parseCpuList('x'), undefined);
});
