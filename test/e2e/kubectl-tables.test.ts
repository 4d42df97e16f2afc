// Server-side printing against the built plat-apiserver (--platform-domain=k8s.io): Table
// responses as the reference serves them to kubectl 1.32 (`--sort-by` needs includeObject=Object,
// `--chunk-size` pages through continue tokens, `-w` watches tables), and the reference's answers
// to a bad includeObject and to an Accept header asking only for a conversion we do not have.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { startApiServer, type StartedApiServer } from '../helpers/apiserver.js';
import { kubectlSkipReason } from '../helpers/kubectl.js';
import { csrBody, eventBody, makeCsrPem } from '../helpers/apiserver-fixtures.js';

const execFileP = promisify(execFile);
const skip = kubectlSkipReason('the kubectl tables suite') ?? false;
const tableAccept = 'application/json;as=Table;v=v1;g=meta.k8s.io';
const events = '/api/v1/namespaces/default/events';

let api: StartedApiServer;

async function kubectl(...args: string[]): Promise<string> {
  const { stdout } = await execFileP('kubectl', ['--kubeconfig', api.adminPlatconfig, ...args], {
    encoding: 'utf8',
    timeout: 30_000,
  });
  return stdout;
}

before(async () => {
  api = await startApiServer({ platformDomain: 'k8s.io' });
  // Created in an order that is neither the name order nor the time order.
  for (const [name, last] of [
    ['ev-b', '2026-01-01T00:03:00Z'],
    ['ev-c', '2026-01-01T00:01:00Z'],
    ['ev-a', '2026-01-01T00:02:00Z'],
  ] as const) {
    const r = await api.request('POST', events, {
      body: eventBody(name, 'default', {
        reason: `Reason-${name}`,
        firstTimestamp: last,
        lastTimestamp: last,
      }),
    });
    assert.equal(r.status, 201, r.text);
  }
});
after(async () => {
  await api?.stop();
});

test(
  'kubectl get events --sort-by=.lastTimestamp orders by the embedded objects (includeObject=Object)',
  { skip },
  async () => {
    const out = await kubectl(
      'get',
      'events',
      '--sort-by=.lastTimestamp',
      '-o',
      'custom-columns=NAME:.metadata.name,LAST:.lastTimestamp',
    );
    assert.deepEqual(
      out
        .trim()
        .split('\n')
        .slice(1)
        .map((l) => l.split(/\s+/)[0]),
      ['ev-c', 'ev-a', 'ev-b'],
    );
    const table = await kubectl('get', 'events', '--sort-by=.lastTimestamp');
    assert.match(table, /^LAST SEEN\s+TYPE\s+REASON\s+OBJECT\s+MESSAGE\n/);
    assert.ok(
      table.indexOf('Reason-ev-c') < table.indexOf('Reason-ev-a') &&
        table.indexOf('Reason-ev-a') < table.indexOf('Reason-ev-b'),
      table,
    );
  },
);

test('kubectl get csr --sort-by=.spec.signerName', { skip }, async () => {
  const { csrPem } = await makeCsrPem({ cn: 'sorter' });
  for (const [name, signer] of [
    ['csr-1', 'k8s.io/zeta'],
    ['csr-2', 'k8s.io/alpha'],
    ['csr-3', 'k8s.io/mid'],
  ] as const) {
    const r = await api.request('POST', '/apis/certificates.k8s.io/v1/certificatesigningrequests', {
      body: csrBody(name, csrPem, signer, ['client auth'], {}, 'k8s.io'),
    });
    assert.equal(r.status, 201, r.text);
  }
  const out = await kubectl('get', 'csr', '--sort-by=.spec.signerName');
  assert.deepEqual(
    out
      .trim()
      .split('\n')
      .slice(1)
      .map((l) => l.split(/\s+/)[0]),
    ['csr-2', 'csr-3', 'csr-1'],
  );
});

test('kubectl get events --chunk-size=1 pages through every event', { skip }, async () => {
  const out = await kubectl(
    'get',
    'events',
    '--chunk-size=1',
    '-o',
    'custom-columns=NAME:.metadata.name',
  );
  assert.deepEqual(out.trim().split('\n').slice(1).sort(), ['ev-a', 'ev-b', 'ev-c']);
});

