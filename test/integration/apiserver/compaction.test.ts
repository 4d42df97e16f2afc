// --etcd-compaction-interval: continue tokens and watch resourceVersions older than the interval
// expire: 410 Expired with a fresh continue token for lists, a 410 ERROR event for watches.
// --min-request-timeout: a watch without timeoutSeconds ends after a random time in [n, 2n).

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startApiServer, type StartedApiServer } from '../../helpers/apiserver.js';
import { eventBody } from '../../helpers/apiserver-fixtures.js';

let api: StartedApiServer;
const base = '/api/v1/namespaces/default/events';

before(async () => {
  api = await startApiServer({
    args: ['--etcd-compaction-interval=1s', '--min-request-timeout=1'],
  });
  for (let i = 0; i < 6; i++)
    await api.request('POST', base, { body: eventBody(`c${i}`, 'default') });
});
after(async () => {
  await api?.stop();
});

test('an expired continue token gives 410 with a fresh token; a too-old watch gives a 410 ERROR event', async () => {
  const p1 = await api.request('GET', `${base}?limit=2`);
  const meta1 = p1.json?.['metadata'] as Record<string, unknown>;
  const token = String(meta1['continue']);
  const rv = String(meta1['resourceVersion']);
  // Keep writing (superseding revisions) until the snapshot of the token is compacted away.
  const deadline = Date.now() + 20_000;
  let r = await api.request('GET', `${base}?limit=2&continue=${token}`);
  let n = 0;
  while (r.status === 200 && Date.now() < deadline) {
    await api.request('PATCH', `${base}/c0`, {
      body: { count: ++n },
      contentType: 'application/merge-patch+json',
    });
    await new Promise((res) => setTimeout(res, 200));
    r = await api.request('GET', `${base}?limit=2&continue=${token}`);
  }
  assert.equal(r.status, 410, r.text);
  assert.equal(r.json?.['reason'], 'Expired');
  const fresh = String((r.json?.['metadata'] as Record<string, unknown>)['continue']);
  assert.ok(fresh.length > 0 && fresh !== token);
  const cont = await api.request('GET', `${base}?limit=2&continue=${fresh}`);
  assert.equal(cont.status, 200, cont.text);
  const names = (cont.json?.['items'] as { metadata: { name: string } }[]).map(
    (i) => i.metadata.name,
  );
  assert.deepEqual(names, ['c2', 'c3'], 'continues from the next key of the latest state');
  const w = await api.watch(`${base}?watch=true&resourceVersion=${rv}`);
  assert.equal(w.status, 200);
  const e = await w.next();
  assert.equal(e.type, 'ERROR');
  assert.equal(e.object['code'], 410);
  assert.equal(e.object['reason'], 'Expired');
  assert.match(String(e.object['message']), /^too old resource version: \d+ \(\d+\)$/);
  await w.ended;
});

test('without timeoutSeconds a watch ends after a random time in [min-request-timeout, 2x)', async () => {
  const started = Date.now();
  const w = await api.watch(
    `${base}?watch=true&resourceVersion=0&fieldSelector=metadata.name%3Dnone`,
  );
  await w.ended;
  const took = Date.now() - started;
  assert.ok(took >= 900 && took < 4000, `ended after ${took} ms`);
});
