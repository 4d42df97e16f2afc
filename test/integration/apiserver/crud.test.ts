// CRUD of all five resources against the built plat-apiserver: create, read, replace, patch,
// delete, with the reference's status codes and Status bodies.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startApiServer, type StartedApiServer } from '../../helpers/apiserver.js';
import {
  csrBody,
  eventBody,
  makeCsrPem,
  nodeBody,
  podBody,
} from '../../helpers/apiserver-fixtures.js';

let api: StartedApiServer;
before(async () => {
  // Unbound pods here are written to with resourceVersions the test holds: no scheduler writes
  // their PodScheduled condition in between.
  api = await startApiServer({ args: ['--controllers=*,-scheduler'] });
});
after(async () => {
  await api?.stop();
});

const G = 'certificates.platform.io';

test("namespaces default and the platform profile's plat-system, plat-public, plat-node-lease exist at start", async () => {
  const r = await api.request('GET', '/api/v1/namespaces');
  assert.equal(r.status, 200);
  const names = (r.json?.['items'] as { metadata: { name: string } }[]).map((i) => i.metadata.name);
  for (const ns of ['default', 'plat-system', 'plat-public', 'plat-node-lease'])
    assert.ok(names.includes(ns), ns);
  assert.equal(r.json?.['kind'], 'NamespaceList');
});

test('event create/get/put/patch/delete in a namespace', async () => {
  const c = await api.request('POST', '/api/v1/namespaces/default/events', {
    body: eventBody('e1', 'default'),
  });
  assert.equal(c.status, 201, c.text);
  const meta = c.json?.['metadata'] as Record<string, unknown>;
  assert.match(String(meta['uid']), /^[0-9a-f-]{36}$/);
  assert.match(String(meta['resourceVersion']), /^\d+$/);
  const g = await api.request('GET', '/api/v1/namespaces/default/events/e1');
  assert.equal(g.status, 200);
  assert.equal(g.json?.['reason'], 'Started');
  const dup = await api.request('POST', '/api/v1/namespaces/default/events', {
    body: eventBody('e1', 'default'),
  });
  assert.equal(dup.status, 409);
  assert.equal(dup.json?.['reason'], 'AlreadyExists');
  assert.equal(dup.json?.['message'], 'events "e1" already exists');
  const put = await api.request('PUT', '/api/v1/namespaces/default/events/e1', {
    body: { ...g.json, message: 'changed' },
  });
  assert.equal(put.status, 200, put.text);
  assert.equal(put.json?.['message'], 'changed');
  const stale = await api.request('PUT', '/api/v1/namespaces/default/events/e1', {
    body: { ...g.json, message: 'stale' },
  });
  assert.equal(stale.status, 409);
  assert.equal(stale.json?.['reason'], 'Conflict');
  assert.equal(
    stale.json?.['message'],
    'Operation cannot be fulfilled on events "e1": the object has been modified; please apply your changes to the latest version and try again',
  );
  const p = await api.request('PATCH', '/api/v1/namespaces/default/events/e1', {
    body: { count: 5 },
    contentType: 'application/merge-patch+json',
  });
  assert.equal(p.status, 200, p.text);
  assert.equal(p.json?.['count'], 5);
  const d = await api.request('DELETE', '/api/v1/namespaces/default/events/e1');
  assert.equal(d.status, 200);
  assert.equal(d.json?.['kind'], 'Status');
  assert.equal(d.json?.['status'], 'Success');
  const gone = await api.request('GET', '/api/v1/namespaces/default/events/e1');
  assert.equal(gone.status, 404);
  assert.equal(gone.json?.['message'], 'events "e1" not found');
});

test('event in a missing namespace is 404 for the namespace', async () => {
  const r = await api.request('POST', '/api/v1/namespaces/nope/events', {
    body: eventBody('e2', 'nope'),
  });
  assert.equal(r.status, 404);
  assert.equal(r.json?.['message'], 'namespaces "nope" not found');
});

test('PUT creates a missing event (allowCreateOnUpdate) with 201', async () => {
  const r = await api.request('PUT', '/api/v1/namespaces/default/events/e3', {
    body: eventBody('e3', 'default'),
  });
  assert.equal(r.status, 201, r.text);
});

