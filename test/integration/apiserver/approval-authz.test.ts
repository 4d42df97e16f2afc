// The authorization rules around approval, with an in-process server whose authorizer allows
// everything except what each case denies: the approver needs verb `approve` on `signers` for
// the CSR's signer name (or `<domain>/*`); the auto-approver asks for
// certificatesigningrequests/selfnodeclient or /nodeclient on behalf of the requester.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { parseFlags } from '../../../src/apiserver/flags.js';
import { startApiServer, type RunningApiServer } from '../../../src/apiserver/main.js';
import { EXTRA_FLAGS } from '../../../src/apiserver/plugins.js';
import type { Authorizer, RequestAttributes } from '../../../src/apiserver/interfaces.js';
import { silentLogger } from '../../../src/common/log/types.js';
import { systemClock } from '../../../src/common/util/clock.js';
import { loadConnection } from '../../../src/common/platconfig/platconfig.js';
import { csrBody, makeCsrPem } from '../../helpers/apiserver-fixtures.js';

const denied: ((a: RequestAttributes) => boolean)[] = [];
const seen: RequestAttributes[] = [];
const policy: Authorizer = {
  authorize: (a) => {
    seen.push(a);
    return Promise.resolve({ decision: denied.some((d) => d(a)) ? 'deny' : 'allow' });
  },
};

let dir: string;
let running: RunningApiServer;
let agent: Agent;
let tokenAgent: Agent;
const base = '/apis/certificates.platform.io/v1/certificatesigningrequests';

async function call(
  method: string,
  path: string,
  body?: unknown,
  token?: string,
): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await request(`${running.url}${path}`, {
    method: method as 'GET',
    dispatcher: token === undefined ? agent : tokenAgent,
    headers: {
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.statusCode, json: (await res.body.json()) as Record<string, unknown> };
}

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'pa-approval-'));
  writeFileSync(
    join(dir, 'tokens.csv'),
    'approver,approver,u1,ops\nnode,system:node:n7,u2,system:nodes\nintruder,someone,u3,\n',
  );
  const parsed = parseFlags(
    [
      '--secure-port=0',
      `--cert-dir=${join(dir, 'certs')}`,
      `--token-auth-file=${join(dir, 'tokens.csv')}`,
    ],
    EXTRA_FLAGS,
  );
  if (parsed.kind !== 'run') throw new Error('help');
  running = await startApiServer(parsed.flags, silentLogger(), systemClock, {
    authorizers: [policy],
  });
  const c = await loadConnection(running.adminPlatconfig);
  agent = new Agent({ connect: { ca: c.caPem ?? '', cert: c.certPem ?? '', key: c.keyPem ?? '' } });
  tokenAgent = new Agent({ connect: { ca: c.caPem ?? '' } });
});
after(async () => {
  await agent?.close();
  await tokenAgent?.close();
  await running?.stop();
  rmSync(dir, { recursive: true, force: true });
});

function withApproved(o: Record<string, unknown>): Record<string, unknown> {
  return {
    ...o,
    status: { conditions: [{ type: 'Approved', status: 'True', reason: 'R', message: 'm' }] },
  };
}

test('approving needs verb approve on signers for the signer name; the domain wildcard also counts', async () => {
  const { csrPem } = await makeCsrPem({ cn: 'x' });
  const c = await call(
    'POST',
    base,
    csrBody('restricted', csrPem, 'example.com/restricted', ['client auth']),
  );
  assert.equal(c.status, 201);
  denied.push((a) => a.verb === 'approve' && a.resource === 'signers');
  const r = await call('PUT', `${base}/restricted/approval`, withApproved(c.json), 'approver');
  assert.equal(r.status, 403);
  assert.equal(
    r.json['message'],
    'certificatesigningrequests.certificates.platform.io "restricted" is forbidden: user not permitted to approve requests with signerName "example.com/restricted"',
  );
  const asked = seen
    .filter((a) => a.verb === 'approve')
    .map((a) => `${a.apiGroup}/${a.resource}/${a.name}`);
  assert.deepEqual(asked.slice(-2), [
    'certificates.platform.io/signers/example.com/restricted',
    'certificates.platform.io/signers/example.com/*',
  ]);
  denied.length = 0;
  denied.push((a) => a.verb === 'approve' && a.name === 'example.com/restricted');
  const ok = await call('PUT', `${base}/restricted/approval`, withApproved(c.json), 'approver');
  assert.equal(ok.status, 200, 'allowed through example.com/*');
  denied.length = 0;
});

test('the auto-approver approves a node client CSR only when the requester may create node client CSRs', async () => {
  denied.push((a) => a.subresource === 'nodeclient' || a.subresource === 'selfnodeclient');
  const { csrPem } = await makeCsrPem({ cn: 'system:node:n7', orgs: ['system:nodes'] });
  const body = csrBody('n7-denied', csrPem, 'platform.io/plat-apiserver-client-platlet', [
    'digital signature',
    'client auth',
  ]);
  assert.equal((await call('POST', base, body, 'node')).status, 201);
  const deadline = Date.now() + 5000;
  while (!seen.some((a) => a.subresource === 'nodeclient') && Date.now() < deadline)
    await new Promise((r) => setTimeout(r, 20));
  const self = seen.find((a) => a.subresource === 'selfnodeclient');
  assert.equal(self?.user.username, 'system:node:n7', 'asked on behalf of the requester');
  assert.equal(self?.verb, 'create');
  assert.equal(
    ((await call('GET', `${base}/n7-denied`)).json['status'] as Record<string, unknown>)[
      'conditions'
    ],
    undefined,
  );
  denied.length = 0;
  denied.push((a) => a.subresource === 'nodeclient');
  assert.equal(
    (await call('POST', base, { ...body, metadata: { name: 'n7-self' } }, 'node')).status,
    201,
  );
  const until = Date.now() + 10_000;
  let status: Record<string, unknown> = {};
  while (Date.now() < until) {
    status = ((await call('GET', `${base}/n7-self`)).json['status'] ?? {}) as Record<
      string,
      unknown
    >;
    if (typeof status['certificate'] === 'string') break;
    await new Promise((r) => setTimeout(r, 20));
  }
  assert.equal(
    typeof status['certificate'],
    'string',
    'selfnodeclient suffices for the node itself',
  );
  const intruder = await call(
    'POST',
    base,
    { ...body, metadata: { name: 'n7-other' } },
    'intruder',
  );
  assert.equal(intruder.status, 201);
  const asked = Date.now() + 5000;
  while (
    !seen.some((a) => a.user.username === 'someone' && a.subresource === 'nodeclient') &&
    Date.now() < asked
  )
    await new Promise((r) => setTimeout(r, 20));
  assert.ok(
    seen.some((a) => a.user.username === 'someone' && a.subresource === 'nodeclient'),
    'the approver asked about the other user',
  );
  assert.equal(
    ((await call('GET', `${base}/n7-other`)).json['status'] as Record<string, unknown>)[
      'conditions'
    ],
    undefined,
    'another user needs nodeclient',
  );
  denied.length = 0;
});
