// --data-dir: nothing acknowledged is lost on kill -9 (also when concurrent writes are committed
// in groups), resourceVersions continue after a restart, and a watch resumes across the restart
// from a resourceVersion of before it.

import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startApiServer, type StartedApiServer } from '../../helpers/apiserver.js';
import { eventBody } from '../../helpers/apiserver-fixtures.js';

const root = mkdtempSync(join(tmpdir(), 'pa-persist-'));
const dataDir = join(root, 'data');
const certDir = join(root, 'certs');
let api: StartedApiServer | undefined;
after(async () => {
  await api?.stop();
  rmSync(root, { recursive: true, force: true });
});

test('acknowledged writes survive kill -9; rv continues; watch resumes from before the restart', async () => {
  const first = await startApiServer({ dataDir, certDir });
  api = first;
  const base = '/api/v1/namespaces/default/events';
  const start = await first.request('GET', base);
  const rv0 = String((start.json?.['metadata'] as Record<string, unknown>)['resourceVersion']);
  let lastRv = 0;
  for (let i = 0; i < 30; i++) {
    const r = await first.request('POST', base, { body: eventBody(`p${i}`, 'default') });
    assert.equal(r.status, 201);
    lastRv = Number((r.json?.['metadata'] as Record<string, unknown>)['resourceVersion']);
  }
  await first.request('DELETE', `${base}/p3`);
  await first.kill();
  const second = await startApiServer({ dataDir, certDir });
  api = second;
  const list = await second.request('GET', base);
  const names = (list.json?.['items'] as { metadata: { name: string } }[]).map(
    (i) => i.metadata.name,
  );
  for (let i = 0; i < 30; i++) assert.equal(names.includes(`p${i}`), i !== 3, `p${i}`);
  const next = await second.request('POST', base, { body: eventBody('after-restart', 'default') });
  assert.ok(
    Number((next.json?.['metadata'] as Record<string, unknown>)['resourceVersion']) > lastRv + 1,
  );
  const w = await second.watch(`${base}?watch=true&resourceVersion=${rv0}`);
  try {
    const seen: string[] = [];
    for (let i = 0; i < 32; i++) {
      const e = await w.next();
      seen.push(`${e.type}:${String((e.object['metadata'] as Record<string, unknown>)['name'])}`);
    }
    assert.equal(seen[0], 'ADDED:p0');
    assert.equal(seen[30], 'DELETED:p3');
    assert.equal(seen[31], 'ADDED:after-restart');
  } finally {
    w.close();
  }
});

test('concurrent writes on disk (committed in groups): each answered write survives kill -9; one name created once, the rest 409 AlreadyExists', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'pa-persist-batch-'));
  let server = await startApiServer({ dataDir: join(dir, 'data'), certDir: join(dir, 'certs') });
  t.after(async () => {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  });
  const base = '/api/v1/namespaces/default/events';
  const distinct = Array.from({ length: 40 }, (_, i) =>
    server.request('POST', base, { body: eventBody(`c${i}`, 'default') }),
  );
  const same = Array.from({ length: 8 }, () =>
    server.request('POST', base, { body: eventBody('dup', 'default') }),
  );
  const created = await Promise.all(distinct);
  const dups = await Promise.all(same);
  const rvs = created.map((r) => {
    assert.equal(r.status, 201, r.text);
    return Number((r.json?.['metadata'] as Record<string, unknown>)['resourceVersion']);
  });
  assert.equal(new Set(rvs).size, 40);
  assert.deepEqual(dups.map((r) => r.status).sort(), [201, 409, 409, 409, 409, 409, 409, 409]);
  for (const r of dups.filter((x) => x.status === 409)) {
    // The reference's answer to a create of an existing name.
    assert.equal(r.json?.['reason'], 'AlreadyExists');
    assert.equal(r.json?.['message'], 'events "dup" already exists');
  }
  await server.kill();
  server = await startApiServer({ dataDir: join(dir, 'data'), certDir: join(dir, 'certs') });
  const list = await server.request('GET', base);
  const names = new Set(
    (list.json?.['items'] as { metadata: { name: string } }[]).map((i) => i.metadata.name),
  );
  for (let i = 0; i < 40; i++)
    assert.ok(names.has(`c${i}`), `c${i} was answered 201 and must survive kill -9`);
  assert.ok(names.has('dup'));
});
