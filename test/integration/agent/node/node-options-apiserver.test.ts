// The BUILT agent registering with the BUILT plat-apiserver (platform profile, platform.io):
// --enable-controller-attach-detach puts the reference's annotation on the Node, and false
// removes it from the existing Node on the next start (the reference's reconcileCMADAnnotation);
// --pod-cidr with an API server is ignored, once in the log, and not put on the Node; the node
// status is a strategic merge patch, so a condition another party sets stays, and with
// --cloud-provider=external so do the addresses the cloud provider sets.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startApiServer, type StartedApiServer } from '../../../helpers/apiserver.js';
import { fetchText, waitFor } from '../../../helpers/server-https-request.js';
import { freePort } from '../../../helpers/processes.js';
import { startAgent as spawnAgent, type RunningAgent } from '../../../helpers/agent-process.js';
import { joinedAgentArgs } from '../../../helpers/joined-agent-args.js';

interface NodeObj {
  metadata: { annotations?: Record<string, string> };
  spec: { podCIDR?: string; podCIDRs?: string[] };
  status?: {
    addresses?: { type: string; address: string }[];
    conditions?: { type: string; status: string; lastHeartbeatTime?: string }[];
  };
}

const NODE = 'options-node-1';
/** The reference's annotation with the platform profile's domain (volumes.kubernetes.io/... upstream). */
const CMAD = 'volumes.platform.io/controller-managed-attach-detach';
/** alpha.kubernetes.io/provided-node-ip upstream. */
const PROVIDED_IP = 'alpha.platform.io/provided-node-ip';
let api: StartedApiServer;
let dir: string;
let agent: RunningAgent | undefined;
/** The output of the agent started last. */
const agentOut = (): string => agent?.output() ?? '';

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'nodeagent-node-options-'));
  api = await startApiServer({});
});

