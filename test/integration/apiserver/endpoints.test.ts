// Every endpoint of the spec's CSR and Event tables, driven from those tables: the method, the
// path, a success code the table allows, `pretty` (in every set), and for the sets with
// `dryRun` (W, P, D, DC) that a dry run answers like the real call but changes nothing.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startApiServer, type StartedApiServer } from '../../helpers/apiserver.js';
import { csrBody, eventBody, makeCsrPem } from '../../helpers/apiserver-fixtures.js';

let api: StartedApiServer;
let csrPem = '';
const G = '/apis/certificates.platform.io/v1';
const E = '/api/v1';

type Row = {
  op: string;
  method: string;
  path: string;
  set: 'R' | 'W' | 'P' | 'D' | 'DC' | 'L';
  codes: number[];
  body?: () => unknown;
  contentType?: string;
  watch?: boolean;
};

const csr = (name: string) =>
  csrBody(name, csrPem, 'example.com/endpoints', ['digital signature', 'client auth']);
const merge = 'application/merge-patch+json';

// The spec's "CertificateSigningRequest endpoints" table.
const csrRows: Row[] = [
  {
    op: 'Create',
    method: 'POST',
    path: `${G}/certificatesigningrequests`,
    set: 'W',
    codes: [200, 201, 202],
    body: () => csr('c-new'),
  },
  {
    op: 'Patch',
    method: 'PATCH',
    path: `${G}/certificatesigningrequests/c1`,
    set: 'P',
    codes: [200, 201],
    body: () => ({ metadata: { labels: { patched: 'yes' } } }),
    contentType: merge,
  },
  {
    op: 'Replace',
    method: 'PUT',
    path: `${G}/certificatesigningrequests/c1`,
    set: 'W',
    codes: [200, 201],
    body: () => csr('c1'),
  },
  {
    op: 'Delete',
    method: 'DELETE',
    path: `${G}/certificatesigningrequests/c2`,
    set: 'D',
    codes: [200, 202],
  },
  {
    op: 'Delete Collection',
    method: 'DELETE',
    path: `${G}/certificatesigningrequests?labelSelector=group%3Dc3`,
    set: 'DC',
    codes: [200],
  },
  { op: 'Read', method: 'GET', path: `${G}/certificatesigningrequests/c1`, set: 'R', codes: [200] },
  { op: 'List', method: 'GET', path: `${G}/certificatesigningrequests`, set: 'L', codes: [200] },
  {
    op: 'Watch',
    method: 'GET',
    path: `${G}/watch/certificatesigningrequests/c1`,
    set: 'L',
    codes: [200],
    watch: true,
  },
  {
    op: 'Watch List',
    method: 'GET',
    path: `${G}/watch/certificatesigningrequests`,
    set: 'L',
    codes: [200],
    watch: true,
  },
  {
    op: 'Patch Status',
    method: 'PATCH',
    path: `${G}/certificatesigningrequests/c1/status`,
    set: 'P',
    codes: [200, 201],
    body: () => ({
      status: { conditions: [{ type: 'Failed', status: 'True', reason: 'R', message: 'm' }] },
    }),
    contentType: merge,
  },
  {
    op: 'Read Status',
    method: 'GET',
    path: `${G}/certificatesigningrequests/c1/status`,
    set: 'R',
    codes: [200],
  },
  {
    op: 'Replace Status',
    method: 'PUT',
    path: `${G}/certificatesigningrequests/c4/status`,
    set: 'W',
    codes: [200, 201],
    body: () => csr('c4'),
  },
];

// The spec's "Event endpoints" table.
const eventRows: Row[] = [
  {
    op: 'Create',
    method: 'POST',
    path: `${E}/namespaces/default/events`,
    set: 'W',
    codes: [200, 201, 202],
    body: () => eventBody('e-new', 'default'),
  },
  {
    op: 'Patch',
    method: 'PATCH',
    path: `${E}/namespaces/default/events/e1`,
    set: 'P',
    codes: [200, 201],
    body: () => ({ message: 'patched' }),
    contentType: merge,
  },
  {
    op: 'Replace',
    method: 'PUT',
    path: `${E}/namespaces/default/events/e1`,
    set: 'W',
    codes: [200, 201],
    body: () => eventBody('e1', 'default', { message: 'replaced' }),
  },
  {
    op: 'Delete',
    method: 'DELETE',
    path: `${E}/namespaces/default/events/e2`,
    set: 'D',
    codes: [200, 202],
  },
  {
    op: 'Delete Collection',
    method: 'DELETE',
    path: `${E}/namespaces/default/events?labelSelector=group%3De3`,
    set: 'DC',
    codes: [200],
  },
  { op: 'Read', method: 'GET', path: `${E}/namespaces/default/events/e1`, set: 'R', codes: [200] },
  { op: 'List', method: 'GET', path: `${E}/namespaces/default/events`, set: 'L', codes: [200] },
  { op: 'List All Namespaces', method: 'GET', path: `${E}/events`, set: 'L', codes: [200] },
  {
    op: 'Watch',
    method: 'GET',
    path: `${E}/watch/namespaces/default/events/e1`,
    set: 'L',
    codes: [200],
    watch: true,
  },
  {
    op: 'Watch List',
    method: 'GET',
    path: `${E}/watch/namespaces/default/events`,
    set: 'L',
    codes: [200],
    watch: true,
  },
  {
    op: 'Watch List All Namespaces',
    method: 'GET',
    path: `${E}/watch/events`,
    set: 'L',
    codes: [200],
    watch: true,
  },
];

