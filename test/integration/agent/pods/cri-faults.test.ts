// A CRI runtime that is not there yet: the agent started on kubeadm's kind of endpoint (a
// containerd.sock) before containerd runs retries with back-off, says so in its log, and runs its
// pods once containerd (a containerd of the test's own, test/helpers/containerd.ts) comes up,
// without a restart. Skipped without containerd except under CI=true.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startInProcessAgent } from '../../../helpers/in-process-agent.js';
import { containerdSkipReason, startContainerd } from '../../../helpers/containerd.js';
import { waitFor } from './agent-harness.js';

const skip = (await containerdSkipReason()) ?? false;

test(
  "containerd's socket absent at start: retried with back-off, the pod runs once containerd is up, no restart",
  { skip, timeout: 120_000 },
  async (t) => {
    const sockDir = await mkdtemp(join(tmpdir(), 'na-cri-late-'));
    const socketPath = join(sockDir, 'containerd.sock');
    const started: { stop?: () => Promise<void> } = {};
    t.after(async () => {
      await started.stop?.();
      await rm(sockDir, { recursive: true, force: true });
    });
    const a = await startInProcessAgent(t, {
      prefix: 'na-cri-late',
      config: { containerRuntimeEndpoint: `unix://${socketPath}` },
      flags: { hostnameOverride: 'cri-late' },
    });
    await waitFor('the agent to say the runtime does not answer', () =>
      a.log.lines.some(
        (l) =>
          l.msg ===
            'container runtime not answering; is the engine running at this endpoint? retrying' &&
          String(l.fields['err']).includes(socketPath),
      ),
    );
    const pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'late' },
      spec: {
        terminationGracePeriodSeconds: 1,
        containers: [{ name: 'c', image: 'busybox:local', command: ['sleep', '600'] }],
      },
    };
    await writeFile(join(a.manifests, 'late.json'), JSON.stringify(pod));
    const ctd = await startContainerd({ socketPath });
    started.stop = () => ctd.stop();
    await waitFor(
      'the pod Running on containerd',
      () => {
        const p = a
          .agent()
          ?.pods.pods()
          .find((x) => x.metadata.name === 'late-cri-late');
        const st = p?.status as
          | { containerStatuses?: { containerID?: string; state: { running?: unknown } }[] }
          | undefined;
        const cs = st?.containerStatuses?.[0];
        return (
          cs?.state.running !== undefined && cs.containerID?.startsWith('containerd://') === true
        );
      },
      90_000,
    );
    assert.ok(a.log.lines.some((l) => l.msg === 'container runtime ready'));
  },
);
