// What a bootstrap token and a node may do under plat-apiserver's own default authorization
// (--authorization-mode=Node,RBAC) with its reconciled bootstrap policy (the reference's kubeadm
// policy: kubeadm:kubelet-bootstrap and kubeadm:node-autoapprove-bootstrap bind system:bootstrappers
// to system:node-bootstrapper and ...:certificatesigningrequests:nodeclient;
// kubeadm:node-autoapprove-certificate-rotation binds system:nodes to ...:selfnodeclient), and
// NodeRestriction. A node client CSR is auto-approved only through the authorizer chain: taking the
// nodeclient binding away leaves the token's next CSR pending, putting it back approves again. The
// token cannot approve, sign, patch or delete CSRs, touch nodes, create namespaces or review
// tokens (the reference's Forbidden messages, written out here).
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import {
  startApiServer,
  type ApiResponse,
  type StartedApiServer,
} from '../../helpers/apiserver.js';
import { csrBody, makeCsrPem } from '../../helpers/apiserver-fixtures.js';
import { tokenCreate } from '../../helpers/token-create.js';

const D = 'platform.io';
const CSRS = `/apis/certificates.${D}/v1/certificatesigningrequests`;
const BINDINGS = `/apis/rbac.authorization.${D}/v1/clusterrolebindings`;
const NODE_SIGNER = `${D}/plat-apiserver-client-platlet`;
const CLIENT_USAGES = ['digital signature', 'client auth'];
let dir: string;
let api: StartedApiServer;
let token: string;
let user: string;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'bt-policy-'));
  writeFileSync(join(dir, 'tokens.csv'), 'node-n2-token,system:node:n2,u2,system:nodes\n');
  // no --authorization-mode: the default, Node,RBAC
  api = await startApiServer({
    args: ['--enable-bootstrap-token-auth', `--token-auth-file=${join(dir, 'tokens.csv')}`],
  });
  const made = await tokenCreate(api);
  assert.equal(made.code, 0, made.stderr);
  token = made.stdout.trim();
  user = `system:bootstrap:${token.slice(0, 6)}`;
});
after(async () => {
  await api?.stop();
  rmSync(dir, { recursive: true, force: true });
});

