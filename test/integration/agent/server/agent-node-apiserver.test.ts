// The BUILT agent joined to the BUILT plat-apiserver (--platform-domain=k8s.io): the Node object
// with its labels, taints, addresses and conditions; the agent's events, also through kubectl;
// the agent's server answering only whom it should (TokenReview and SubjectAccessReview at
// plat-apiserver); and the agent carrying on when plat-apiserver goes away.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RestClient } from '../../../../src/agent/client/rest-client.js';
import { loadConnection } from '../../../../src/common/platconfig/platconfig.js';
import { startApiServer, type StartedApiServer } from '../../../helpers/apiserver.js';
import { fetchText, waitFor } from '../../../helpers/server-https-request.js';
import { killProcessPods } from '../pods/runtimes.js';
import { freePort } from '../../../helpers/processes.js';
import { startAgent, type RunningAgent } from '../../../helpers/agent-process.js';
import { joinedAgentArgs } from '../../../helpers/joined-agent-args.js';
import { detectCgroupVersion } from '../../../../src/agent/cli/host-checks.js';

interface NodeObj {
  metadata: { labels: Record<string, string> };
  spec: { taints?: { key: string; value?: string; effect: string }[]; providerID?: string };
  status: {
    addresses: { type: string; address: string }[];
    conditions: { type: string; status: string; reason: string }[];
    capacity: Record<string, string>;
    allocatable: Record<string, string>;
    nodeInfo: { kubeletVersion: string };
  };
}

let api: StartedApiServer;
let rest: RestClient;
let agent: RunningAgent | undefined;
const agentOut = (): string => agent?.output() ?? '';
let dir: string;
let port: number;
let healthzPort: number;
const NODE = 'agent-node-1';

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'nodeagent-join-'));
  const tokens = join(dir, 'tokens.csv');
  await writeFile(tokens, 'admin-token,root,1,"system:masters"\nviewer-token,viewer,2,"viewers"\n');
  api = await startApiServer({
    args: [`--token-auth-file=${tokens}`, '--authorization-mode=AlwaysDeny'],
    platformDomain: 'k8s.io',
  });
  rest = new RestClient({
    connection: await loadConnection(api.adminPlatconfig),
    retry: { maxRetries: 0 },
  });
  port = await freePort();
  healthzPort = await freePort();
  await mkdir(join(dir, 'manifests'));
  await writeFile(
    join(dir, 'manifests', 'talker.json'),
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'talker' },
      spec: {
        terminationGracePeriodSeconds: 1,
        containers: [
          {
            name: 'c',
            command: [
              'node',
              '-e',
              "console.log('hello from talker'); setInterval(() => {}, 1000)",
            ],
          },
        ],
      },
    }),
  );
  agent = startAgent([
    ...joinedAgentArgs({
      platconfig: api.adminPlatconfig,
      dir,
      node: NODE.toUpperCase(),
      platformDomain: 'k8s.io',
    }),
    '--node-labels=node.k8s.io/pool=blue,example.com/team=infra',
    '--register-with-taints=dedicated=infra:NoSchedule',
    '--cloud-provider=external',
    '--provider-id=test://agent-node-1',
    '--address=127.0.0.1',
    `--port=${port}`,
    '--read-only-port=0',
    `--healthz-port=${healthzPort}`,
    '--anonymous-auth=false',
    '--authentication-token-webhook',
    '--authorization-mode=Webhook',
    `--client-ca-file=${api.clusterCaFile}`,
    '--node-status-update-frequency=1s',
    '--version=v1.2.3-test',
    `--pod-manifest-path=${join(dir, 'manifests')}`,
    '--file-check-frequency=1s',
  ]);
});

after(async () => {
  await agent?.stop();
  await rest?.close();
  await api?.stop();
  // The agent leaves its pods running when it stops, as the reference does: end them here.
  if (dir !== undefined) await killProcessPods(join(dir, 'root'));
  await rm(dir, { recursive: true, force: true });
});

/** Waits until the agent's HTTPS server answers (it starts after the node part). */
async function serverUp(): Promise<void> {
  await waitFor(
    async () =>
      (await fetchText(`https://127.0.0.1:${port}/healthz`).catch(() => ({ status: 0 }))).status !==
      0,
    'the agent server',
    20_000,
    100,
  ).catch((err: unknown) => {
    throw new Error(`${(err as Error).message}\n--- agent output ---\n${agentOut().slice(-3000)}`);
  });
}

async function getNode(): Promise<NodeObj | undefined> {
  try {
    return (await rest.request({ path: `/api/v1/nodes/${NODE}` })) as NodeObj;
  } catch {
    return undefined;
  }
}

