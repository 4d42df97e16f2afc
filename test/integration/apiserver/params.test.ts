// Write and delete parameters: fieldManager and managedFields, PATCH types and force, apply
// (create, conflicts), gracePeriodSeconds on bound pods, propagationPolicy/orphanDependents,
// preconditions, pretty, and ignoreStoreReadErrorWithClusterBreakingPotential on a corrupted row.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase, prepareKept } from '../../../src/apiserver/storage/sqlite-handles.js';
import { startApiServer, type StartedApiServer } from '../../helpers/apiserver.js';
import { eventBody, podBody } from '../../helpers/apiserver-fixtures.js';

let api: StartedApiServer;
let dataDir: string;
const base = '/api/v1/namespaces/default/events';
type Obj = Record<string, unknown>;
const meta = (o: Obj | undefined): Obj => (o?.['metadata'] ?? {}) as Obj;

before(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'pa-params-'));
  api = await startApiServer({ dataDir });
});
after(async () => {
  await api?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

test('fieldManager: recorded in managedFields; defaults to the User-Agent; length and printable rules', async () => {
  const c = await api.request('POST', `${base}?fieldManager=my-tool`, {
    body: eventBody('fm1', 'default'),
  });
  assert.equal(c.status, 201, c.text);
  const mf = meta(c.json)['managedFields'] as Obj[];
  assert.equal(mf[0]?.['manager'], 'my-tool');
  assert.equal(mf[0]?.['operation'], 'Update');
  assert.equal(mf[0]?.['fieldsType'], 'FieldsV1');
  assert.equal(mf[0]?.['apiVersion'], 'v1');
  const ua = await api.request('POST', base, {
    body: eventBody('fm2', 'default'),
    headers: { 'user-agent': 'kubectl/v1.32 (linux)' },
  });
  assert.equal((meta(ua.json)['managedFields'] as Obj[])[0]?.['manager'], 'kubectl');
  const long = await api.request('POST', `${base}?fieldManager=${'x'.repeat(129)}`, {
    body: eventBody('fm3', 'default'),
  });
  assert.equal(long.status, 422);
  assert.match(String(long.json?.['message']), /fieldManager: Too long/);
  const ctrl = await api.request('POST', `${base}?fieldManager=a%07b`, {
    body: eventBody('fm4', 'default'),
  });
  assert.equal(ctrl.status, 422);
  assert.match(String(ctrl.json?.['message']), /invalid character U\+0007 \(at position 1\)/);
});

test('PATCH: json-patch, merge-patch, strategic-merge-patch; force only with apply; apply needs a fieldManager', async () => {
  const jp = await api.request('PATCH', `${base}/fm1`, {
    body: [{ op: 'replace', path: '/message', value: 'json-patched' }],
    contentType: 'application/json-patch+json',
  });
  assert.equal(jp.status, 200, jp.text);
  assert.equal(jp.json?.['message'], 'json-patched');
  const sm = await api.request('PATCH', `${base}/fm1`, {
    body: { reason: 'Strategic' },
    contentType: 'application/strategic-merge-patch+json',
  });
  assert.equal(sm.json?.['reason'], 'Strategic');
  const force = await api.request('PATCH', `${base}/fm1?force=true`, {
    body: { reason: 'x' },
    contentType: 'application/merge-patch+json',
  });
  assert.equal(force.status, 422);
  assert.match(String(force.json?.['message']), /may not be specified for non-apply patch/);
  const noManager = await api.request('PATCH', `${base}/fm1`, {
    body: 'reason: x',
    contentType: 'application/apply-patch+yaml',
  });
  assert.equal(noManager.status, 422);
  assert.match(
    String(noManager.json?.['message']),
    /fieldManager: Required value: is required for apply patch/,
  );
  const missing = await api.request('PATCH', `${base}/nope`, {
    body: { reason: 'x' },
    contentType: 'application/merge-patch+json',
  });
  assert.equal(missing.status, 404);
});

test('server-side apply creates (201), then a second manager conflicts (409) unless force', async () => {
  const doc =
    'apiVersion: v1\nkind: Event\nmetadata:\n  name: applied\n  namespace: default\ninvolvedObject:\n  kind: Node\n  name: n1\nreason: First\n';
  const a = await api.request('PATCH', `${base}/applied?fieldManager=alpha`, {
    body: doc,
    contentType: 'application/apply-patch+yaml',
  });
  assert.equal(a.status, 201, a.text);
  assert.equal((meta(a.json)['managedFields'] as Obj[])[0]?.['operation'], 'Apply');
  const b = await api.request('PATCH', `${base}/applied?fieldManager=beta`, {
    body: doc.replace('First', 'Second'),
    contentType: 'application/apply-patch+yaml',
  });
  assert.equal(b.status, 409, b.text);
  const causes = (b.json?.['details'] as Obj)['causes'] as Obj[];
  assert.equal(causes[0]?.['reason'], 'FieldManagerConflict');
  const f = await api.request('PATCH', `${base}/applied?fieldManager=beta&force=true`, {
    body: doc.replace('First', 'Second'),
    contentType: 'application/apply-patch+yaml',
  });
  assert.equal(f.status, 200, f.text);
  assert.equal(f.json?.['reason'], 'Second');
});

test('delete options: both orphanDependents and propagationPolicy, a bad policy, negative grace are 422', async () => {
  const both = await api.request(
    'DELETE',
    `${base}/fm2?orphanDependents=true&propagationPolicy=Background`,
  );
  assert.equal(both.status, 422);
  assert.match(
    String(both.json?.['message']),
    /^DeleteOptions\.meta\.platform\.io "" is invalid: propagationPolicy: Invalid value: "Background": orphanDependents and deletionPropagation cannot be both set/,
  );
  const body = await api.request('DELETE', `${base}/fm2`, {
    body: { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: 'Sideways' },
  });
  assert.equal(body.status, 422);
  assert.match(String(body.json?.['message']), /Unsupported value: "Sideways"/);
  const neg = await api.request('DELETE', `${base}/fm2?gracePeriodSeconds=-1`);
  assert.equal(neg.status, 422);
  const ok = await api.request('DELETE', `${base}/fm2?propagationPolicy=Foreground`);
  assert.equal(ok.status, 200);
  assert.deepEqual(Object.keys(ok.json?.['details'] as Obj).sort(), [
    'group',
    'kind',
    'name',
    'uid',
  ]);
});

test('preconditions: uid and resourceVersion mismatches are 409', async () => {
  const c = await api.request('POST', base, { body: eventBody('pre', 'default') });
  const uidBad = await api.request('DELETE', `${base}/pre`, {
    body: { preconditions: { uid: 'other' } },
  });
  assert.equal(uidBad.status, 409);
  assert.match(
    String(uidBad.json?.['message']),
    /Precondition failed: UID in precondition: other, UID in object meta: /,
  );
  const rvBad = await api.request('DELETE', `${base}/pre`, {
    body: { preconditions: { resourceVersion: '1' } },
  });
  assert.equal(rvBad.status, 409);
  const good = await api.request('DELETE', `${base}/pre`, {
    body: {
      preconditions: { uid: meta(c.json)['uid'], resourceVersion: meta(c.json)['resourceVersion'] },
    },
  });
  assert.equal(good.status, 200, good.text);
});

test('gracePeriodSeconds: a pod bound to a node is marked for deletion, then removed with 0', async () => {
  const p = await api.request('POST', '/api/v1/namespaces/default/pods', {
    body: podBody('bound', 'default', { nodeName: 'n1' }),
  });
  assert.equal(p.status, 201, p.text);
  const d = await api.request(
    'DELETE',
    '/api/v1/namespaces/default/pods/bound?gracePeriodSeconds=60',
  );
  assert.equal(d.status, 200);
  assert.equal(meta(d.json)['deletionGracePeriodSeconds'], 60);
  assert.ok(meta(d.json)['deletionTimestamp']);
  assert.equal((await api.request('GET', '/api/v1/namespaces/default/pods/bound')).status, 200);
  const now = await api.request('DELETE', '/api/v1/namespaces/default/pods/bound', {
    body: { gracePeriodSeconds: 0 },
  });
  assert.equal(now.status, 200);
  assert.equal((await api.request('GET', '/api/v1/namespaces/default/pods/bound')).status, 404);
  const unbound = await api.request('POST', '/api/v1/namespaces/default/pods', {
    body: podBody('unbound', 'default'),
  });
  assert.equal(unbound.status, 201);
  await api.request('DELETE', '/api/v1/namespaces/default/pods/unbound?gracePeriodSeconds=30');
  assert.equal(
    (await api.request('GET', '/api/v1/namespaces/default/pods/unbound')).status,
    404,
    'an unbound pod goes at once',
  );
});

test('finalizers hold a deletion until they are removed', async () => {
  await api.request('POST', base, {
    body: {
      ...eventBody('fin', 'default'),
      metadata: { name: 'fin', finalizers: ['example.com/hold'] },
    },
  });
  const d = await api.request('DELETE', `${base}/fin`);
  assert.equal(d.status, 200);
  const held = await api.request('GET', `${base}/fin`);
  assert.ok(meta(held.json)['deletionTimestamp']);
  const rel = await api.request('PATCH', `${base}/fin`, {
    body: { metadata: { finalizers: null } },
    contentType: 'application/merge-patch+json',
  });
  assert.equal(rel.status, 200, rel.text);
  assert.equal((await api.request('GET', `${base}/fin`)).status, 404);
});

test('pretty=true indents the JSON', async () => {
  const r = await api.request('GET', `${base}/fm1?pretty=true`);
  assert.match(r.text, /^\{\n {2}"kind"|^\{\n {2}"/);
  const plain = await api.request('GET', `${base}/fm1`);
  assert.ok(!plain.text.includes('\n'));
});

test('ignoreStoreReadErrorWithClusterBreakingPotential deletes a stored object that cannot be decoded', async () => {
  const c = await api.request('POST', base, { body: eventBody('corrupt', 'default') });
  assert.equal(c.status, 201);
  const healthy = await api.request(
    'DELETE',
    `${base}/fm1?ignoreStoreReadErrorWithClusterBreakingPotential=true`,
  );
  assert.equal(healthy.status, 422, 'only for corrupt objects');
  const db = openDatabase(join(dataDir, 'plat-apiserver.db'));
  try {
    prepareKept(
      db,
      "UPDATE revisions SET value = ? WHERE key = '/core/events/default/corrupt'",
    ).run(Buffer.from([0xff, 0x00, 0x13]));
  } finally {
    db.close();
  }
  const g = await api.request('GET', `${base}/corrupt`);
  assert.equal(g.status, 500);
  assert.equal(g.json?.['reason'], 'StorageReadError');
  const plainDelete = await api.request('DELETE', `${base}/corrupt`);
  assert.equal(plainDelete.status, 500);
  const unsafe = await api.request(
    'DELETE',
    `${base}/corrupt?ignoreStoreReadErrorWithClusterBreakingPotential=true`,
  );
  assert.equal(unsafe.status, 200, unsafe.text);
  assert.equal((await api.request('GET', `${base}/corrupt`)).status, 404);
  assert.equal((await api.request('GET', base)).status, 200, 'the list is readable again');
});
