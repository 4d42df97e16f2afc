// One contract, three runtimes: what the pod workers rely on from process://, from Docker and from
// a CRI runtime (a containerd of the test's own, test/helpers/containerd.ts).
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { Pod } from '../../../../src/agent/pod/types.js';
import type {
  ContainerRuntime,
  ImageService,
  RuntimeContainer,
} from '../../../../src/agent/runtime/types.js';
import { tempDir, waitFor } from './agent-harness.js';
import {
  criRuntimeOn,
  removeCriPods,
  dockerRuntime,
  dockerSkipReason,
  killProcessPods,
  processRuntime,
  removeDockerPods,
  type RuntimeUnderTest,
} from './runtimes.js';
import { skipOutsideCi } from '../../../helpers/skip-outside-ci.js';
import {
  containerdSkipReason,
  startContainerd,
  type Containerd,
} from '../../../helpers/containerd.js';

function pod(name: string, containers: Pod['spec']['containers']): Pod {
  return {
    metadata: { name, namespace: 'default', uid: randomUUID() },
    spec: { containers, terminationGracePeriodSeconds: 2 },
  };
}

/** `skip` gives the reason the runtime is missing: only outside CI (dockerSkipReason throws under CI=true). */
function contract(rt: RuntimeUnderTest, skip: () => string | undefined): void {
  describe(`runtime contract: ${rt.name}`, () => {
    let runtime: ContainerRuntime & ImageService;
    let root: { path: string; cleanup: () => Promise<void> };
    const uids: string[] = [];

    before(async () => {
      root = await tempDir(`na-contract-${rt.name}-`);
      if (skip() === undefined) runtime = rt.make(root.path);
    });
    after(async () => {
      if (rt.name === 'docker') await removeDockerPods(uids);
      else if (rt.name === 'containerd') await removeCriPods(runtime, uids);
      else await killProcessPods(root.path);
      await runtime?.close();
      await root.cleanup();
    });

    async function startPod(p: Pod, attempt = 0): Promise<{ sandbox: string; ids: string[] }> {
      uids.push(p.metadata.uid);
      const sandbox = await runtime.runPodSandbox({ pod: p, attempt });
      const ids: string[] = [];
      for (const c of p.spec.containers) {
        const id = await runtime.createContainer({
          pod: p,
          container: c,
          kind: 'app',
          attempt,
          specHash: `h-${c.name}`,
          sandboxId: sandbox,
          volumePaths: {},
        });
        await runtime.startContainer(id);
        ids.push(id);
      }
      return { sandbox, ids };
    }
    const find = async (id: string): Promise<RuntimeContainer | undefined> =>
      (await runtime.listContainers()).find((c) => c.id === id);
    const detail = async (p: Pod, id: string): Promise<RuntimeContainer | undefined> =>
      (await runtime.listContainers({ podUid: p.metadata.uid })).find((c) => c.id === id);

    test('answers version', { skip: skip() }, async () => {
      const v = await runtime.version();
      assert.equal(v.runtimeName, rt.name);
      assert.ok(v.runtimeVersion.length > 0);
    });

    test(
      'runs a sandbox and a container, identified by pod and container',
      { skip: skip() },
      async () => {
        const p = pod('contract-run', [
          {
            name: 'main',
            image: 'busybox:local',
            command: ['sh', '-c', 'echo hello-contract; sleep 60'],
          },
        ]);
        const { sandbox, ids } = await startPod(p);
        const list = await runtime.listContainers({ podUid: p.metadata.uid });
        const sb = list.find((c) => c.id === sandbox);
        assert.equal(sb?.kind, 'sandbox');
        assert.equal(sb?.state, 'running');
        assert.ok(sb?.ip, 'sandbox has an IP');
        const c = list.find((x) => x.id === ids[0]);
        assert.equal(c?.state, 'running');
        assert.equal(c?.name, 'main');
        assert.equal(c?.kind, 'app');
        assert.equal(c?.podUid, p.metadata.uid);
        assert.equal(c?.podName, 'contract-run');
        assert.equal(c?.podNamespace, 'default');
        assert.equal(c?.specHash, 'h-main');
        assert.equal(c?.sandboxId, sandbox);
        assert.ok(c?.startedAtMs, 'startedAt is known');
        await waitFor('log line', async () =>
          (await runtime.logs(ids[0] as string)).includes('hello-contract'),
        );
        const ex = await runtime.exec(ids[0] as string, ['sh', '-c', 'echo out; exit 7'], 5000);
        assert.equal(ex.exitCode, 7);
        assert.match(ex.output, /out/);
      },
    );

    test('records exit codes and reports exits as events', { skip: skip() }, async () => {
      const p = pod('contract-exit', [
        { name: 'quits', image: 'busybox:local', command: ['sh', '-c', 'sleep 0.3; exit 3'] },
      ]);
      const exited: string[] = [];
      runtime.onEvent((e) => {
        if (e.type === 'exited' && e.podUid === p.metadata.uid) exited.push(e.containerId);
      });
      const { ids } = await startPod(p);
      const c = await waitFor('exit', async () => {
        const x = await detail(p, ids[0] as string);
        return x?.state === 'exited' ? x : undefined;
      });
      assert.equal(c.exitCode, 3);
      assert.ok(
        c.finishedAtMs !== undefined &&
          c.startedAtMs !== undefined &&
          c.finishedAtMs >= c.startedAtMs,
      );
      await waitFor('exit event', () => exited.includes(ids[0] as string));
    });

    test('stops with SIGTERM, and SIGKILL after the grace period', { skip: skip() }, async () => {
      const p = pod('contract-stop', [
        // a shell that exits on SIGTERM (a bare sleep as a container's pid 1 ignores it on CRI)
        {
          name: 'polite',
          image: 'busybox:local',
          command: ['sh', '-c', "trap 'exit 0' TERM; while :; do sleep 0.1; done"],
        },
        {
          name: 'stubborn',
          image: 'busybox:local',
          command: ['sh', '-c', "trap '' TERM; echo trapped; while :; do sleep 0.1; done"],
        },
      ]);
      const { ids } = await startPod(p);
      let t0 = Date.now();
      await runtime.stopContainer(ids[0] as string, 10);
      assert.ok(
        Date.now() - t0 < 5000,
        'a process that honours SIGTERM stops well before the grace period',
      );
      assert.equal((await find(ids[0] as string))?.state, 'exited');
      // SIGTERM must find the trap in place (a loaded machine may start the shell late)
      await waitFor('the stubborn container to ignore SIGTERM', async () =>
        (await runtime.logs(ids[1] as string)).includes('trapped'),
      );
      const stubborn = await find(ids[1] as string);
      assert.equal(
        stubborn?.state,
        'running',
        `the stubborn container still runs (exit ${stubborn?.exitCode}, log ${JSON.stringify(await runtime.logs(ids[1] as string))})`,
      );
      t0 = Date.now();
      await runtime.stopContainer(ids[1] as string, 1);
      const took = Date.now() - t0;
      assert.ok(took >= 900 && took < 8000, `SIGKILL after the 1 s grace period (took ${took} ms)`);
      assert.equal((await find(ids[1] as string))?.state, 'exited');
      await runtime.stopContainer(ids[1] as string, 1); // stopping a stopped container is fine
    });

    test(
      'a new runtime instance finds running containers (agent restart)',
      { skip: skip() },
      async () => {
        const p = pod('contract-adopt', [
          { name: 'long', image: 'busybox:local', command: ['sleep', '60'] },
        ]);
        const { ids } = await startPod(p);
        const again = rt.make(root.path);
        try {
          const c = (await again.listContainers({ podUid: p.metadata.uid })).find(
            (x) => x.id === ids[0],
          );
          assert.equal(c?.state, 'running');
          assert.equal(c?.name, 'long');
          await again.stopContainer(ids[0] as string, 1);
          const after = (await again.listContainers({ podUid: p.metadata.uid })).find(
            (x) => x.id === ids[0],
          );
          assert.equal(after?.state, 'exited');
        } finally {
          await again.close();
        }
      },
    );

    test('removes containers and sandboxes', { skip: skip() }, async () => {
      const p = pod('contract-rm', [
        { name: 'x', image: 'busybox:local', command: ['sleep', '60'] },
      ]);
      const { sandbox, ids } = await startPod(p);
      await runtime.removeContainer(ids[0] as string);
      await runtime.stopPodSandbox(sandbox, 1);
      await runtime.removePodSandbox(sandbox);
      assert.deepEqual(await runtime.listContainers({ podUid: p.metadata.uid }), []);
      await runtime.removeContainer(ids[0] as string); // removing twice is fine
    });
  });
}

