// Pod and container security contexts on a real Docker engine against a real plat-apiserver, seen
// from inside the containers: the uid, gid and groups of runAsUser, runAsGroup, fsGroup and
// supplementalGroups (`id`), capabilities added and dropped (CapEff against Docker's default
// set), no_new_privs from allowPrivilegeEscalation: false, seccomp mode 2 from RuntimeDefault, a
// Localhost profile read from <root-dir>/seccomp that denies mkdir, a read-only root file system;
// a runAsNonRoot pod whose image runs as root, held in CreateContainerConfigError with the
// reference's message and its Failed event; an AppArmor RuntimeDefault pod refused at admission
// on a host without AppArmor (run on one with it).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { hostAppArmorEnabled } from '../../../../src/agent/runtime/security/apparmor.js';
import { waitFor } from './agent-harness.js';
import { dockerRuntime, dockerSkipReason } from './runtimes.js';
import { volumeScene, type VolumeScene } from './volume-scene.js';

const skip = await dockerSkipReason();

/** The output of the pod's running container `name` once it holds `until`. */
async function output(s: VolumeScene, pod: string, name: string, until: string): Promise<string> {
  const rt = dockerRuntime.make(s.root);
  return waitFor(
    `${pod}/${name} to print ${until}`,
    async () => {
      const c = (await rt.listContainers({})).find(
        (x) => x.podName === pod && x.name === name && x.kind === 'app',
      );
      if (c === undefined) return undefined;
      const out = await rt.logs(c.id);
      return out.includes(until) ? out : undefined;
    },
    60_000,
    200,
  );
}

const REPORT =
  'id; grep -E "^(CapEff|NoNewPrivs|Seccomp):" /proc/self/status; ' +
  'touch /probe 2>&1 || echo "root write refused"; mkdir /tmp/d 2>&1 || echo "mkdir refused"; ' +
  'echo done; sleep 3600';

/** Docker's default capability set (0xa80425fb) with NET_ADMIN (bit 12) added and CHOWN (bit 0) dropped. */
const CAPS_ADDED_DROPPED = '00000000a80435fa';

test(
  'security context on Docker: user, groups, capabilities, no_new_privs, seccomp (RuntimeDefault and Localhost), read-only root',
  { skip, timeout: 180_000 },
  async (t) => {
    const s = await volumeScene(t, 'docker');
    await mkdir(join(s.root, 'seccomp'), { recursive: true });
    await writeFile(
      join(s.root, 'seccomp', 'deny-mkdir.json'),
      JSON.stringify({
        defaultAction: 'SCMP_ACT_ALLOW',
        syscalls: [{ names: ['mkdir', 'mkdirat'], action: 'SCMP_ACT_ERRNO' }],
      }),
    );
    const name = `${s.node}-sec`;
    await s.createPod({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name },
      spec: {
        nodeName: s.node,
        terminationGracePeriodSeconds: 1,
        securityContext: {
          runAsUser: 1000,
          runAsGroup: 3000,
          fsGroup: 2000,
          supplementalGroups: [4000],
          seccompProfile: { type: 'RuntimeDefault' },
        },
        containers: [
          {
            name: 'ids',
            image: 'busybox:local',
            command: ['sh', '-c', REPORT],
            securityContext: { allowPrivilegeEscalation: false, readOnlyRootFilesystem: true },
          },
          {
            name: 'caps',
            image: 'busybox:local',
            command: ['sh', '-c', REPORT],
            securityContext: {
              runAsUser: 0,
              capabilities: { add: ['NET_ADMIN'], drop: ['chown'] },
              seccompProfile: { type: 'Localhost', localhostProfile: 'deny-mkdir.json' },
            },
          },
        ],
      },
    });
    s.start();
    await s.phase(name, 'Running');
    const ids = await output(s, name, 'ids', 'done');
    assert.match(ids, /^uid=1000 gid=3000 groups=2000,3000,4000$/m);
    assert.match(ids, /^CapEff:\s+0000000000000000$/m);
    assert.match(ids, /^NoNewPrivs:\s+1$/m, 'allowPrivilegeEscalation: false');
    assert.match(ids, /^Seccomp:\s+2$/m, "RuntimeDefault: Docker's default filter");
    assert.match(ids, /touch: \/probe: Read-only file system\nroot write refused/);
    assert.match(
      ids,
      /mkdir: can't create directory '\/tmp\/d': Read-only file system/,
      'the default profile lets mkdir reach the file system (which refuses it: read-only)',
    );
    const caps = await output(s, name, 'caps', 'done');
    assert.match(caps, /^uid=0\(root\) gid=3000 groups=2000,3000,4000$/m);
    assert.match(caps, new RegExp(`^CapEff:\\s+${CAPS_ADDED_DROPPED}$`, 'm'));
    assert.match(caps, /^NoNewPrivs:\s+0$/m);
    assert.match(caps, /^Seccomp:\s+2$/m);
    assert.match(
      caps,
      /mkdir: can't create directory '\/tmp\/d': Operation not permitted\nmkdir refused/,
    );
    assert.doesNotMatch(caps, /root write refused/);
  },
);

