// Shared e2e scenario for static pods: the BUILT agent (node bin/nodeagent) on a manifest
// directory, pods that serve HTTP on 127.0.0.1, observed from outside (HTTP and the runtime).
import { writeFile, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tempDir, waitFor } from '../integration/agent/pods/agent-harness.js';
import type { RuntimeContainer } from '../../src/agent/runtime/types.js';
import {
  killProcessPods,
  removeDockerPodsNamed,
  type RuntimeUnderTest,
} from '../integration/agent/pods/runtimes.js';
import { freePort } from '../helpers/processes.js';
import { NO_CGROUPS_ARGS } from '../helpers/agent-cgroups.js';
import { testPodLogsArgs } from '../helpers/agent-pod-logs.js';
export { freePort };
export { startAgent, type RunningAgent } from '../helpers/agent-process.js';
import { startAgent, type RunningAgent } from '../helpers/agent-process.js';

/** How many times the agent has logged a finished sync of the static pod `name` (V(4)). */
function syncsOf(agent: RunningAgent, name: string): number {
  return agent
    .output()
    .split('\n')
    .filter((l) => l.includes('] pod synced ') && l.includes(`pod=default/${name}-`)).length;
}

export async function httpText(port: number): Promise<string | undefined> {
  try {
    const r = await fetch(`http://127.0.0.1:${port}/`, { signal: AbortSignal.timeout(1000) });
    return r.ok ? (await r.text()).trim() : undefined;
  } catch {
    return undefined;
  }
}

/** A manifest for a web pod answering `text` on `port`, for the runtime under test. */
export function webManifest(
  rt: RuntimeUnderTest,
  name: string,
  port: number,
  text: string,
): string {
  if (rt.name === 'process') {
    const js = `require('http').createServer((q,s)=>s.end(process.env.TEXT+'\\n')).listen(${port},'127.0.0.1')`;
    return JSON.stringify({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name },
      spec: {
        terminationGracePeriodSeconds: 5,
        containers: [
          { name: 'web', command: ['node', '-e', js], env: [{ name: 'TEXT', value: text }] },
        ],
      },
    });
  }
  return JSON.stringify({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name },
    spec: {
      terminationGracePeriodSeconds: 5,
      containers: [
        {
          name: 'web',
          image: 'busybox:local',
          imagePullPolicy: 'Never',
          command: [
            'sh',
            '-c',
            `mkdir -p /www && echo "$TEXT" > /www/index.html && exec httpd -f -p 8080 -h /www`,
          ],
          env: [{ name: 'TEXT', value: text }],
          ports: [{ containerPort: 8080, hostPort: port }],
        },
      ],
    },
  });
}

export function commandManifest(
  rt: RuntimeUnderTest,
  name: string,
  restartPolicy: string,
  script: string,
): string {
  return JSON.stringify({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name },
    spec: {
      restartPolicy,
      terminationGracePeriodSeconds: 2,
      containers: [
        {
          name: 'job',
          command: ['sh', '-c', script],
          ...(rt.name === 'docker' ? { image: 'busybox:local', imagePullPolicy: 'Never' } : {}),
        },
      ],
    },
  });
}

async function containersOf(
  rt: RuntimeUnderTest,
  rootDir: string,
  podPrefix: string,
): Promise<RuntimeContainer[]> {
  // an observer only: a second writer on the agent's state could undo the agent's removals
  const r = (rt.observe ?? rt.make)(rootDir);
  try {
    const all = await r.listContainers();
    const uids = new Set(all.filter((c) => c.podName.startsWith(podPrefix)).map((c) => c.podUid));
    const out: RuntimeContainer[] = [];
    for (const uid of uids) out.push(...(await r.listContainers({ podUid: uid })));
    return out;
  } finally {
    await r.close();
  }
}