const dockerReason = await dockerSkipReason();
contract(processRuntime, () => undefined);
contract(dockerRuntime, () => dockerReason);

const containerdReason = await containerdSkipReason();
let containerd: Containerd | undefined;
if (containerdReason === undefined) containerd = await startContainerd();
after(async () => {
  await containerd?.stop();
});
contract(
  criRuntimeOn(() => containerd),
  () => containerdReason,
);

test('process://: securityContext.runAsUser runs the process as that user', async (t) => {
  const root = await tempDir('na-uid-');
  const rt = processRuntime.make(root.path);
  t.after(async () => {
    await killProcessPods(root.path);
    await rt.close();
    await root.cleanup();
  });
  if (process.getuid?.() !== 0) {
    t.skip(skipOutsideCi('root (to switch users)', `running as uid ${String(process.getuid?.())}`));
    return;
  }
  const p = pod('uid', [
    {
      name: 'who',
      command: ['sh', '-c', 'id -u; sleep 30'],
      securityContext: { runAsUser: 65534, runAsGroup: 65534 },
    },
  ]);
  const sb = await rt.runPodSandbox({ pod: p, attempt: 0 });
  const id = await rt.createContainer({
    pod: p,
    container: p.spec.containers[0]!,
    kind: 'app',
    attempt: 0,
    specHash: 'h',
    sandboxId: sb,
    volumePaths: {},
  });
  await rt.startContainer(id);
  await waitFor('uid in the log', async () => (await rt.logs(id)).trim() === '65534');
});

test('process://: each container instance has its own part of the log', async (t) => {
  const root = await tempDir('na-logs-');
  const rt = processRuntime.make(root.path);
  t.after(async () => {
    await killProcessPods(root.path);
    await rt.close();
    await root.cleanup();
  });
  const p = pod('logs', [{ name: 'say', command: ['sh', '-c', 'echo "run $N"'] }]);
  const sb = await rt.runPodSandbox({ pod: p, attempt: 0 });
  const ids: string[] = [];
  for (let i = 0; i < 2; i++) {
    const c = { ...p.spec.containers[0]!, env: [{ name: 'N', value: String(i) }] };
    const id = await rt.createContainer({
      pod: p,
      container: c,
      kind: 'app',
      attempt: i,
      specHash: 'h',
      sandboxId: sb,
      volumePaths: {},
    });
    await rt.startContainer(id);
    await waitFor(
      'exit',
      async () =>
        (await rt.listContainers({ podUid: p.metadata.uid })).find((x) => x.id === id)?.state ===
        'exited',
    );
    ids.push(id);
  }
  assert.equal(await rt.logs(ids[0] as string), 'run 0\n');
  assert.equal(await rt.logs(ids[1] as string), 'run 1\n');
});