after(async () => {
  await agent?.stop();
  await api?.stop();
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

async function startAgent(extra: readonly string[]): Promise<void> {
  await agent?.stop();
  agent = spawnAgent([
    ...joinedAgentArgs({ platconfig: api.adminPlatconfig, dir, node: NODE }),
    '--enable-server=false',
    '--read-only-port=0',
    '--healthz-port=0',
    ...extra,
  ]);
}

async function nodeWhere(what: string, ok: (n: NodeObj) => boolean): Promise<NodeObj> {
  let node: NodeObj | undefined;
  await waitFor(
    async () => {
      const r = await api.request('GET', `/api/v1/nodes/${NODE}`);
      node = r.status === 200 ? (r.json as unknown as NodeObj) : undefined;
      return node !== undefined && ok(node);
    },
    `${what} (agent output: ${agentOut().slice(-2000)})`,
    30_000,
    100,
  );
  assert.ok(node !== undefined);
  return node;
}

test('--enable-controller-attach-detach: the node carries volumes.<domain>/controller-managed-attach-detach "true"; false removes it', async () => {
  await startAgent([]);
  const on = await nodeWhere(
    'the node with the annotation',
    (n) => n.metadata.annotations?.[CMAD] !== undefined,
  );
  assert.equal(on.metadata.annotations?.[CMAD], 'true');
  await startAgent(['--enable-controller-attach-detach=false', '--pod-cidr=10.244.7.0/24']);
  const off = await nodeWhere(
    'the annotation removed',
    (n) => n.metadata.annotations?.[CMAD] === undefined,
  );
  // With an API server --pod-cidr is ignored (the reference takes node.spec.podCIDRs); it says so once.
  assert.equal(off.spec.podCIDR, undefined);
  assert.equal(
    agentOut().split('--pod-cidr is ignored with an API server').length - 1,
    1,
    agentOut().slice(-2000),
  );
  await waitFor(
    () =>
      Promise.resolve(
        agentOut().includes(
          'Controller attach-detach setting changed to false; updating existing Node',
        ),
      ),
    'the reference log line',
    10_000,
    100,
  );
  assert.match(
    agentOut(),
    /Controller attach\/detach is disabled for this node; Kubelet will attach and detach volumes/,
  );
});

test('--register-node=false registers no Node; --enable-server=false opens nothing on --port; --healthz-bind-address moves the healthz server', async () => {
  const [port, healthzPort] = [await freePort(), await freePort()];
  const other = 'options-node-unregistered';
  await startAgent([
    `--hostname-override=${other}`,
    '--register-node=false',
    `--port=${port}`,
    '--healthz-bind-address=127.0.0.2',
    `--healthz-port=${healthzPort}`,
  ]);
  await waitFor(
    () => agentOut().includes('agent servers started'),
    `the agent servers (agent output: ${agentOut().slice(-2000)})`,
    30_000,
    100,
  );
  assert.match(
    agentOut(),
    /registerNode is false \(--register-node=false\): the node is not registered/,
  );
  assert.equal((await api.request('GET', `/api/v1/nodes/${other}`)).status, 404);
  assert.equal((await fetchText(`http://127.0.0.2:${healthzPort}/healthz`)).body, 'ok');
  await assert.rejects(fetchText(`http://127.0.0.1:${healthzPort}/healthz`), /ECONNREFUSED/);
  await assert.rejects(fetchText(`https://127.0.0.1:${port}/healthz`), /ECONNREFUSED/);
});

const heartbeat = (n: NodeObj, type: string): number =>
  Date.parse(n.status?.conditions?.find((c) => c.type === type)?.lastHeartbeatTime ?? '') || 0;

/** Waits for two more status updates of the agent (it sends one a second here). */
async function twoUpdatesAfter(ms: number): Promise<NodeObj> {
  return nodeWhere('two status updates', (n) => heartbeat(n, 'Ready') >= ms + 2000);
}

test('node status: a condition another party sets stays; with --cloud-provider=external the node carries alpha.<domain>/provided-node-ip and the addresses the cloud provider sets stay; without, the agent replaces them whole', async () => {
  const config = join(dir, 'status-every-second.yaml');
  await writeFile(
    config,
    'apiVersion: nodeagent.config.platform.io/v1beta1\nkind: NodeAgentConfiguration\n' +
      'nodeStatusUpdateFrequency: 1s\nnodeStatusReportFrequency: 1s\n',
  );
  await startAgent([`--config=${config}`, '--cloud-provider=external']);
  const annotated = await nodeWhere(
    'the provided-node-ip annotation',
    (n) => n.metadata.annotations?.[PROVIDED_IP] !== undefined,
  );
  assert.equal(annotated.metadata.annotations?.[PROVIDED_IP], '127.0.0.1');
  // What a cloud controller manager and node-problem-detector write.
  const cloud = [
    { type: 'InternalIP', address: '10.20.30.40' },
    { type: 'ExternalIP', address: '203.0.113.9' },
    { type: 'Hostname', address: NODE },
  ];
  const now = new Date(Math.floor(Date.now() / 1000) * 1000);
  const deadlock = {
    type: 'KernelDeadlock',
    status: 'False',
    reason: 'KernelHasNoDeadlock',
    message: 'kernel has no deadlock',
    lastHeartbeatTime: now.toISOString().replace('.000Z', 'Z'),
    lastTransitionTime: now.toISOString().replace('.000Z', 'Z'),
  };
  const patched = await api.request('PATCH', `/api/v1/nodes/${NODE}/status`, {
    body: { status: { addresses: [{ $patch: 'replace' }, ...cloud], conditions: [deadlock] } },
    contentType: 'application/strategic-merge-patch+json',
  });
  assert.equal(patched.status, 200, patched.text);
  const kept = await twoUpdatesAfter(now.getTime());
  assert.deepEqual(kept.status?.addresses, cloud);
  assert.deepEqual(kept.status?.conditions?.map((c) => `${c.type}=${c.status}`).sort(), [
    'DiskPressure=False',
    'KernelDeadlock=False',
    'MemoryPressure=False',
    'PIDPressure=False',
    'Ready=True',
  ]);
  // Without an external cloud provider the agent owns the addresses: its own replace the cloud's
  // whole (a merge by type would keep the ExternalIP), and the annotation goes.
  await startAgent([`--config=${config}`]);
  const own = await nodeWhere(
    "the agent's own addresses",
    (n) => n.status?.addresses?.[0]?.address === '127.0.0.1',
  );
  assert.deepEqual(own.status?.addresses, [
    { type: 'InternalIP', address: '127.0.0.1' },
    { type: 'Hostname', address: NODE },
  ]);
  assert.equal(own.metadata.annotations?.[PROVIDED_IP], undefined);
  const later = await twoUpdatesAfter(Date.now());
  assert.ok(
    later.status?.conditions?.some((c) => c.type === 'KernelDeadlock'),
    JSON.stringify(later.status?.conditions),
  );
});