test('the agent registers a Ready node with its labels, taints, addresses and conditions', async () => {
  let node: NodeObj | undefined;
  await waitFor(
    async () => {
      node = await getNode();
      return (
        node?.status.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true
      );
    },
    `node ${NODE} to be Ready (agent output: ${agentOut().slice(-2000)})`,
    30_000,
    100,
  );
  assert.ok(node !== undefined);
  const l = node.metadata.labels;
  assert.equal(l['k8s.io/hostname'], NODE);
  assert.equal(l['k8s.io/os'], 'linux');
  assert.equal(l['beta.k8s.io/os'], 'linux');
  assert.ok(l['k8s.io/arch'] !== undefined && l['beta.k8s.io/arch'] === l['k8s.io/arch']);
  assert.equal(l['node.k8s.io/pool'], 'blue');
  assert.equal(l['example.com/team'], 'infra');
  assert.deepEqual(node.spec.taints?.map((t) => `${t.key}=${t.value ?? ''}:${t.effect}`).sort(), [
    'dedicated=infra:NoSchedule',
    'node.cloudprovider.k8s.io/uninitialized=true:NoSchedule',
  ]);
  assert.equal(node.spec.providerID, 'test://agent-node-1');
  assert.deepEqual(node.status.addresses, [
    { type: 'InternalIP', address: '127.0.0.1' },
    { type: 'Hostname', address: NODE },
  ]);
  // --version=vX.Y.Z sets the version the agent reports.
  assert.equal(node.status.nodeInfo.kubeletVersion, 'v1.2.3-test');
  assert.deepEqual(
    node.status.conditions.map((c) => `${c.type}=${c.status}`),
    ['MemoryPressure=False', 'DiskPressure=False', 'PIDPressure=False', 'Ready=True'],
  );
  for (const r of ['cpu', 'memory', 'pods', 'ephemeral-storage'])
    assert.ok(node.status.capacity[r] !== undefined && node.status.allocatable[r] !== undefined, r);
  assert.equal(node.status.capacity.pods, '110');
});

test("the agent's events are in plat-apiserver, and kubectl get events shows them", async (t) => {
  let reasons: string[] = [];
  // On a cgroup v1 host, the reference's Warning CgroupV1 as well.
  const v1 = (await detectCgroupVersion('/sys/fs/cgroup')) === 'v1';
  const expected = ['Starting', 'NodeReady', 'RegisteredNode', ...(v1 ? ['CgroupV1'] : [])];
  await waitFor(
    async () => {
      const list = (await rest.request({ path: '/api/v1/namespaces/default/events' })) as {
        items: {
          reason: string;
          source: { component: string; host: string };
          involvedObject: { kind: string; name: string };
        }[];
      };
      const mine = list.items.filter(
        (e) =>
          e.source.component === 'nodeagent' &&
          e.source.host === NODE &&
          e.involvedObject.name === NODE,
      );
      reasons = mine.map((e) => e.reason);
      return expected.every((r) => reasons.includes(r));
    },
    'the node events',
    20_000,
    100,
  );
  if (spawnSync('kubectl', ['version', '--client'], { encoding: 'utf8' }).status !== 0) {
    t.diagnostic('kubectl is not installed: skipping the kubectl part');
    return;
  }
  const r = spawnSync(
    'kubectl',
    [
      `--kubeconfig=${api.adminPlatconfig}`,
      'get',
      'events',
      '-n',
      'default',
      '-o',
      'custom-columns=REASON:.reason,SOURCE:.source.component,HOST:.source.host,OBJECT:.involvedObject.name',
    ],
    { encoding: 'utf8', timeout: 20_000 },
  );
  assert.equal(r.status, 0, r.stderr);
  for (const reason of ['Starting', 'NodeReady', 'RegisteredNode'])
    assert.match(r.stdout, new RegExp(`^${reason}\\s+nodeagent\\s+${NODE}\\s+${NODE}$`, 'm'));
});

