// Standalone --pod-cidr, as the reference's updatePodCIDR: "Updating Pod CIDR" in the log, then
// the runtime is given the subnet before any pod starts: process:// containers read it in
// $NODEAGENT_POD_CIDR; Docker's bridge network assigns its own addresses, which is said once.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRuntime } from '../../../../src/agent/runtime/factory.js';
import type { Pod } from '../../../../src/agent/pod/types.js';
import { systemClock } from '../../../../src/common/util/clock.js';
import { recordingLogger } from '../../../helpers/recording-logger.js';
import { tempDir, waitFor } from './agent-harness.js';
import { killProcessPods } from './runtimes.js';

const base = {
  imageEndpoint: '',
  requestTimeoutMs: 0,
  serializeImagePulls: true,
  registryPullQPS: 0,
  registryBurst: 0,
  clock: systemClock,
};

test('--pod-cidr (standalone): "Updating Pod CIDR", and process:// containers get it in $NODEAGENT_POD_CIDR', async (t) => {
  const root = await tempDir('na-podcidr-');
  const log = recordingLogger();
  const bundle = await createRuntime({
    ...base,
    endpoint: 'process://',
    rootDir: root.path,
    podCIDR: '10.244.7.0/24',
    logger: log,
  });
  t.after(async () => {
    await killProcessPods(root.path);
    await bundle.close();
    await root.cleanup();
  });
  const info = log.lines.find((l) => l.msg === 'Updating Pod CIDR');
  assert.deepEqual(info?.fields, { originalPodCIDR: '', newPodCIDR: '10.244.7.0/24' });
  const pod: Pod = {
    metadata: { name: 'cidr', namespace: 'default', uid: 'uid-cidr-1' },
    spec: {
      containers: [
        { name: 'c', command: ['sh', '-c', 'echo "cidr=$NODEAGENT_POD_CIDR"; sleep 30'] },
      ],
    },
  };
  const rt = bundle.runtime;
  const sb = await rt.runPodSandbox({ pod, attempt: 0 });
  const id = await rt.createContainer({
    pod,
    container: pod.spec.containers[0]!,
    kind: 'app',
    attempt: 0,
    specHash: 'h',
    sandboxId: sb,
    volumePaths: {},
  });
  await rt.startContainer(id);
  const out = await waitFor('the pod CIDR in the log', async () => {
    const l = await rt.logs(id);
    return l.includes('cidr=') ? l : undefined;
  });
  assert.equal(out, 'cidr=10.244.7.0/24\n');
});

test('--pod-cidr (standalone) with Docker says once that the bridge network assigns the addresses; without it nothing is said', async () => {
  const log = recordingLogger();
  const docker = await createRuntime({
    ...base,
    endpoint: 'unix:///nonexistent/docker.sock',
    rootDir: '/nonexistent',
    podCIDR: '10.244.7.0/24',
    logger: log,
  });
  await docker.close();
  assert.deepEqual(
    log.lines.filter((l) => l.level === 'warn').map((l) => l.msg),
    [
      "--pod-cidr cannot take effect on this host: the pods use Docker's bridge network, whose subnet Docker assigns (the reference's Docker integration gives the pod CIDR to kubenet only); pod IPs come from the Docker bridge",
    ],
  );
  const quiet = recordingLogger();
  await (
    await createRuntime({
      ...base,
      endpoint: 'process://',
      rootDir: '/nonexistent',
      podCIDR: '',
      logger: quiet,
    })
  ).close();
  assert.deepEqual(quiet.lines, []);
});