export function staticPodsScenario(rt: RuntimeUnderTest, skip: string | undefined): void {
  test(
    `static pods on ${rt.name}: written → running, edited → replaced, deleted → removed, restart policies, agent restart`,
    { skip, timeout: 120_000 },
    async (t) => {
      const root = await tempDir(`na-e2e-${rt.name}-`);
      const manifests = await tempDir(`na-e2e-manifests-${rt.name}-`);
      const node = `e2e-${rt.name}-${process.pid}`;
      const args = [
        '--pod-manifest-path',
        manifests.path,
        '--container-runtime-endpoint',
        rt.endpoint(root.path),
        '--root-dir',
        root.path,
        '--hostname-override',
        node,
        '--file-check-frequency',
        '1s',
        '--sync-frequency',
        '5s',
        '--fail-cgroupv1=false',
        ...NO_CGROUPS_ARGS,
        ...testPodLogsArgs(root.path),
        '-v=4', // "pod synced" lines (V(4)) tell the test a sync happened
        '--enable-server=false',
        '--healthz-port=0',
        '--read-only-port=0',
      ];
      let agent = startAgent(args);
      t.after(async () => {
        await agent.stop();
        if (rt.name === 'docker') await removeDockerPodsNamed(`e2e-`);
        await killProcessPods(root.path);
        await root.cleanup();
        await manifests.cleanup();
      });
      const fail = (what: string) => (err: unknown) => {
        throw new Error(
          `${what}: ${String(err)}\n--- agent output ---\n${agent.output().slice(-4000)}`,
        );
      };

      // written → running
      const port = await freePort();
      const webFile = join(manifests.path, 'web.json');
      const t0 = Date.now();
      await writeFile(webFile, webManifest(rt, 'e2e-web', port, 'version-1'));
      await waitFor(
        'the pod to answer',
        async () => (await httpText(port)) === 'version-1',
        30_000,
      ).catch(fail('written → running'));
      t.diagnostic(`manifest written → answering in ${Date.now() - t0} ms`);
      const [first] = (await containersOf(rt, root.path, 'e2e-web')).filter(
        (c) => c.kind === 'app' && c.state === 'running',
      );
      assert.ok(first, 'a running app container');
      assert.equal(first.podName, `e2e-web-${node}`);

      // the agent restarted: healthy containers are adopted, not restarted
      assert.equal(await agent.stop(), 0);
      assert.equal(await httpText(port), 'version-1', 'the pod outlives the agent');
      agent = startAgent(args);
      // The restarted agent's first sync of the pod is where it would (wrongly) restart anything.
      await waitFor(
        'the restarted agent to sync the pod',
        () => syncsOf(agent, 'e2e-web') >= 1,
        20_000,
      ).catch(fail('restart'));
      const after = (await containersOf(rt, root.path, 'e2e-web')).filter((c) => c.kind === 'app');
      assert.deepEqual(
        after.map((c) => [c.id, c.state]),
        [[first.id, 'running']],
        'same container, still running, none added',
      );
      assert.equal(await httpText(port), 'version-1');

      // edited → replaced
      await writeFile(webFile, webManifest(rt, 'e2e-web', port, 'version-2'));
      await waitFor(
        'the edited pod to answer',
        async () => (await httpText(port)) === 'version-2',
        30_000,
      ).catch(fail('edited → replaced'));
      await waitFor(
        'the old container to be gone',
        async () => !(await containersOf(rt, root.path, 'e2e-web')).some((c) => c.id === first.id),
        20_000,
      ).catch(fail('old removed'));

      // restart policies
      await writeFile(
        join(manifests.path, 'never.json'),
        commandManifest(rt, 'e2e-never', 'Never', 'exit 3'),
      );
      await writeFile(
        join(manifests.path, 'always.json'),
        commandManifest(rt, 'e2e-always', 'Always', 'exit 1'),
      );
      await waitFor(
        'Always to restart once',
        async () =>
          (await containersOf(rt, root.path, 'e2e-always')).filter((c) => c.kind === 'app')
            .length >= 2,
        30_000,
      ).catch(fail('Always'));
      await waitFor(
        'Never to exit',
        async () =>
          (await containersOf(rt, root.path, 'e2e-never')).some(
            (c) => c.kind === 'app' && c.state === 'exited',
          ),
        30_000,
      ).catch(fail('Never'));
      // Two more syncs of the exited pod: each would have restarted it, were Never not honoured.
      const seen = syncsOf(agent, 'e2e-never');
      await waitFor(
        'two more syncs of the Never pod',
        () => syncsOf(agent, 'e2e-never') >= seen + 2,
        30_000,
      ).catch(fail('Never synced'));
      const never = (await containersOf(rt, root.path, 'e2e-never')).filter(
        (c) => c.kind === 'app',
      );
      assert.equal(never.length, 1, 'restartPolicy Never: not restarted');
      assert.equal(never[0]?.exitCode, 3);
      const always = (await containersOf(rt, root.path, 'e2e-always')).filter(
        (c) => c.kind === 'app',
      );
      assert.ok(
        always.length <= 3,
        `back-off, not a tight loop (${always.length} instances in a few seconds)`,
      );

      // deleted → removed
      await unlink(webFile);
      await waitFor(
        'the pod to stop answering',
        async () => (await httpText(port)) === undefined,
        30_000,
      ).catch(fail('deleted'));
      await waitFor(
        'its containers to be removed',
        async () => (await containersOf(rt, root.path, 'e2e-web')).length === 0,
        30_000,
      ).catch(fail('deleted → removed'));
      assert.equal(await agent.stop(), 0);
    },
  );
}