test('a static pod: its lifecycle events in plat-apiserver, its logs and exec through the agent server', async () => {
  const pod = `talker-${NODE}`;
  let reasons: string[] = [];
  await waitFor(
    async () => {
      const list = (await rest.request({ path: '/api/v1/namespaces/default/events' })) as {
        items: { reason: string; involvedObject: { kind: string; name: string } }[];
      };
      reasons = list.items
        .filter((e) => e.involvedObject.kind === 'Pod' && e.involvedObject.name === pod)
        .map((e) => e.reason);
      return reasons.includes('Created') && reasons.includes('Started');
    },
    `Created and Started events for ${pod}`,
    30_000,
    200,
  ).catch((err: unknown) => {
    throw new Error(
      `${(err as Error).message} (saw ${reasons.join(',')})\n--- agent output ---\n${agentOut().slice(-3000)}`,
    );
  });
  const base = `https://127.0.0.1:${port}`;
  await serverUp();
  let logs = '';
  await waitFor(
    async () => {
      const r = await fetchText(`${base}/containerLogs/default/${pod}/c?tailLines=5`, {
        token: 'admin-token',
      });
      logs = r.body;
      return r.status === 200 && logs.includes('hello from talker');
    },
    'the container log',
    15_000,
    200,
  ).catch((err: unknown) => {
    throw new Error(`${(err as Error).message}: ${logs}`);
  });
  const exec = await fetchText(`${base}/exec/default/${pod}/c?command=echo&command=exec-works`, {
    method: 'POST',
    token: 'admin-token',
  });
  assert.equal(exec.status, 200, exec.body);
  assert.match(exec.body, /exec-works/);
  assert.equal(exec.headers['x-exit-code'], '0');
  const pods = JSON.parse((await fetchText(`${base}/pods`, { token: 'admin-token' })).body) as {
    items: { metadata: { name: string } }[];
  };
  assert.ok(pods.items.some((p) => p.metadata.name === pod));
  const running = JSON.parse(
    (await fetchText(`${base}/runningpods/`, { token: 'admin-token' })).body,
  ) as { items: { metadata: { name: string }; spec: { containers: { name: string }[] } }[] };
  assert.deepEqual(
    running.items.find((p) => p.metadata.name === pod)?.spec.containers.map((c) => c.name),
    ['c'],
  );
  const stats = JSON.parse(
    (await fetchText(`${base}/stats/summary`, { token: 'admin-token' })).body,
  ) as {
    node: { nodeName: string; memory: { workingSetBytes: number } };
    pods: { podRef: { name: string } }[];
  };
  assert.equal(stats.node.nodeName, NODE);
  assert.ok(stats.node.memory.workingSetBytes > 0);
  assert.ok(
    stats.pods.some((p) => p.podRef.name === pod),
    'the running pod is in the summary',
  );
  const metrics = (await fetchText(`${base}/metrics`, { token: 'admin-token' })).body;
  assert.match(
    metrics,
    /^nodeagent_pod_start_duration_seconds_count [1-9]/m,
    'the pod start was measured',
  );
  await waitFor(
    async () =>
      /^nodeagent_sync_loop_duration_seconds_count [1-9]/m.test(
        (await fetchText(`${base}/metrics`, { token: 'admin-token' })).body,
      ),
    'sync-loop iterations to be timed',
    15_000,
    250,
  );
  assert.match(
    metrics,
    /^rest_client_requests_total\{code="201",method="POST",host="127\.0\.0\.1:\d+"\} [1-9]/m,
    'API requests are counted by code',
  );
});

test("deleting the static pod's manifest stops it with a Killing event", async () => {
  const pod = `talker-${NODE}`;
  await unlink(join(dir, 'manifests', 'talker.json'));
  await waitFor(
    async () => {
      const list = (await rest.request({ path: '/api/v1/namespaces/default/events' })) as {
        items: {
          reason: string;
          involvedObject: { kind: string; name: string; fieldPath?: string };
        }[];
      };
      return list.items.some(
        (e) =>
          e.involvedObject.name === pod &&
          e.reason === 'Killing' &&
          e.involvedObject.fieldPath === 'spec.containers{c}',
      );
    },
    `a Killing event for ${pod}`,
    30_000,
    200,
  ).catch((err: unknown) => {
    throw new Error(`${(err as Error).message}\n--- agent output ---\n${agentOut().slice(-3000)}`);
  });
});

test("the agent's server answers only whom it should", async () => {
  const base = `https://127.0.0.1:${port}`;
  await serverUp();
  assert.equal((await fetchText(`${base}/pods`)).status, 401);
  assert.equal((await fetchText(`${base}/pods`, { token: 'bad' })).status, 401);
  const viewer = await fetchText(`${base}/pods`, { token: 'viewer-token' });
  assert.equal(viewer.status, 403);
  assert.equal(viewer.body, 'Forbidden (user=viewer, verb=get, resource=nodes, subresource=proxy)');
  const admin = await fetchText(`${base}/pods`, { token: 'admin-token' });
  assert.equal(admin.status, 200);
  assert.equal((JSON.parse(admin.body) as { kind: string }).kind, 'PodList');
  const configz = await fetchText(`${base}/configz`, { token: 'admin-token' });
  assert.equal(configz.status, 200);
  assert.match(configz.body, /"nodeagentconfig"/);
  assert.match(
    (await fetchText(`${base}/metrics`, { token: 'admin-token' })).body,
    /nodeagent_certificate_manager_server_ttl_seconds \d/,
  );
  assert.equal((await fetchText(`http://127.0.0.1:${healthzPort}/healthz`)).body, 'ok');
});

test('plat-apiserver down: the agent keeps serving and running; new callers get 500, never an allow', async () => {
  await api.stop();
  const base = `https://127.0.0.1:${port}`;
  assert.equal((await fetchText(`http://127.0.0.1:${healthzPort}/healthz`)).body, 'ok');
  assert.equal(
    (await fetchText(`${base}/pods`, { token: 'admin-token' })).status,
    200,
    'cached answers still hold',
  );
  const fresh = await fetchText(`${base}/pods`, { token: 'never-seen' });
  assert.equal(fresh.status, 500);
  assert.match(fresh.body, /^Authentication error: token review failed/);
  assert.equal(agent?.child.exitCode, null, 'the agent is still running');
});
