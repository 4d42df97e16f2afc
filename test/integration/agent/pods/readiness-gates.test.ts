// Readiness gates end to end: a controller (here the test, as the admin) sets the gate's condition
// through pods/status; the agent turns Ready True only then, with the reference's reason and
// messages before, and its own status writes never remove or revert the controller's condition.
// (The reference's e2e "Pods should support pod readiness gates [NodeConformance]".) Built
// plat-apiserver, in-process agent, process://.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { silentLogger } from '../../../../src/common/log/types.js';
import { waitFor } from './agent-harness.js';
import { joinedAgentScene } from './joined-agent.js';

interface Condition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
}

const GATE = 'k8s.io/test-condition1';

test(
  'readiness gates: Ready waits for the gate condition a controller sets through pods/status, which the agent keeps',
  { timeout: 120_000 },
  async (t) => {
    const { api, start } = await joinedAgentScene(t, 'na-gates-');
    const node = 'gates-node';
    const path = '/api/v1/namespaces/default/pods/gated';
    const created = await api.request('POST', '/api/v1/namespaces/default/pods', {
      body: {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'gated' },
        spec: {
          nodeName: node,
          terminationGracePeriodSeconds: 1,
          readinessGates: [{ conditionType: GATE }],
          containers: [{ name: 'c', image: 'none', command: ['sleep', '300'] }],
        },
      },
    });
    assert.equal(created.status, 201, created.text);
    const conditions = async (): Promise<Condition[]> => {
      const r = await api.request('GET', path);
      return (r.json?.['status'] as { conditions?: Condition[] } | undefined)?.conditions ?? [];
    };
    const ready = async (): Promise<Condition | undefined> =>
      (await conditions()).find((c) => c.type === 'Ready');
    const setGate = async (status: string): Promise<void> => {
      const r = await api.request('PATCH', `${path}/status`, {
        contentType: 'application/strategic-merge-patch+json',
        body: { status: { conditions: [{ type: GATE, status }] } },
      });
      assert.equal(r.status, 200, r.text);
    };
    start({ node, logger: silentLogger() });

    const missing = await waitFor(
      'Ready False for the missing gate condition',
      async () => {
        const cs = await conditions();
        const containersReady = cs.find((c) => c.type === 'ContainersReady')?.status === 'True';
        const r = cs.find((c) => c.type === 'Ready');
        return containersReady && r?.reason === 'ReadinessGatesNotReady' ? r : undefined;
      },
      30_000,
    );
    assert.equal(missing.status, 'False');
    assert.equal(
      missing.message,
      `corresponding condition of pod readiness gate "${GATE}" does not exist.`,
    );

    await setGate('False');
    await waitFor(
      'Ready names the gate status False',
      async () =>
        (await ready())?.message ===
        `the status of pod readiness gate "${GATE}" is not "True", but False`,
      30_000,
    );

    await setGate('True');
    await waitFor('Ready True', async () => (await ready())?.status === 'True', 30_000);
    // the agent has written its status since; the controller's condition is still there, True
    const gate = (await conditions()).find((c) => c.type === GATE);
    assert.equal(gate?.status, 'True');

    await setGate('False');
    await waitFor(
      'Ready False again when the gate goes False',
      async () => (await ready())?.status === 'False',
      30_000,
    );
    assert.equal((await conditions()).find((c) => c.type === GATE)?.status, 'False');
  },
);
