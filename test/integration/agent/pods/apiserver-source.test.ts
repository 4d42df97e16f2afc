// Pods bound to the node through plat-apiserver run and report their status there; static pods
// appear as mirror pods with their status (built plat-apiserver, in-process agent, process://).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFile, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { silentLogger } from '../../../../src/common/log/types.js';
import { tempDir, waitFor } from './agent-harness.js';
import { joinedAgentScene } from './joined-agent.js';

test(
  'API server pods run and report status; static pods get mirror pods',
  { timeout: 90_000 },
  async (t) => {
    const { api, root, start } = await joinedAgentScene(t, 'na-apisrc-');
    const manifests = await tempDir('na-apisrc-m-');
    t.after(() => manifests.cleanup());
    const node = 'api-node';
    await writeFile(
      join(manifests.path, 'static.yaml'),
      'apiVersion: v1\nkind: Pod\nmetadata: {name: stat}\nspec: {containers: [{name: c, command: [sleep, "60"]}]}\n',
    );
    const created = await api.request('POST', '/api/v1/namespaces/default/pods', {
      body: {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'bound' },
        spec: {
          nodeName: node,
          terminationGracePeriodSeconds: 1,
          containers: [{ name: 'c', image: 'none', command: ['sleep', '60'] }],
        },
      },
    });
    assert.equal(created.status, 201, created.text);
    await api.request('POST', '/api/v1/namespaces/default/pods', {
      body: {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'nocommand' },
        spec: { nodeName: node, containers: [{ name: 'c', image: 'none' }] },
      },
    });
    await api.request('POST', '/api/v1/namespaces/default/pods', {
      body: {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'elsewhere' },
        spec: {
          nodeName: 'other-node',
          containers: [{ name: 'c', image: 'none', command: ['sleep', '60'] }],
        },
      },
    });

    start({
      node,
      config: { staticPodPath: manifests.path },
      logger: process.env.DEBUG_PODS
        ? (await import('pino')).default({ level: 'debug' })
        : silentLogger(),
    });

    const phaseOf = async (name: string): Promise<string | undefined> => {
      const r = await api.request('GET', `/api/v1/namespaces/default/pods/${name}`);
      return r.status === 200
        ? (r.json?.status as { phase?: string } | undefined)?.phase
        : undefined;
    };
    await waitFor(
      'the bound pod to report Running',
      async () => (await phaseOf('bound')) === 'Running',
      30_000,
    );
    const bound = (await api.request('GET', '/api/v1/namespaces/default/pods/bound')).json as {
      status: { containerStatuses: { state: { running?: unknown } }[] };
    };
    assert.ok(bound.status.containerStatuses[0]?.state.running, 'container status reported');
    assert.notEqual(await phaseOf('elsewhere'), 'Running', 'a pod of another node is not run');
    await waitFor(
      'a pod process:// cannot run to report Failed',
      async () => (await phaseOf('nocommand')) === 'Failed',
      15_000,
    );
    const nocmd = (await api.request('GET', '/api/v1/namespaces/default/pods/nocommand')).json as {
      status: { reason?: string; message?: string };
    };
    assert.equal(nocmd.status.reason, 'UnsupportedPod');
    assert.match(nocmd.status.message ?? '', /command: Required value/);

    await waitFor(
      'the mirror pod with status Running',
      async () => (await phaseOf(`stat-${node}`)) === 'Running',
      30_000,
    );
    const mirror = (await api.request('GET', `/api/v1/namespaces/default/pods/stat-${node}`))
      .json as { metadata: { annotations: Record<string, string>; ownerReferences?: unknown } };
    assert.ok(mirror.metadata.annotations['platform.io/config.mirror'], 'mirror annotation');
    // as the reference's: a controller owner reference to the Node (NodeRestriction requires it)
    const nodeUid = (
      (await api.request('GET', `/api/v1/nodes/${node}`)).json?.['metadata'] as { uid: string }
    ).uid;
    assert.deepEqual(mirror.metadata.ownerReferences, [
      { apiVersion: 'v1', kind: 'Node', name: node, uid: nodeUid, controller: true },
    ]);

    // deleting the bound pod through the API stops it here; deleting the manifest removes the mirror
    await api.request('DELETE', '/api/v1/namespaces/default/pods/bound');
    await unlink(join(manifests.path, 'static.yaml'));
    await waitFor(
      'the mirror pod to be deleted',
      async () =>
        (await api.request('GET', `/api/v1/namespaces/default/pods/stat-${node}`)).status === 404,
      30_000,
    );
    await waitFor(
      'the bound pod to be gone',
      async () =>
        (await api.request('GET', '/api/v1/namespaces/default/pods/bound')).status === 404,
      30_000,
    );
    const { ProcessRuntime } = await import('../../../../src/agent/runtime/process/runtime.js');
    await waitFor(
      'no containers left',
      async () => {
        const rt = new ProcessRuntime({
          rootDir: root,
          logger: silentLogger(),
          clock: (await import('../../../../src/common/util/clock.js')).systemClock,
        });
        try {
          return (
            (await rt.listContainers()).filter((c) => c.kind !== 'sandbox' && c.state === 'running')
              .length === 0
          );
        } finally {
          await rt.close();
        }
      },
      20_000,
    );
  },
);
