// The BUILT agent registering with the BUILT plat-apiserver (platform profile, platform.io):
// --enable-controller-attach-detach puts the reference's annotation on the Node, and false
// removes it from the existing Node on the next start (the reference's reconcileCMADAnnotation);
// --pod-cidr with an API server is ignored, once in the log, and not put on the Node.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
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
}

const NODE = 'options-node-1';
/** The reference's annotation with the platform profile's domain (volumes.kubernetes.io/... upstream). */
const CMAD = 'volumes.platform.io/controller-managed-attach-detach';
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
