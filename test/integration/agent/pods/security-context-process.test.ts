// Security context on process:// against a real plat-apiserver, with an agent running as root:
// runAsUser, runAsGroup, supplementalGroups and allowPrivilegeEscalation: false take effect on
// the host process (setpriv), which still reports its exit (the pod Succeeds); runAsNonRoot
// without runAsUser checks the agent's own uid (root) and holds the container in
// CreateContainerConfigError with the reference's message; capabilities are refused naming the
// field and the runtime.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { skipOutsideCi } from '../../../helpers/skip-outside-ci.js';
import { waitFor } from './agent-harness.js';
import { processRuntime } from './runtimes.js';
import { volumeScene } from './volume-scene.js';

const skip =
  process.getuid?.() === 0
    ? undefined
    : skipOutsideCi('root (to switch users)', `running as uid ${String(process.getuid?.())}`);

const pod = (
  name: string,
  node: string,
  spec: Record<string, unknown>,
  container: Record<string, unknown>,
): Record<string, unknown> => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name },
  spec: {
    nodeName: node,
    restartPolicy: 'Never',
    terminationGracePeriodSeconds: 1,
    ...spec,
    containers: [{ name: 'c', image: 'none', ...container }],
  },
});

test(
  'security context on process://: the process runs as runAsUser/runAsGroup with the pod groups and no_new_privs; runAsNonRoot refuses root; capabilities are refused',
  { skip, timeout: 120_000 },
  async (t) => {
    const s = await volumeScene(t, 'process');
    const who = `${s.node}-who`;
    await s.createPod(
      pod(
        who,
        s.node,
        { securityContext: { runAsUser: 65534, supplementalGroups: [4000] } },
        {
          command: ['sh', '-c', 'id -u; id -g; id -G; grep NoNewPrivs /proc/self/status'],
          securityContext: { runAsGroup: 65533, allowPrivilegeEscalation: false },
        },
      ),
    );
    const nonRoot = `${s.node}-nonroot`;
    await s.createPod(
      pod(nonRoot, s.node, { securityContext: { runAsNonRoot: true } }, { command: ['true'] }),
    );
    const caps = `${s.node}-caps`;
    await s.createPod(
      pod(
        caps,
        s.node,
        {},
        {
          command: ['true'],
          securityContext: { capabilities: { drop: ['ALL'] } },
        },
      ),
    );
    s.start();
    await s.phase(who, 'Succeeded');
    const rt = processRuntime.observe?.(s.root);
    assert.ok(rt !== undefined);
    const c = (await rt.listContainers({})).find((x) => x.podName === who && x.kind === 'app');
    assert.ok(c !== undefined);
    const out = (await rt.logs(c.id)).trim().split('\n');
    assert.deepEqual(out.slice(0, 2), ['65534', '65533']);
    assert.deepEqual(
      out[2]?.split(' ').sort(),
      ['4000', '65533'],
      'the pod group and the primary one',
    );
    assert.match(out[3] ?? '', /^NoNewPrivs:\s+1$/);

    const created = await s.api.request('GET', `/api/v1/namespaces/default/pods/${nonRoot}`);
    const uid = String((created.json?.['metadata'] as { uid?: string } | undefined)?.uid);
    const waiting = await waitFor(
      'the CreateContainerConfigError status',
      async () => {
        const r = await s.api.request('GET', `/api/v1/namespaces/default/pods/${nonRoot}`);
        const st = r.json?.['status'] as
          { containerStatuses?: { state?: { waiting?: unknown } }[] } | undefined;
        return st?.containerStatuses?.[0]?.state?.waiting;
      },
      60_000,
      200,
    );
    assert.deepEqual(waiting, {
      reason: 'CreateContainerConfigError',
      message: `container has runAsNonRoot and image will run as root (pod: "${nonRoot}_default(${uid})", container: c)`,
    });

    const refused = await s.phase(caps, 'Failed');
    assert.equal(refused['reason'], 'UnsupportedPod');
    assert.match(
      String(refused['message']),
      /spec\.containers\[0\]\.securityContext\.capabilities: not supported by the process:\/\/ runtime: it runs host processes without isolation: no capability set is applied/,
    );
  },
);
