// A node joins with one command on each side: `plat-apiserver token create --print-join-config`
// writes the bootstrap platconfig; the real agent bootstraps with it; under the default
// authorization (Node,RBAC) its CSR is auto-approved only because the reference's bootstrap policy
// binds system:bootstrappers to the nodeclient role (kubeadm:node-autoapprove-bootstrap); the node
// registers under the Node authorizer and NodeRestriction and turns Ready.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { startApiServer } from '../helpers/apiserver.js';
import { killProcessPods } from '../integration/agent/pods/runtimes.js';
import { spawnAgent, type BootstrapEnv } from '../helpers/bootstrap-env.js';
import { tokenCreate } from '../helpers/token-create.js';

type Obj = Record<string, unknown>;

test('token create → the agent bootstraps → its CSR is approved through the authorizer → the node registers and is Ready', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'join-e2e-'));
  // node:test runs after-hooks in the order they were added: one hook undoes the set-up in reverse
  // (agent and its pods, then the API server, then the directory they write in).
  const cleanups: (() => unknown)[] = [() => rmSync(dir, { recursive: true, force: true })];
  t.after(async () => {
    for (const undo of cleanups.reverse()) await undo();
  });
  const api = await startApiServer({
    // NodeRestriction is on by default (as kubeadm enables it).
    args: ['--enable-bootstrap-token-auth'],
  });
  cleanups.push(() => api.stop());
  const joinConfig = join(dir, 'join.platconfig');
  const made = await tokenCreate(api, [`--print-join-config=${joinConfig}`]);
  assert.equal(made.code, 0, made.stderr);
  const bootstrapUser = `system:bootstrap:${made.stdout.trim().slice(0, 6)}`;
  const env: BootstrapEnv = {
    dir,
    api,
    bootstrapConf: joinConfig,
    platconfig: join(dir, 'platconfig'),
    certDir: join(dir, 'pki'),
    stop: () => Promise.resolve(),
  };
  const manifests = join(dir, 'manifests');
  mkdirSync(manifests);
  writeFileSync(
    join(manifests, 'static.yaml'),
    'apiVersion: v1\nkind: Pod\nmetadata: {name: stat}\nspec: {containers: [{name: c, command: [sleep, "60"]}]}\n',
  );
  const agent = await spawnAgent(env, [`--pod-manifest-path=${manifests}`], 'joined-1');
  cleanups.push(async () => {
    await agent.stop();
    await killProcessPods(join(dir, 'root'));
  });
  await agent.waitFor(/client certificate issued and platconfig written/, 60_000);
  // the CSR: requested by the bootstrap token, approved by the controller after a SubjectAccessReview
  const csrs = (
    await api.request('GET', '/apis/certificates.platform.io/v1/certificatesigningrequests')
  ).json?.['items'] as Obj[];
  const csr = csrs.find((c) => (c['spec'] as Obj)['username'] === bootstrapUser);
  assert.ok(csr !== undefined, JSON.stringify(csrs.map((c) => (c['spec'] as Obj)['username'])));
  const approved = ((csr['status'] as Obj)['conditions'] as Obj[]).find(
    (c) => c['type'] === 'Approved',
  );
  assert.equal(approved?.['reason'], 'AutoApproved');
  assert.equal(
    approved?.['message'],
    'Auto approving platlet client certificate after SubjectAccessReview.',
  );
  // What the approver asked, answered by RBAC through the reference's kubeadm binding.
  const sar = await api.request('POST', '/apis/authorization.platform.io/v1/subjectaccessreviews', {
    body: {
      spec: {
        user: bootstrapUser,
        groups: ['system:bootstrappers', 'system:authenticated'],
        resourceAttributes: {
          group: 'certificates.platform.io',
          resource: 'certificatesigningrequests',
          subresource: 'nodeclient',
          verb: 'create',
        },
      },
    },
  });
  const sarStatus = sar.json?.['status'] as Obj | undefined;
  assert.equal(sarStatus?.['allowed'], true, sar.text);
  assert.match(
    String(sarStatus?.['reason']),
    /ClusterRoleBinding "kubeadm:node-autoapprove-bootstrap"/,
  );
  // the node registers with its own certificate (system:node:joined-1) and turns Ready
  const deadline = Date.now() + 60_000;
  let node: Obj | undefined;
  for (;;) {
    const r = await api.request('GET', '/api/v1/nodes/joined-1');
    if (r.status === 200) {
      node = r.json;
      const conds = ((node?.['status'] as Obj | undefined)?.['conditions'] ?? []) as Obj[];
      if (conds.some((c) => c['type'] === 'Ready' && c['status'] === 'True')) break;
    }
    if (Date.now() > deadline)
      throw new Error(
        `node not Ready: ${r.status} ${JSON.stringify(node?.['status'])}\n${agent.output().slice(-3000)}`,
      );
    await new Promise((res) => setTimeout(res, 100));
  }
  assert.equal(((node?.['metadata'] as Obj)['labels'] as Obj)['platform.io/hostname'], 'joined-1');
  // its static pod's mirror pod passes NodeRestriction (owned by its Node) and reports Running
  const until = Date.now() + 60_000;
  for (;;) {
    const r = await api.request('GET', '/api/v1/namespaces/default/pods/stat-joined-1');
    if (r.status === 200 && (r.json?.['status'] as Obj | undefined)?.['phase'] === 'Running') {
      assert.deepEqual((r.json?.['metadata'] as Obj)['ownerReferences'], [
        {
          apiVersion: 'v1',
          kind: 'Node',
          name: 'joined-1',
          uid: (node?.['metadata'] as Obj)['uid'],
          controller: true,
        },
      ]);
      break;
    }
    if (Date.now() > until)
      throw new Error(
        `mirror pod: ${r.status} ${r.text.slice(0, 500)}\n${agent.output().slice(-3000)}`,
      );
    await new Promise((res) => setTimeout(res, 100));
  }
  assert.doesNotMatch(
    agent.output(),
    /is forbidden/,
    'the agent met no refusal under Node + NodeRestriction',
  );
});
