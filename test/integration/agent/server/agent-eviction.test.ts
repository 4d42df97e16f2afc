// Eviction in the BUILT agent joined to the BUILT plat-apiserver: a hard threshold that is always
// met (memory.available<100%) puts the node under MemoryPressure and evicts the static pod
// (status Failed/Evicted, its process stopped), with Evicted and EvictionThresholdMet events.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
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

const NODE = 'evict-node';
let api: StartedApiServer;
let rest: RestClient;
let agent: RunningAgent | undefined;
let dir: string;
let readOnlyPort: number;

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'nodeagent-evict-'));
  await mkdir(join(dir, 'manifests'));
  await writeFile(
    join(dir, 'manifests', 'hog.json'),
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'hog' },
      spec: {
        terminationGracePeriodSeconds: 1,
        containers: [{ name: 'c', command: ['node', '-e', 'setInterval(() => {}, 1000)'] }],
      },
    }),
  );
  api = await startApiServer({ platformDomain: 'k8s.io' });
  rest = new RestClient({
    connection: await loadConnection(api.adminPlatconfig),
    retry: { maxRetries: 0 },
  });
  readOnlyPort = await freePort();
  agent = startAgent([
    ...joinedAgentArgs({
      platconfig: api.adminPlatconfig,
      dir,
      node: NODE,
      platformDomain: 'k8s.io',
    }),
    '--address=127.0.0.1',
    `--port=${await freePort()}`,
    `--read-only-port=${readOnlyPort}`,
    '--healthz-port=0',
    '--eviction-hard=memory.available<100%',
    '--eviction-pressure-transition-period=1m',
    '--node-status-update-frequency=1s',
    `--pod-manifest-path=${join(dir, 'manifests')}`,
    '--file-check-frequency=1s',
  ]);
});

after(async () => {
  await agent?.stop();
  await rest?.close();
  await api?.stop();
  if (dir !== undefined) await killProcessPods(join(dir, 'root'));
  await rm(dir, { recursive: true, force: true });
});

test('a met hard threshold: MemoryPressure, the pod evicted, events Evicted and EvictionThresholdMet', async () => {
  const fail = (err: unknown): never => {
    throw new Error(
      `${(err as Error).message}\n--- agent output ---\n${agent?.output().slice(-3000) ?? ''}`,
    );
  };
  await waitFor(
    async () => {
      try {
        const node = (await rest.request({ path: `/api/v1/nodes/${NODE}` })) as {
          status: { conditions?: { type: string; status: string }[] };
        };
        return (
          node.status.conditions?.some(
            (c) => c.type === 'MemoryPressure' && c.status === 'True',
          ) === true
        );
      } catch {
        return false;
      }
    },
    'MemoryPressure=True on the node',
    30_000,
    200,
  ).catch(fail);
  const node = (await rest.request({ path: `/api/v1/nodes/${NODE}` })) as {
    status: { allocatable: Record<string, string> };
  };
  assert.equal(
    node.status.allocatable.memory,
    '0',
    'a 100% hard threshold leaves no allocatable memory',
  );
  let phase = '';
  await waitFor(
    async () => {
      const r = await fetchText(`http://127.0.0.1:${readOnlyPort}/pods`).catch(() => undefined);
      if (r?.status !== 200) return false;
      const pods = JSON.parse(r.body) as {
        items: { metadata: { name: string }; status?: { phase?: string; reason?: string } }[];
      };
      const hog = pods.items.find((p) => p.metadata.name === `hog-${NODE}`);
      phase = `${hog?.status?.phase ?? ''}/${hog?.status?.reason ?? ''}`;
      return phase === 'Failed/Evicted';
    },
    'the pod to be evicted',
    40_000,
    250,
  ).catch(fail);
  await waitFor(
    async () => {
      const list = (await rest.request({ path: '/api/v1/namespaces/default/events' })) as {
        items: { reason: string; involvedObject: { kind: string; name: string } }[];
      };
      const got = new Set(list.items.map((e) => `${e.involvedObject.kind}/${e.reason}`));
      return (
        got.has('Pod/Evicted') &&
        got.has('Pod/Killing') &&
        got.has('Node/EvictionThresholdMet') &&
        got.has('Node/NodeHasInsufficientMemory')
      );
    },
    'the eviction events',
    20_000,
    200,
  ).catch(fail);
});