test('a Table list pages with limit and continue; metadata carries the token and remainingItemCount', async () => {
  const first = await api.request('GET', `${events}?limit=2`, { headers: { accept: tableAccept } });
  assert.equal(first.status, 200, first.text);
  assert.equal(first.json?.['kind'], 'Table');
  const meta = first.json?.['metadata'] as Record<string, unknown>;
  assert.equal(typeof meta['continue'], 'string');
  assert.equal(meta['remainingItemCount'], 1);
  const rows1 = first.json?.['rows'] as { cells: unknown[] }[];
  assert.equal(rows1.length, 2);
  const second = await api.request(
    'GET',
    `${events}?limit=2&continue=${encodeURIComponent(String(meta['continue']))}`,
    { headers: { accept: tableAccept } },
  );
  const rows2 = second.json?.['rows'] as { cells: unknown[] }[];
  assert.equal(rows2.length, 1);
  assert.equal((second.json?.['metadata'] as Record<string, unknown>)['continue'], undefined);
  assert.deepEqual([...rows1, ...rows2].map((r) => r.cells[9]).sort(), ['ev-a', 'ev-b', 'ev-c']);
});

test('a watch of tables: one row per event, the column definitions in the first event only', async () => {
  const w = await api.watch(`${events}?watch=1&fieldSelector=metadata.name%3Dev-w`, {
    accept: tableAccept,
  });
  try {
    assert.equal(w.status, 200);
    assert.equal(
      (
        await api.request('POST', events, {
          body: eventBody('ev-w', 'default', { reason: 'Watched' }),
        })
      ).status,
      201,
    );
    assert.equal(
      (
        await api.request('PATCH', `${events}/ev-w`, {
          body: { message: 'again' },
          contentType: 'application/merge-patch+json',
        })
      ).status,
      200,
    );
    const added = await w.next();
    const modified = await w.next();
    assert.deepEqual([added.type, modified.type], ['ADDED', 'MODIFIED']);
    assert.equal(added.object['kind'], 'Table');
    assert.deepEqual(
      (added.object['columnDefinitions'] as { name: string }[]).map((c) => c.name),
      [
        'Last Seen',
        'Type',
        'Reason',
        'Object',
        'Subobject',
        'Source',
        'Message',
        'First Seen',
        'Count',
        'Name',
      ],
    );
    assert.equal(modified.object['columnDefinitions'], null);
    const rows = modified.object['rows'] as { cells: unknown[]; object: Record<string, unknown> }[];
    assert.equal(rows.length, 1);
    assert.equal(rows[0]?.cells[6], 'again');
    assert.equal(rows[0]?.object['kind'], 'PartialObjectMetadata');
  } finally {
    w.close();
  }
});

test('the reference 400 for a bad includeObject and 406 for an Accept asking only for a conversion we lack', async () => {
  const bad = await api.request('GET', `${events}?includeObject=All`, {
    headers: { accept: tableAccept },
  });
  assert.equal(bad.status, 400);
  assert.equal(
    bad.json?.['message'],
    `Unable to convert to Table as requested: includeObject: Invalid value: "All": must be 'Metadata', 'Object', 'None', or empty`,
  );
  const na = await api.request('GET', events, {
    headers: { accept: 'application/json;as=Table;v=v2;g=meta.k8s.io' },
  });
  assert.equal(na.status, 406);
  assert.deepEqual(
    { reason: na.json?.['reason'], message: na.json?.['message'] },
    {
      reason: 'NotAcceptable',
      message:
        'only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf',
    },
  );
  const one = await api.request('GET', `${events}/ev-a?includeObject=None`, {
    headers: { accept: tableAccept },
  });
  assert.deepEqual(
    (one.json?.['rows'] as { object: unknown }[]).map((r) => r.object),
    [null],
  );
});

test(
  'a default-profile plat-apiserver (platform.io) prints kubectl tables too',
  { skip },
  async () => {
    const plat = await startApiServer();
    try {
      const r = await plat.request('POST', events, {
        body: eventBody('ev-plat', 'default', { reason: 'Reason-plat' }),
      });
      assert.equal(r.status, 201, r.text);
      const { stdout } = await execFileP(
        'kubectl',
        ['--kubeconfig', plat.adminPlatconfig, 'get', 'events'],
        { encoding: 'utf8', timeout: 30_000 },
      );
      // the reference's event columns, not the NAME/AGE kubectl prints for what it cannot read
      assert.match(stdout, /^LAST SEEN\s+TYPE\s+REASON\s+OBJECT\s+MESSAGE\n/);
      assert.match(stdout, /Reason-plat/);
    } finally {
      await plat.stop();
    }
  },
);
