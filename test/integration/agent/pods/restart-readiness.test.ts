// A restarted agent adopts its running pods and the API server sees their true readiness at
// once: within a few probe periods, not after minutes (the status is sent on adoption, not only
// when the agent's own view changes). Built plat-apiserver, in-process agent, process://.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { silentLogger } from '../../../../src/common/log/types.js';
import { waitFor } from './agent-harness.js';
import { joinedAgentScene } from './joined-agent.js';

interface Condition {
  type: string;
  status: string;
}

test(
  'after an agent restart the adopted pod is Ready in the API server within seconds',
  { timeout: 120_000 },
  async (t) => {
    const { api, start, stop } = await joinedAgentScene(t, 'na-restart-ready-');
    const node = 'restart-node';
    const created = await api.request('POST', '/api/v1/namespaces/default/pods', {
      body: {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'steady' },
        spec: {
          nodeName: node,
          terminationGracePeriodSeconds: 1,
          containers: [
            {
              name: 'c',
              image: 'none',
              command: ['sleep', '300'],
              readinessProbe: { exec: { command: ['true'] }, periodSeconds: 1 },
            },
          ],
        },
      },
    });
    assert.equal(created.status, 201, created.text);
    const readyOf = async (): Promise<{ ready?: string; id?: string }> => {
      const r = await api.request('GET', '/api/v1/namespaces/default/pods/steady');
      const st = r.json?.['status'] as
        { conditions?: Condition[]; containerStatuses?: { containerID?: string }[] } | undefined;
      const ready = st?.conditions?.find((c) => c.type === 'Ready')?.status;
      const id = st?.containerStatuses?.[0]?.containerID;
      return { ...(ready !== undefined ? { ready } : {}), ...(id !== undefined ? { id } : {}) };
    };
    start({ node, logger: silentLogger() });
    await waitFor('the pod Ready', async () => (await readyOf()).ready === 'True', 30_000);
    const before = await readyOf();

    await stop();
    // The stopped agent cannot see the pod: mark it not ready as a stale view would show it, so
    // that only the restarted agent's status can make it Ready again.
    const cur = (await api.request('GET', '/api/v1/namespaces/default/pods/steady')).json ?? {};
    const status = cur['status'] as { conditions?: Condition[] };
    const stale = {
      ...cur,
      status: {
        ...status,
        conditions: (status.conditions ?? []).map((c) =>
          c.type === 'Ready' || c.type === 'ContainersReady' ? { ...c, status: 'False' } : c,
        ),
      },
    };
    const put = await api.request('PUT', '/api/v1/namespaces/default/pods/steady/status', {
      body: stale,
    });
    assert.equal(put.status, 200, put.text);
    assert.equal((await readyOf()).ready, 'False');

    start({ node, logger: silentLogger() });
    const t0 = Date.now();
    // waited for longer than the bound below, so a slow answer fails with its time, not a timeout
    await waitFor(
      'the adopted pod Ready again',
      async () => (await readyOf()).ready === 'True',
      60_000,
    );
    const took = Date.now() - t0;
    const after = await readyOf();
    assert.equal(after.id, before.id, 'the same container, adopted, not restarted');
    assert.ok(took < 15_000, `Ready again after ${took} ms (the bound: 15 s)`);
  },
);
