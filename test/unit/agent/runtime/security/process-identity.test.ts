// process://: who a container's process runs as (setpriv in front of its command), with the
// host's /etc/passwd and /etc/group standing for the image's; and which security fields refuse a
// process:// pod (support.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Container, Pod } from '../../../../../src/agent/pod/types.js';
import { refusedFields } from '../../../../../src/agent/pod/refusals.js';
import { ContainerConfigError } from '../../../../../src/agent/runtime/types.js';
import { parseHostUsers } from '../../../../../src/agent/runtime/security/host-users.js';
import {
  processIdentity,
  withIdentity,
  type IdentityContext,
} from '../../../../../src/agent/runtime/security/process-identity.js';

const UID = 'b6a1';
const users = parseHostUsers(
  'root:x:0:0:root:/root:/bin/sh\napp:x:1000:1000::/home/app:/bin/sh\n',
  'root:x:0:\napp:x:1000:\nvideo:x:44:app,other\naudio:x:29:other\n',
);
const asRoot: IdentityContext = { agentUid: 0, agentGid: 0, users };

function pod(spec: Partial<Pod['spec']>, c: Partial<Container> = {}): Pod {
  return {
    metadata: { name: 'p', namespace: 'ns', uid: UID },
    spec: { containers: [{ name: 'c', command: ['id'], ...c }], ...spec },
  };
}
const first = (p: Pod): Container => p.spec.containers[0]!;

test("runAsUser, runAsGroup, fsGroup and supplementalGroups: setpriv sets them; Merge adds the user's host groups", async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'na-setpriv-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const setpriv = join(dir, 'setpriv');
  await writeFile(setpriv, '');
  const p = pod(
    { securityContext: { runAsUser: 1000, fsGroup: 2000, supplementalGroups: [4000] } },
    { securityContext: { runAsGroup: 3000, allowPrivilegeEscalation: false } },
  );
  const id = processIdentity(p, first(p), asRoot);
  assert.deepEqual(id, { uid: 1000, gid: 3000, groups: [2000, 4000, 44], noNewPrivs: true });
  assert.deepEqual(withIdentity(id, ['id', '-G'], [join(dir, 'none'), setpriv]), [
    setpriv,
    '--reuid=1000',
    '--regid=3000',
    '--groups=2000,4000,44',
    '--no-new-privs',
    '--',
    'id',
    '-G',
  ]);
  const strict = pod({ securityContext: { runAsUser: 1000, supplementalGroupsPolicy: 'Strict' } });
  assert.deepEqual(
    processIdentity(strict, first(strict), asRoot),
    {
      uid: 1000,
      gid: 1000,
      groups: [],
    },
    "Strict: no host groups; the user's primary group from /etc/passwd",
  );
  assert.deepEqual(withIdentity({ uid: 1000, gid: 1000, groups: [] }, ['id'], [setpriv]), [
    setpriv,
    '--reuid=1000',
    '--regid=1000',
    '--clear-groups',
    '--',
    'id',
  ]);
  const unknown = pod({}, { securityContext: { runAsUser: 4242 } });
  assert.deepEqual(processIdentity(unknown, first(unknown), asRoot), {
    uid: 4242,
    gid: 0,
    groups: [],
  });
});

test('nothing asked: the command runs as it is, as the agent', () => {
  const p = pod({});
  assert.deepEqual(processIdentity(p, first(p), asRoot), {});
  assert.deepEqual(withIdentity({}, ['id']), ['id']);
  assert.throws(
    () => withIdentity({ uid: 5 }, ['id'], ['/nonexistent/setpriv']),
    /needs setpriv \(util-linux\)/,
  );
});

test("runAsNonRoot checks the agent's own uid; a non-root agent cannot switch users", () => {
  const nonRoot = pod({ securityContext: { runAsNonRoot: true } });
  assert.throws(
    () => processIdentity(nonRoot, first(nonRoot), asRoot),
    new ContainerConfigError(
      `container has runAsNonRoot and image will run as root (pod: "p_ns(${UID})", container: c)`,
    ),
  );
  assert.deepEqual(
    processIdentity(nonRoot, first(nonRoot), { agentUid: 1000, agentGid: 1000, users }),
    {},
    'an agent running as 1000 runs the process as 1000',
  );
  const switchUser = pod({ securityContext: { runAsUser: 2000 } });
  assert.throws(
    () => processIdentity(switchUser, first(switchUser), { agentUid: 1000, agentGid: 1000, users }),
    (err: unknown) =>
      err instanceof ContainerConfigError &&
      /only when the agent runs as root \(it runs as uid 1000\)/.test(err.message),
  );
});

test('process:// refuses the security fields it cannot apply, naming field and runtime; docker takes them all', () => {
  const p = pod(
    {
      securityContext: {
        runAsUser: 1000,
        runAsNonRoot: true,
        supplementalGroups: [1],
        fsGroup: 2,
        seccompProfile: { type: 'RuntimeDefault' },
        appArmorProfile: { type: 'Unconfined' },
      },
    },
    {
      securityContext: {
        capabilities: { drop: ['ALL'] },
        allowPrivilegeEscalation: false,
        readOnlyRootFilesystem: true,
        procMount: 'Default',
        seLinuxOptions: { type: 't' },
      },
    },
  );
  assert.deepEqual(refusedFields(p, 'docker'), []);
  assert.deepEqual(refusedFields(p, 'process'), [
    'spec.securityContext.seccompProfile: not supported by the process:// runtime: it runs host processes without isolation: no seccomp filter is applied',
    'spec.containers[0].securityContext.capabilities: not supported by the process:// runtime: it runs host processes without isolation: no capability set is applied',
    "spec.containers[0].securityContext.readOnlyRootFilesystem: not supported by the process:// runtime: it runs host processes without isolation: the root file system is the host's",
    'spec.containers[0].securityContext.seLinuxOptions: not supported by the process:// runtime: it runs host processes without isolation: no SELinux label is applied',
  ]);
  const strict = pod({ securityContext: { supplementalGroupsPolicy: 'Strict' } });
  assert.deepEqual(refusedFields(strict, 'docker'), [
    "spec.securityContext.supplementalGroupsPolicy: not supported by the Docker runtime: the Docker engine always adds the groups the image's /etc/group gives the user (Merge)",
  ]);
  assert.deepEqual(refusedFields(strict, 'process'), []);
});