type Obj = Record<string, unknown>;
const status = (r: ApiResponse): Obj => (r.json?.['status'] ?? {}) as Obj;
async function waitForCsr(name: string, done: (s: Obj) => boolean): Promise<Obj> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const s = status(await api.request('GET', `${CSRS}/${name}`));
    if (done(s)) return s;
    if (Date.now() > deadline) throw new Error(`CSR ${name}: ${JSON.stringify(s)}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
async function csrAs(who: string, name: string, cn: string, signer = NODE_SIGNER): Promise<void> {
  const { csrPem } = await makeCsrPem({ cn, orgs: ['system:nodes'] });
  const r = await api.request('POST', CSRS, {
    token: who,
    body: csrBody(name, csrPem, signer, CLIENT_USAGES),
  });
  assert.equal(r.status, 201, r.text);
}
const refused = (verb: string, resource: string, group: string, name = '', ns = ''): string => {
  const qualified = group === '' ? resource.split('/')[0] : `${resource.split('/')[0]}.${group}`;
  return `${qualified}${name === '' ? '' : ` "${name}"`} is forbidden: User "${user}" cannot ${verb} resource "${resource}" in API group "${group}" ${ns === '' ? 'at the cluster scope' : `in the namespace "${ns}"`}`;
};

// the approver's log line after it asked and was refused (klog text: `... human approver csr=<name>`)
const leftPending = (csr: string): boolean =>
  new RegExp(`leaving the CSR for a human approver.*\\bcsr=${csr}(\\s|$)`, 'm').test(api.logs());
async function waitLeftPending(csr: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!leftPending(csr) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
  assert.ok(leftPending(csr), api.logs().slice(-2000));
}

test('the bootstrap token gets its node client CSR approved through RBAC (nodeclient) and issued; without the binding it stays pending', async () => {
  await csrAs(token, 'boot-n1', 'system:node:n1');
  const s = await waitForCsr('boot-n1', (x) => typeof x['certificate'] === 'string');
  const approved = (s['conditions'] as Obj[]).find((c) => c['type'] === 'Approved');
  assert.equal(
    approved?.['message'],
    'Auto approving platlet client certificate after SubjectAccessReview.',
  );
  // take kubeadm's binding away: the same request is left for a human
  const binding =
    (await api.request('GET', `${BINDINGS}/kubeadm:node-autoapprove-bootstrap`)).json ?? {};
  assert.equal(
    (binding['roleRef'] as Obj)['name'],
    `system:certificates.${D}:certificatesigningrequests:nodeclient`,
  );
  assert.equal(
    (await api.request('DELETE', `${BINDINGS}/kubeadm:node-autoapprove-bootstrap`)).status,
    200,
  );
  await csrAs(token, 'boot-n1-unbound', 'system:node:n1');
  await waitLeftPending('boot-n1-unbound');
  assert.equal(
    status(await api.request('GET', `${CSRS}/boot-n1-unbound`))['conditions'],
    undefined,
  );
  // and back: approved again
  const meta = binding['metadata'] as Obj;
  const restored = await api.request('POST', BINDINGS, {
    body: {
      metadata: { name: meta['name'], labels: meta['labels'], annotations: meta['annotations'] },
      roleRef: binding['roleRef'],
      subjects: binding['subjects'],
    },
  });
  assert.equal(restored.status, 201, restored.text);
  await csrAs(token, 'boot-n1-rebound', 'system:node:n1');
  await waitForCsr('boot-n1-rebound', (x) => typeof x['certificate'] === 'string');
});

test('the bootstrap token cannot approve, sign, patch or delete CSRs, nor touch nodes, namespaces or TokenReview', async () => {
  await csrAs(token, 'boot-client', 'someone', `${D}/plat-apiserver-client`);
  const admin = await makeCsrPem({ cn: 'admin-thing' });
  assert.equal(
    (
      await api.request('POST', CSRS, {
        body: csrBody('admins', admin.csrPem, 'example.com/x', ['client auth']),
      })
    ).status,
    201,
  );
  const mine = (await api.request('GET', `${CSRS}/boot-client`)).json ?? {};
  const cases: [string, string, unknown, string][] = [
    [
      'PUT',
      `${CSRS}/boot-client/approval`,
      {
        ...mine,
        status: {
          conditions: [{ type: 'Approved', status: 'True', reason: 'Self', message: 'm' }],
        },
      },
      refused('update', 'certificatesigningrequests/approval', `certificates.${D}`, 'boot-client'),
    ],
    [
      'PUT',
      `${CSRS}/boot-client/status`,
      { ...mine, status: { certificate: Buffer.from('forged').toString('base64') } },
      refused('update', 'certificatesigningrequests/status', `certificates.${D}`, 'boot-client'),
    ],
    [
      'PATCH',
      `${CSRS}/admins`,
      { metadata: { labels: { x: 'y' } } },
      refused('patch', 'certificatesigningrequests', `certificates.${D}`, 'admins'),
    ],
    [
      'DELETE',
      `${CSRS}/admins`,
      undefined,
      refused('delete', 'certificatesigningrequests', `certificates.${D}`, 'admins'),
    ],
    [
      'DELETE',
      CSRS,
      undefined,
      refused('deletecollection', 'certificatesigningrequests', `certificates.${D}`),
    ],
    ['GET', '/api/v1/nodes', undefined, refused('list', 'nodes', '')],
    [
      'PATCH',
      '/api/v1/nodes/n1',
      { metadata: { labels: { x: 'y' } } },
      refused('patch', 'nodes', '', 'n1'),
    ],
    ['DELETE', '/api/v1/nodes/n1', undefined, refused('delete', 'nodes', '', 'n1')],
    [
      'POST',
      '/api/v1/namespaces',
      { metadata: { name: 'mine' } },
      refused('create', 'namespaces', ''),
    ],
    [
      'POST',
      `/apis/authentication.${D}/v1/tokenreviews`,
      {
        apiVersion: `authentication.${D}/v1`,
        kind: 'TokenReview',
        spec: { token: 'node-n2-token' },
      },
      refused('create', 'tokenreviews', `authentication.${D}`),
    ],
    [
      'GET',
      '/api/v1/namespaces/kube-system/secrets',
      undefined,
      refused('list', 'secrets', '', '', 'kube-system'),
    ],
  ];
  for (const [method, path, body, message] of cases) {
    const r = await api.request(method, path, {
      token,
      ...(body !== undefined ? { body } : {}),
      ...(method === 'PATCH' ? { contentType: 'application/merge-patch+json' } : {}),
    });
    assert.equal(r.status, 403, `${method} ${path}: ${r.text}`);
    assert.equal(r.json?.['message'], message, `${method} ${path}`);
  }
  assert.equal(
    status(await api.request('GET', `${CSRS}/boot-client`))['conditions'],
    undefined,
    'still pending: the client signer is never auto-approved',
  );
  // what the token may do: its own CSRs, read (system:node-bootstrapper)
  assert.equal((await api.request('GET', `${CSRS}/boot-client`, { token })).status, 200);
});

test('a node renewing itself is approved through selfnodeclient; asking for another node name is left pending', async () => {
  await csrAs('node-n2-token', 'n2-self', 'system:node:n2');
  const s = await waitForCsr('n2-self', (x) => typeof x['certificate'] === 'string');
  assert.equal(
    (s['conditions'] as Obj[]).find((c) => c['type'] === 'Approved')?.['message'],
    'Auto approving self platlet client certificate after SubjectAccessReview.',
  );
  await csrAs('node-n2-token', 'n2-for-n3', 'system:node:n3');
  // the approver asks for nodeclient on behalf of system:node:n2; nothing binds system:nodes to it
  await waitLeftPending('n2-for-n3');
  assert.equal(status(await api.request('GET', `${CSRS}/n2-for-n3`))['conditions'], undefined);
});