test('csr create records the caller and clears status', async () => {
  const { csrPem } = await makeCsrPem({ cn: 'bob', orgs: ['dev'] });
  const body = csrBody('bob', csrPem, 'example.com/custom', ['digital signature', 'client auth']);
  (body['spec'] as Record<string, unknown>)['username'] = 'mallory';
  body['status'] = { certificate: 'Zm9v' };
  const r = await api.request('POST', `/apis/${G}/v1/certificatesigningrequests`, { body });
  assert.equal(r.status, 201, r.text);
  const spec = r.json?.['spec'] as Record<string, unknown>;
  assert.equal(spec['username'], 'plat-admin');
  assert.deepEqual(spec['groups'], ['system:masters', 'system:authenticated']);
  assert.deepEqual(r.json?.['status'], {});
  const list = await api.request('GET', `/apis/${G}/v1/certificatesigningrequests`);
  assert.equal(list.json?.['kind'], 'CertificateSigningRequestList');
});

test('node and pod with status subresources', async () => {
  const n = await api.request('POST', '/api/v1/nodes', { body: nodeBody('n1') });
  assert.equal(n.status, 201, n.text);
  const st = await api.request('PATCH', '/api/v1/nodes/n1/status', {
    body: {
      status: { conditions: [{ type: 'Ready', status: 'True' }] },
      spec: { unschedulable: true },
    },
    contentType: 'application/merge-patch+json',
  });
  assert.equal(st.status, 200, st.text);
  assert.equal(
    (st.json?.['spec'] as Record<string, unknown>)['unschedulable'],
    undefined,
    'spec is kept by /status',
  );
  const p = await api.request('POST', '/api/v1/namespaces/default/pods', {
    body: podBody('p1', 'default'),
  });
  assert.equal(p.status, 201, p.text);
  assert.equal((p.json?.['status'] as Record<string, unknown>)['phase'], 'Pending');
  const ps = await api.request('PUT', '/api/v1/namespaces/default/pods/p1/status', {
    body: { ...p.json, status: { phase: 'Running' } },
  });
  assert.equal(ps.status, 200, ps.text);
  assert.equal((ps.json?.['status'] as Record<string, unknown>)['phase'], 'Running');
  const d = await api.request('DELETE', '/api/v1/namespaces/default/pods/p1');
  assert.equal(d.status, 200);
  assert.equal(d.json?.['kind'], 'Pod');
});

// None of the kinds served here has a generation in the reference 1.32 (only strategies such as
// Deployment's or PriorityClass's set it): a create keeps what the client sent (nothing: none),
// and an update keeps the stored value whatever the client sends (rest.BeforeUpdate).
test('an update that changes nothing keeps the resourceVersion; no generation is kept for pods, as the reference 1.32', async () => {
  const c = await api.request('POST', '/api/v1/namespaces/default/pods', {
    body: podBody('gen', 'default'),
  });
  const meta = c.json?.['metadata'] as Record<string, unknown>;
  assert.equal(meta['generation'], undefined);
  const same = await api.request('PUT', '/api/v1/namespaces/default/pods/gen', { body: c.json });
  assert.equal(same.status, 200);
  assert.equal(
    (same.json?.['metadata'] as Record<string, unknown>)['resourceVersion'],
    meta['resourceVersion'],
  );
  const changed = await api.request('PATCH', '/api/v1/namespaces/default/pods/gen', {
    body: { spec: { activeDeadlineSeconds: 30 }, metadata: { generation: 7 } },
    contentType: 'application/strategic-merge-patch+json',
  });
  assert.equal(changed.status, 200, changed.text);
  assert.equal((changed.json?.['metadata'] as Record<string, unknown>)['generation'], undefined);
});

test('deleting a namespace removes the objects in it', async () => {
  await api.request('POST', '/api/v1/namespaces', { body: { metadata: { name: 'doomed' } } });
  assert.equal(
    (
      await api.request('POST', '/api/v1/namespaces/doomed/events', {
        body: eventBody('x', 'doomed'),
      })
    ).status,
    201,
  );
  const d = await api.request('DELETE', '/api/v1/namespaces/doomed');
  assert.equal(d.status, 200);
  assert.equal(d.json?.['kind'], 'Namespace');
  assert.equal((await api.request('GET', '/api/v1/namespaces/doomed/events/x')).status, 404);
  assert.equal(
    (
      await api.request('POST', '/api/v1/namespaces/doomed/events', {
        body: eventBody('y', 'doomed'),
      })
    ).status,
    404,
  );
});
