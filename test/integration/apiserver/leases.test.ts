// The Lease resource under --platform-profile=kubernetes: discovery, create, get, list, update,
// watch and delete at /apis/coordination.k8s.io/v1, and the reference's validation answers.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startApiServer, type StartedApiServer } from '../../helpers/apiserver.js';

let api: StartedApiServer;
const base = '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases';
const lease = (name: string, spec: Record<string, unknown>) => ({
  apiVersion: 'coordination.k8s.io/v1',
  kind: 'Lease',
  metadata: { name },
  spec,
});

before(async () => {
  api = await startApiServer({ args: ['--platform-profile=kubernetes'] });
});
after(async () => {
  await api?.stop();
});

test('discovery lists coordination.k8s.io/v1 leases; kube-node-lease exists at start', async () => {
  const d = await api.request('GET', '/apis/coordination.k8s.io/v1');
  assert.equal(d.status, 200);
  const r = (d.json?.['resources'] as { name: string; namespaced: boolean; kind: string }[]).find(
    (x) => x.name === 'leases',
  );
  assert.deepEqual(
    { namespaced: r?.namespaced, kind: r?.kind },
    { namespaced: true, kind: 'Lease' },
  );
  assert.equal((await api.request('GET', '/api/v1/namespaces/kube-node-lease')).status, 200);
});

test('create, get, list, update, watch, delete', async () => {
  const created = await api.request('POST', base, {
    body: lease('n1', {
      holderIdentity: 'n1',
      leaseDurationSeconds: 40,
      renewTime: '2026-01-01T00:00:00.000000Z',
    }),
  });
  assert.equal(created.status, 201, created.text);
  const rv = (created.json?.['metadata'] as { resourceVersion: string }).resourceVersion;
  const got = await api.request('GET', `${base}/n1`);
  assert.equal((got.json?.['spec'] as Record<string, unknown>)['holderIdentity'], 'n1');
  const list = await api.request('GET', base);
  assert.equal(list.json?.['kind'], 'LeaseList');
  assert.deepEqual(
    (list.json?.['items'] as { metadata: { name: string } }[]).map((i) => i.metadata.name),
    ['n1'],
  );
  const updated = await api.request('PUT', `${base}/n1`, {
    body: {
      ...(got.json ?? {}),
      spec: { ...(got.json?.['spec'] as object), renewTime: '2026-01-01T00:00:10.000000Z' },
    },
  });
  assert.equal(updated.status, 200, updated.text);
  const watch = await api.request(
    'GET',
    `${base}?watch=true&resourceVersion=${rv}&timeoutSeconds=1`,
  );
  const events = watch.text
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { type: string; object: { spec: { renewTime: string } } });
  assert.deepEqual(
    events.map((e) => `${e.type} ${e.object.spec.renewTime}`),
    ['MODIFIED 2026-01-01T00:00:10.000000Z'],
  );
  assert.equal((await api.request('DELETE', `${base}/n1`)).status, 200);
  assert.equal((await api.request('GET', `${base}/n1`)).status, 404);
});

test('the reference validation: leaseDurationSeconds and leaseTransitions', async () => {
  const r = await api.request('POST', base, {
    body: lease('bad', { leaseDurationSeconds: 0, leaseTransitions: -1 }),
  });
  assert.equal(r.status, 422);
  assert.equal(
    r.json?.['message'],
    'Lease.coordination.k8s.io "bad" is invalid: [spec.leaseDurationSeconds: Invalid value: 0: must be greater than 0, spec.leaseTransitions: Invalid value: -1: must be greater than or equal to 0]',
  );
});
