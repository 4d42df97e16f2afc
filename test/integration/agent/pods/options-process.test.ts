// process:// and the pod's resolv.conf: the runtime writes it under the pod dir and gives the
// process its path in NODEAGENT_RESOLV_CONF (a host process cannot have its own /etc/resolv.conf).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { stat } from 'node:fs/promises';
import { systemClock } from '../../../../src/common/util/clock.js';
import { ProcessRuntime } from '../../../../src/agent/runtime/process/runtime.js';
import { buildPodSettings } from '../../../../src/agent/runtime/settings/from-config.js';
import type { Pod } from '../../../../src/agent/pod/types.js';
import { recordingLogger } from '../../../helpers/recording-logger.js';
import { tempDir, waitFor } from './agent-harness.js';
import { killProcessPods } from './runtimes.js';

test('process:// pods read their resolv.conf at $NODEAGENT_RESOLV_CONF; what needs isolation is said at start', async (t) => {
  const root = await tempDir('na-optp-');
  const rt = { current: undefined as ProcessRuntime | undefined };
  t.after(async () => {
    await killProcessPods(root.path);
    await rt.current?.close();
    await root.cleanup();
  });
  const log = recordingLogger();
  const settings = buildPodSettings({
    config: {
      cpuCFSQuota: true,
      cpuCFSQuotaPeriod: '100ms',
      podPidsLimit: 10,
      seccompDefault: false,
      clusterDNS: ['10.0.0.10'],
      clusterDomain: 'cluster.local',
      resolvConf: '',
      allowedUnsafeSysctls: [],
    },
    rootDir: root.path,
    runtimeType: 'process',
    logger: log,
  });
  assert.deepEqual(settings.notes.map((n) => n.option).sort(), [
    '--allowed-unsafe-sysctls',
    '--cpu-cfs-quota',
    '--cpu-cfs-quota-period',
    '--pod-max-pids',
    '--seccomp-default',
  ]);
  rt.current = new ProcessRuntime({
    rootDir: root.path,
    logger: log,
    clock: systemClock,
    pollIntervalMs: 200,
    podSettings: settings.runtime,
  });
  const pod: Pod = {
    metadata: { name: 'dns', namespace: 'team', uid: 'uid-dns-1' },
    spec: {
      containers: [{ name: 'c', command: ['sh', '-c', 'cat "$NODEAGENT_RESOLV_CONF"; sleep 30'] }],
    },
  };
  const sb = await rt.current.runPodSandbox({ pod, attempt: 0 });
  const id = await rt.current.createContainer({
    pod,
    container: pod.spec.containers[0]!,
    kind: 'app',
    attempt: 0,
    specHash: 'h',
    sandboxId: sb,
    volumePaths: {},
  });
  await rt.current.startContainer(id);
  const out = await waitFor('the resolv.conf in the log', async () => {
    const l = await rt.current?.logs(id);
    return l !== undefined && l.includes('ndots') ? l : undefined;
  });
  assert.equal(
    out,
    'nameserver 10.0.0.10\nsearch team.svc.cluster.local svc.cluster.local cluster.local\noptions ndots:5\n',
  );
  assert.equal((await stat(`${root.path}/pods/uid-dns-1/resolv.conf`)).mode & 0o777, 0o644);
});