async function seed(): Promise<void> {
  for (const n of ['c1', 'c2', 'c4'])
    assert.equal(
      (await api.request('POST', `${G}/certificatesigningrequests`, { body: csr(n) })).status,
      201,
    );
  const c3 = csr('c3');
  (c3['metadata'] as Record<string, unknown>)['labels'] = { group: 'c3' };
  assert.equal(
    (await api.request('POST', `${G}/certificatesigningrequests`, { body: c3 })).status,
    201,
  );
  for (const n of ['e1', 'e2'])
    assert.equal(
      (
        await api.request('POST', `${E}/namespaces/default/events`, {
          body: eventBody(n, 'default'),
        })
      ).status,
      201,
    );
  const e3 = eventBody('e3', 'default');
  (e3['metadata'] as Record<string, unknown>)['labels'] = { group: 'e3' };
  assert.equal(
    (await api.request('POST', `${E}/namespaces/default/events`, { body: e3 })).status,
    201,
  );
}

async function snapshot(): Promise<string> {
  const a = await api.request('GET', `${G}/certificatesigningrequests`);
  const b = await api.request('GET', `${E}/events`);
  return JSON.stringify([a.json?.['items'], b.json?.['items']]);
}

function withQuery(path: string, q: string): string {
  return path.includes('?') ? `${path}&${q}` : `${path}?${q}`;
}

async function bodyFor(row: Row, latest: boolean): Promise<unknown> {
  const body = row.body?.();
  if (!latest || body === undefined || row.method !== 'PUT') return body;
  // Replace: send the stored object back with the change (as clients do).
  const current = await api.request('GET', row.path.replace(/\/status$/, ''));
  return {
    ...current.json,
    ...(body as Record<string, unknown>),
    metadata: current.json?.['metadata'],
  };
}

before(async () => {
  csrPem = (await makeCsrPem({ cn: 'endpoints' })).csrPem;
  api = await startApiServer({ args: ['--controllers=-csrapproving,-csrsigning'] });
  await seed();
});
after(async () => {
  await api?.stop();
});

for (const [family, rows] of [
  ['CertificateSigningRequest', csrRows],
  ['Event', eventRows],
] as const) {
  test(`${family} endpoints: dry runs change nothing (sets W, P, D, DC)`, async () => {
    for (const row of rows.filter((r) => r.set !== 'R' && r.set !== 'L')) {
      const before = await snapshot();
      const r = await api.request(row.method, withQuery(row.path, 'dryRun=All'), {
        ...(row.body !== undefined ? { body: await bodyFor(row, true) } : {}),
        ...(row.contentType !== undefined ? { contentType: row.contentType } : {}),
      });
      assert.ok(row.codes.includes(r.status), `${family} ${row.op} dry run: ${r.status} ${r.text}`);
      assert.equal(await snapshot(), before, `${family} ${row.op}: a dry run changed storage`);
    }
  });

  test(`${family} endpoints: every operation answers with a code of its table row, pretty in every set`, async () => {
    for (const row of rows) {
      if (row.watch === true) {
        const w = await api.watch(withQuery(row.path, 'timeoutSeconds=1&pretty=true'));
        assert.ok(row.codes.includes(w.status), `${family} ${row.op}: ${w.status}`);
        await w.ended;
        continue;
      }
      const r = await api.request(row.method, withQuery(row.path, 'pretty=true'), {
        ...(row.body !== undefined ? { body: await bodyFor(row, true) } : {}),
        ...(row.contentType !== undefined ? { contentType: row.contentType } : {}),
      });
      assert.ok(row.codes.includes(r.status), `${family} ${row.op}: ${r.status} ${r.text}`);
      assert.match(r.text, /^\{\n {2}"/, `${family} ${row.op}: pretty output`);
    }
    const collected = await api.request('GET', row0Path(family));
    assert.equal(collected.status, 200);
  });
}

function row0Path(family: string): string {
  return family === 'Event' ? `${E}/namespaces/default/events` : `${G}/certificatesigningrequests`;
}

test('the approval subresource (not in the table, served as the reference): GET, PUT and PATCH', async () => {
  const g = await api.request('GET', `${G}/certificatesigningrequests/c1/approval`);
  assert.equal(g.status, 200);
  const p = await api.request('PATCH', `${G}/certificatesigningrequests/c4/approval`, {
    body: {
      status: { conditions: [{ type: 'Denied', status: 'True', reason: 'R', message: 'm' }] },
    },
    contentType: merge,
  });
  assert.equal(p.status, 200, p.text);
  assert.equal(
    (
      (p.json?.['status'] as Record<string, unknown>)['conditions'] as Record<string, unknown>[]
    )[0]?.['type'],
    'Denied',
  );
  assert.equal(
    (await api.request('DELETE', `${G}/certificatesigningrequests/c1/approval`)).status,
    405,
  );
  assert.equal(
    (await api.request('GET', `${E}/namespaces/default/events/e1/status`)).status,
    404,
    'events have no status subresource',
  );
});