test(
  "runAsNonRoot with an image that runs as root: CreateContainerConfigError with the reference's message and a Failed event; AppArmor admission",
  { skip, timeout: 120_000 },
  async (t) => {
    const s = await volumeScene(t, 'docker');
    const name = `${s.node}-nonroot`;
    await s.createPod({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name },
      spec: {
        nodeName: s.node,
        terminationGracePeriodSeconds: 1,
        securityContext: { runAsNonRoot: true },
        containers: [{ name: 'c', image: 'busybox:local', command: ['sleep', '3600'] }],
      },
    });
    const confined = `${s.node}-apparmor`;
    await s.createPod({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: confined },
      spec: {
        nodeName: s.node,
        terminationGracePeriodSeconds: 1,
        securityContext: { appArmorProfile: { type: 'RuntimeDefault' } },
        containers: [{ name: 'c', image: 'busybox:local', command: ['sleep', '3600'] }],
      },
    });
    const created = await s.api.request('GET', `/api/v1/namespaces/default/pods/${name}`);
    const uid = String((created.json?.['metadata'] as { uid?: string } | undefined)?.uid);
    s.start();
    const message = `container has runAsNonRoot and image will run as root (pod: "${name}_default(${uid})", container: c)`;
    const status = await waitFor(
      'the CreateContainerConfigError status',
      async () => {
        const r = await s.api.request('GET', `/api/v1/namespaces/default/pods/${name}`);
        const st = r.json?.['status'] as
          { phase?: string; containerStatuses?: { state?: { waiting?: unknown } }[] } | undefined;
        return st?.containerStatuses?.[0]?.state?.waiting !== undefined ? st : undefined;
      },
      60_000,
      200,
    );
    assert.equal(status.phase, 'Pending');
    assert.deepEqual(status.containerStatuses?.[0]?.state?.waiting, {
      reason: 'CreateContainerConfigError',
      message,
    });
    const events = await waitFor(
      'the Failed event',
      async () => {
        const e = await s.events(name, 'Failed');
        return e.length > 0 ? e : undefined;
      },
      30_000,
      200,
    );
    assert.deepEqual([...new Set(events)], [`Error: ${message}`]);
    const rt = dockerRuntime.make(s.root);
    const made = (await rt.listContainers({})).filter(
      (c) => c.podName === name && c.kind === 'app',
    );
    assert.deepEqual(made, [], 'no container is made');
    if (hostAppArmorEnabled()) {
      await s.phase(confined, 'Running');
    } else {
      // the reference's AppArmor admit handler on a host without AppArmor
      const refused = await s.phase(confined, 'Failed');
      assert.equal(refused['reason'], 'AppArmor');
      assert.equal(
        refused['message'],
        'Pod was rejected: Cannot enforce AppArmor: AppArmor is not enabled on the host',
      );
    }
  },
);
