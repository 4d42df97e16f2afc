// What a bootstrap token and a node may do under the reference's kubeadm policy, on the built
// plat-apiserver with --authorization-mode=Node,Webhook: the webhook answers from the reference's
// own ClusterRoles and bindings (test/fixtures/reference-1.32, read from a real v1.32 cluster) as a
// stand-in for RBAC. A node client CSR is auto-approved only through the authorizer chain
// (nodeclient for the bootstrap token, selfnodeclient for a node renewing itself); the token cannot
// approve, sign, patch or delete CSRs, touch nodes, create namespaces or review tokens.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { startApiServer, type ApiResponse, type StartedApiServer } from '../../helpers/apiserver.js';
import { csrBody, makeCsrPem } from '../../helpers/apiserver-fixtures.js';
import { referencePolicyHandler } from '../../helpers/reference-policy.js';
import { startSarWebhook, type TestSarWebhook } from '../../helpers/sar-webhook.js';
import { tokenCreate } from '../../helpers/token-create.js';

const D = 'platform.io';
const CSRS = `/apis/certificates.${D}/v1/certificatesigningrequests`;
const NODE_SIGNER = `${D}/plat-apiserver-client-platlet`;
const CLIENT_USAGES = ['digital signature', 'client auth'];
let dir: string;
let hook: TestSarWebhook;
let api: StartedApiServer;
let token: string;
let user: string;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'bt-policy-'));
  hook = await startSarWebhook({ dir, handler: referencePolicyHandler(D) });
  writeFileSync(join(dir, 'tokens.csv'), 'node-n2-token,system:node:n2,u2,system:nodes\n');
  api = await startApiServer({
    args: [
      '--authorization-mode=Node,Webhook',
      `--authorization-webhook-config-file=${hook.platconfigPath}`,
      '--authorization-webhook-version=v1',
      '--authorization-webhook-cache-authorized-ttl=0s',
      '--authorization-webhook-cache-unauthorized-ttl=0s',
      '--enable-bootstrap-token-auth',
      '--enable-admission-plugins=NodeRestriction',
      `--token-auth-file=${join(dir, 'tokens.csv')}`,
    ],
  });
  const made = await tokenCreate(api);
  assert.equal(made.code, 0, made.stderr);
  token = made.stdout.trim();
  user = `system:bootstrap:${token.slice(0, 6)}`;
});
after(async () => {
  await api?.stop();
  await hook?.close();
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
  const r = await api.request('POST', CSRS, { token: who, body: csrBody(name, csrPem, signer, CLIENT_USAGES) });
  assert.equal(r.status, 201, r.text);
}
const refused = (verb: string, resource: string, group: string, name = '', ns = ''): string => {
  const qualified = group === '' ? resource.split('/')[0] : `${resource.split('/')[0]}.${group}`;
  return `${qualified}${name === '' ? '' : ` "${name}"`} is forbidden: User "${user}" cannot ${verb} resource "${resource}" in API group "${group}" ${ns === '' ? 'at the cluster scope' : `in the namespace "${ns}"`}`;
};

test('the bootstrap token gets its node client CSR approved through the authorizer (nodeclient) and issued', async () => {
  await csrAs(token, 'boot-n1', 'system:node:n1');
  const s = await waitForCsr('boot-n1', (x) => typeof x['certificate'] === 'string');
  const approved = (s['conditions'] as Obj[]).find((c) => c['type'] === 'Approved');
  assert.equal(approved?.['message'], 'Auto approving platlet client certificate after SubjectAccessReview.');
  const asked = hook.requests.find((r) => (r.spec['resourceAttributes'] as Obj | undefined)?.['subresource'] === 'nodeclient' && r.spec['user'] === user);
  assert.ok(asked !== undefined, 'the approver asked the chain about certificatesigningrequests/nodeclient for the requester');
});

test('the bootstrap token cannot approve, sign, patch or delete CSRs, nor touch nodes, namespaces or TokenReview', async () => {
  await csrAs(token, 'boot-client', 'someone', `${D}/plat-apiserver-client`);
  const admin = await makeCsrPem({ cn: 'admin-thing' });
  assert.equal((await api.request('POST', CSRS, { body: csrBody('admins', admin.csrPem, 'example.com/x', ['client auth']) })).status, 201);
  const mine = (await api.request('GET', `${CSRS}/boot-client`)).json ?? {};
  const cases: [string, string, unknown, string][] = [
    ['PUT', `${CSRS}/boot-client/approval`, { ...mine, status: { conditions: [{ type: 'Approved', status: 'True', reason: 'Self', message: 'm' }] } }, refused('update', 'certificatesigningrequests/approval', `certificates.${D}`, 'boot-client')],
    ['PUT', `${CSRS}/boot-client/status`, { ...mine, status: { certificate: Buffer.from('forged').toString('base64') } }, refused('update', 'certificatesigningrequests/status', `certificates.${D}`, 'boot-client')],
    ['PATCH', `${CSRS}/admins`, { metadata: { labels: { x: 'y' } } }, refused('patch', 'certificatesigningrequests', `certificates.${D}`, 'admins')],
    ['DELETE', `${CSRS}/admins`, undefined, refused('delete', 'certificatesigningrequests', `certificates.${D}`, 'admins')],
    ['DELETE', CSRS, undefined, refused('deletecollection', 'certificatesigningrequests', `certificates.${D}`)],
    ['GET', '/api/v1/nodes', undefined, refused('list', 'nodes', '')],
    ['PATCH', '/api/v1/nodes/n1', { metadata: { labels: { x: 'y' } } }, refused('patch', 'nodes', '', 'n1')],
    ['DELETE', '/api/v1/nodes/n1', undefined, refused('delete', 'nodes', '', 'n1')],
    ['POST', '/api/v1/namespaces', { metadata: { name: 'mine' } }, refused('create', 'namespaces', '')],
    ['POST', `/apis/authentication.${D}/v1/tokenreviews`, { apiVersion: `authentication.${D}/v1`, kind: 'TokenReview', spec: { token: 'node-n2-token' } }, refused('create', 'tokenreviews', `authentication.${D}`)],
    ['GET', '/api/v1/namespaces/kube-system/secrets', undefined, refused('list', 'secrets', '', '', 'kube-system')],
  ];
  for (const [method, path, body, message] of cases) {
    const r = await api.request(method, path, { token, ...(body !== undefined ? { body } : {}), ...(method === 'PATCH' ? { contentType: 'application/merge-patch+json' } : {}) });
    assert.equal(r.status, 403, `${method} ${path}: ${r.text}`);
    assert.equal(r.json?.['message'], message, `${method} ${path}`);
  }
  assert.equal(status(await api.request('GET', `${CSRS}/boot-client`))['conditions'], undefined, 'still pending: the client signer is never auto-approved');
  // what the token may do: its own CSRs, read (system:node-bootstrapper)
  assert.equal((await api.request('GET', `${CSRS}/boot-client`, { token })).status, 200);
});

test('a node renewing itself is approved through selfnodeclient; asking for another node name is left pending', async () => {
  await csrAs('node-n2-token', 'n2-self', 'system:node:n2');
  const s = await waitForCsr('n2-self', (x) => typeof x['certificate'] === 'string');
  assert.equal((s['conditions'] as Obj[]).find((c) => c['type'] === 'Approved')?.['message'], 'Auto approving self platlet client certificate after SubjectAccessReview.');
  const before = hook.requests.length;
  await csrAs('node-n2-token', 'n2-for-n3', 'system:node:n3');
  const deadline = Date.now() + 10_000;
  const askedNodeclient = (): boolean =>
    hook.requests.slice(before).some((r) => r.spec['user'] === 'system:node:n2' && (r.spec['resourceAttributes'] as Obj | undefined)?.['subresource'] === 'nodeclient');
  // the approver logs its refusal after asking
  const refusedLogged = (): boolean => /"csr":"n2-for-n3".*leaving the CSR for a human approver|leaving the CSR for a human approver.*n2-for-n3/.test(api.logs());
  while (!refusedLogged() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
  assert.ok(refusedLogged(), api.logs().slice(-2000));
  assert.ok(askedNodeclient(), 'the approver asked (nodeclient) and was refused');
  assert.equal(status(await api.request('GET', `${CSRS}/n2-for-n3`))['conditions'], undefined);
});
