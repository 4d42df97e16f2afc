// The reference's order of a write on the built plat-apiserver: decode (400), defaulting,
// mutating admission, validation (422 Invalid), validating admission (403), storage. Each test
// sends an input that fails two stages and expects the earlier stage's answer, written as the
// reference (kube-apiserver 1.32) gives it.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startApiServer, type StartedApiServer } from '../../helpers/apiserver.js';
import { csrBody, makeCsrPem } from '../../helpers/apiserver-fixtures.js';
import { tokenCreate } from '../../helpers/token-create.js';

let api: StartedApiServer;
let dir: string;
const csrs = '/apis/certificates.k8s.io/v1/certificatesigningrequests';
const apiClientSigner = 'kubernetes.io/kube-apiserver-client';

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'pa-write-order-'));
  const tokens = join(dir, 'tokens.csv');
  // `requester` may create CSRs and update their approval, but not approve for any signer.
  writeFileSync(tokens, 'requester-token,requester,uid-1,system:bootstrappers\n');
  api = await startApiServer({
    platformDomain: 'k8s.io',
    args: [
      '--platform-profile=kubernetes',
      `--token-auth-file=${tokens}`,
      '--authorization-mode=RBAC',
      '--enable-bootstrap-token-auth',
    ],
  });
  const role = await api.request('POST', '/apis/rbac.authorization.k8s.io/v1/clusterroles', {
    body: {
      metadata: { name: 'csr-requester' },
      rules: [
        {
          apiGroups: ['certificates.k8s.io'],
          resources: ['certificatesigningrequests', 'certificatesigningrequests/approval'],
          verbs: ['create', 'get', 'update'],
        },
      ],
    },
  });
  assert.equal(role.status, 201, role.text);
  const binding = await api.request(
    'POST',
    '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings',
    {
      body: {
        metadata: { name: 'csr-requester' },
        roleRef: {
          apiGroup: 'rbac.authorization.k8s.io',
          kind: 'ClusterRole',
          name: 'csr-requester',
        },
        subjects: [
          { apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'requester' },
          { apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'system:bootstrappers' },
        ],
      },
    },
  );
  assert.equal(binding.status, 201, binding.text);
});
after(async () => {
  await api?.stop();
  rmSync(dir, { recursive: true, force: true });
});

test('an unparseable CSR request for the API-server client signer gets 422 from validation, not 403 from CertificateSubjectRestriction', async () => {
  const body = {
    apiVersion: 'certificates.k8s.io/v1',
    kind: 'CertificateSigningRequest',
    metadata: { name: 'garbage' },
    spec: {
      request: Buffer.from('not a PEM block').toString('base64'),
      signerName: apiClientSigner,
      usages: ['client auth'],
    },
  };
  const r = await api.request('POST', csrs, { token: 'requester-token', body });
  assert.equal(r.status, 422, r.text);
  assert.equal(r.json?.['reason'], 'Invalid');
  // The reference: `CertificateSigningRequest.certificates.k8s.io "garbage" is invalid: spec.request:
  // Invalid value: []byte{0x6e, 0x6f, ...}: PEM block type must be CERTIFICATE REQUEST`; we print
  // the length instead of the bytes (a request may be large and is never dumped).
  assert.match(
    String(r.json?.['message']),
    /^CertificateSigningRequest\.certificates\.k8s\.io "garbage" is invalid: spec\.request: Invalid value: \[\]byte\{.*\}: PEM block type must be CERTIFICATE REQUEST$/,
  );
  const details = r.json?.['details'] as Record<string, unknown>;
  assert.deepEqual(
    { name: details['name'], group: details['group'], kind: details['kind'] },
    { name: 'garbage', group: 'certificates.k8s.io', kind: 'CertificateSigningRequest' },
  );
  const causes = details['causes'] as Record<string, unknown>[];
  assert.deepEqual(
    causes.map((c) => [c['reason'], c['field']]),
    [['FieldValueInvalid', 'spec.request']],
  );
  assert.equal((await api.request('GET', `${csrs}/garbage`)).status, 404, 'nothing was stored');
});

test('the same from a bootstrap token (system:bootstrap:<id>): 422 from validation, not 403', async () => {
  const made = await tokenCreate(api, ['--ttl=1h', '--platform-profile=kubernetes']);
  assert.equal(made.code, 0, made.stderr);
  const token = made.stdout.trim();
  const body = {
    apiVersion: 'certificates.k8s.io/v1',
    kind: 'CertificateSigningRequest',
    metadata: { name: 'bootstrap-garbage' },
    spec: {
      request: Buffer.from('-----BEGIN NOT A CSR-----').toString('base64'),
      signerName: apiClientSigner,
      usages: ['client auth'],
    },
  };
  const r = await api.request('POST', csrs, { token, body });
  assert.equal(r.status, 422, r.text);
  assert.equal(r.json?.['reason'], 'Invalid');
  assert.match(
    String(r.json?.['message']),
    /^CertificateSigningRequest\.certificates\.k8s\.io "bootstrap-garbage" is invalid: spec\.request: Invalid value: \[\]byte\{.*\}: PEM block type must be CERTIFICATE REQUEST$/,
  );
});

test('a valid request with system:masters for the API-server client signer still gets the admission 403 (validation passed)', async () => {
  const { csrPem } = await makeCsrPem({ cn: 'root', orgs: ['system:masters'] });
  const r = await api.request('POST', csrs, {
    token: 'requester-token',
    body: csrBody('masters', csrPem, apiClientSigner, ['client auth'], {}, 'k8s.io'),
  });
  assert.equal(r.status, 403, r.text);
  assert.equal(r.json?.['reason'], 'Forbidden');
  assert.equal(
    r.json?.['message'],
    'certificatesigningrequests.certificates.k8s.io "masters" is forbidden: use of kubernetes.io/kube-apiserver-client signer with system:masters group is not allowed',
  );
});

test('an approval with an unsupported condition status from a user who may not approve gets 422, not 403 from CertificateApproval', async () => {
  const { csrPem } = await makeCsrPem({ cn: 'app' });
  const created = await api.request('POST', csrs, {
    token: 'requester-token',
    body: csrBody('approve-me', csrPem, apiClientSigner, ['client auth'], {}, 'k8s.io'),
  });
  assert.equal(created.status, 201, created.text);
  const approval = (status: string): Record<string, unknown> => ({
    ...(created.json as Record<string, unknown>),
    status: { conditions: [{ type: 'Approved', status, reason: 'Test', message: 'm' }] },
  });
  const bad = await api.request('PUT', `${csrs}/approve-me/approval`, {
    token: 'requester-token',
    body: approval('Maybe'),
  });
  assert.equal(bad.status, 422, bad.text);
  assert.equal(bad.json?.['reason'], 'Invalid');
  assert.equal(
    bad.json?.['message'],
    'CertificateSigningRequest.certificates.k8s.io "approve-me" is invalid: status.conditions[0].status: Unsupported value: "Maybe": supported values: "True"',
  );
  // The same user with a valid approval reaches CertificateApproval: the reference's 403.
  const denied = await api.request('PUT', `${csrs}/approve-me/approval`, {
    token: 'requester-token',
    body: approval('True'),
  });
  assert.equal(denied.status, 403, denied.text);
  assert.equal(
    denied.json?.['message'],
    'certificatesigningrequests.certificates.k8s.io "approve-me" is forbidden: user not permitted to approve requests with signerName "kubernetes.io/kube-apiserver-client"',
  );
});
