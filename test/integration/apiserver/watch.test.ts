// Watch: ADDED/MODIFIED/DELETED as line-delimited JSON; resume from a resourceVersion misses
// nothing; initial events for rv unset/0; sendInitialEvents with the initial-events-end
// bookmark; allowWatchBookmarks; selectors turning changes into ADDED/DELETED; timeoutSeconds;
// the /watch/ paths; the Invalid errors.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startApiServer, type StartedApiServer } from '../../helpers/apiserver.js';
import { eventBody } from '../../helpers/apiserver-fixtures.js';

let api: StartedApiServer;
const NS = 'watching';
const base = `/api/v1/namespaces/${NS}/events`;

function meta(o: Record<string, unknown>): Record<string, unknown> {
  return o['metadata'] as Record<string, unknown>;
}

async function currentRv(): Promise<string> {
  const r = await api.request('GET', `${base}`);
  return String(meta(r.json ?? {})['resourceVersion']);
}

before(async () => {
  api = await startApiServer();
  assert.equal(
    (await api.request('POST', '/api/v1/namespaces', { body: { metadata: { name: NS } } })).status,
    201,
  );
});
after(async () => {
  await api?.stop();
});

test('watch from a resourceVersion streams ADDED, MODIFIED, DELETED in order', async () => {
  const rv = await currentRv();
  const w = await api.watch(`${base}?watch=true&resourceVersion=${rv}`);
  try {
    assert.equal(w.status, 200);
    assert.match(String(w.headers['content-type']), /^application\/json/);
    const c = await api.request('POST', base, { body: eventBody('w1', NS) });
    await api.request('PATCH', `${base}/w1`, {
      body: { count: 2 },
      contentType: 'application/merge-patch+json',
    });
    await api.request('DELETE', `${base}/w1`);
    const e1 = await w.next();
    const e2 = await w.next();
    const e3 = await w.next();
    assert.deepEqual([e1.type, e2.type, e3.type], ['ADDED', 'MODIFIED', 'DELETED']);
    assert.equal(e1.object['kind'], 'Event');
    assert.equal(e1.object['apiVersion'], 'v1');
    assert.equal(meta(e1.object)['resourceVersion'], meta(c.json ?? {})['resourceVersion']);
    assert.equal(e2.object['count'], 2);
    assert.ok(
      Number(meta(e3.object)['resourceVersion']) > Number(meta(e2.object)['resourceVersion']),
    );
  } finally {
    w.close();
  }
});

test('resuming from an older resourceVersion replays every change after it', async () => {
  const rv = await currentRv();
  for (let i = 0; i < 5; i++) await api.request('POST', base, { body: eventBody(`r${i}`, NS) });
  await api.request('DELETE', `${base}/r2`);
  const w = await api.watch(`/api/v1/watch/namespaces/${NS}/events?resourceVersion=${rv}`);
  try {
    const got: string[] = [];
    for (let i = 0; i < 6; i++) {
      const e = await w.next();
      got.push(`${e.type}:${String(meta(e.object)['name'])}`);
    }
    assert.deepEqual(got, [
      'ADDED:r0',
      'ADDED:r1',
      'ADDED:r2',
      'ADDED:r3',
      'ADDED:r4',
      'DELETED:r2',
    ]);
  } finally {
    w.close();
  }
});

test('watch without resourceVersion starts with ADDED for current objects', async () => {
  const w = await api.watch(`${base}?watch=1&fieldSelector=metadata.name%3Dr0`);
  try {
    const e = await w.next();
    assert.equal(e.type, 'ADDED');
    assert.equal(meta(e.object)['name'], 'r0');
  } finally {
    w.close();
  }
});

test('sendInitialEvents: ADDED for each object, then the initial-events-end bookmark, then changes', async () => {
  const w = await api.watch(
    `${base}?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&labelSelector=set%3Dinit`,
  );
  try {
    const bm = await w.next();
    assert.equal(bm.type, 'BOOKMARK');
    assert.deepEqual(meta(bm.object)['annotations'], { 'platform.io/initial-events-end': 'true' });
    assert.equal(bm.object['kind'], 'Event');
    const body = eventBody('init1', NS);
    (body['metadata'] as Record<string, unknown>)['labels'] = { set: 'init' };
    await api.request('POST', base, { body });
    const e = await w.next();
    assert.equal(e.type, 'ADDED');
  } finally {
    w.close();
  }
  const w2 = await api.watch(
    `${base}?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&labelSelector=set%3Dinit`,
  );
  try {
    const first = await w2.next();
    assert.equal(first.type, 'ADDED');
    assert.equal(meta(first.object)['name'], 'init1');
    const end = await w2.next();
    assert.equal(end.type, 'BOOKMARK');
    assert.equal(meta(end.object)['annotations'] !== undefined, true);
  } finally {
    w2.close();
  }
});

test('sendInitialEvents without NotOlderThan and resourceVersionMatch without sendInitialEvents are Invalid', async () => {
  const a = await api.request('GET', `${base}?watch=true&sendInitialEvents=true`);
  assert.equal(a.status, 422);
  assert.match(
    String(a.json?.['message']),
    /sendInitialEvents requires setting resourceVersionMatch to NotOlderThan/,
  );
  const b = await api.request(
    'GET',
    `${base}?watch=true&resourceVersionMatch=NotOlderThan&resourceVersion=1`,
  );
  assert.equal(b.status, 422);
  assert.match(
    String(b.json?.['message']),
    /resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided/,
  );
});

test('a label change turns into ADDED and DELETED for a filtered watcher', async () => {
  const body = eventBody('flip', NS);
  (body['metadata'] as Record<string, unknown>)['labels'] = { color: 'red' };
  await api.request('POST', base, { body });
  const rv = await currentRv();
  const w = await api.watch(`${base}?watch=true&resourceVersion=${rv}&labelSelector=color%3Dblue`);
  try {
    await api.request('PATCH', `${base}/flip`, {
      body: { metadata: { labels: { color: 'blue' } } },
      contentType: 'application/merge-patch+json',
    });
    await api.request('PATCH', `${base}/flip`, {
      body: { message: 'still blue' },
      contentType: 'application/merge-patch+json',
    });
    await api.request('PATCH', `${base}/flip`, {
      body: { metadata: { labels: { color: 'green' } } },
      contentType: 'application/merge-patch+json',
    });
    assert.equal((await w.next()).type, 'ADDED');
    assert.equal((await w.next()).type, 'MODIFIED');
    const gone = await w.next();
    assert.equal(gone.type, 'DELETED');
    assert.deepEqual(meta(gone.object)['labels'], { color: 'blue' });
  } finally {
    w.close();
  }
});

test('timeoutSeconds ends the stream; with bookmarks a BOOKMARK comes first', async () => {
  const rv = await currentRv();
  const started = Date.now();
  const w = await api.watch(
    `${base}?watch=true&resourceVersion=${rv}&timeoutSeconds=1&allowWatchBookmarks=true`,
  );
  const e = await w.next(5000);
  assert.equal(e.type, 'BOOKMARK');
  assert.ok(Number(meta(e.object)['resourceVersion']) >= Number(rv));
  assert.deepEqual(Object.keys(meta(e.object)), ['resourceVersion']);
  await w.ended;
  assert.ok(Date.now() - started < 5000);
});

test('watch of one object by name through /watch/.../{name}', async () => {
  const rv = await currentRv();
  const w = await api.watch(`/api/v1/watch/namespaces/${NS}/events/only?resourceVersion=${rv}`);
  try {
    await api.request('POST', base, { body: eventBody('other', NS) });
    await api.request('POST', base, { body: eventBody('only', NS) });
    const e = await w.next();
    assert.equal(meta(e.object)['name'], 'only');
  } finally {
    w.close();
  }
});

test('all-namespaces watch and cluster-scoped CSR watch paths answer 200', async () => {
  const w = await api.watch('/api/v1/watch/events?timeoutSeconds=1');
  assert.equal(w.status, 200);
  w.close();
  const c = await api.watch(
    '/apis/certificates.platform.io/v1/watch/certificatesigningrequests?timeoutSeconds=1',
  );
  assert.equal(c.status, 200);
  await c.ended;
});

// The periodic bookmark (once a minute, as the reference's) is in the unit tests of the timers.
test("allowWatchBookmarks: a quiet watch's bookmark carries the current revision", async () => {
  const rv = await currentRv();
  const w = await api.watch(
    `${base}?watch=true&resourceVersion=${rv}&allowWatchBookmarks=true&timeoutSeconds=1`,
  );
  try {
    const e = await w.next(5000);
    assert.equal(e.type, 'BOOKMARK');
    assert.equal(meta(e.object)['resourceVersion'], rv);
  } finally {
    w.close();
  }
});

test('a watch from a resourceVersion the server has not reached waits for it (up to 3 s)', async () => {
  const rv = Number(await currentRv());
  const pending = api.watch(`${base}?watch=true&resourceVersion=${rv + 1}`);
  await api.request('POST', base, { body: eventBody('reach-a', NS) });
  const w = await pending;
  try {
    assert.equal(w.status, 200);
    await api.request('POST', base, { body: eventBody('reach-b', NS) });
    const e = await w.next();
    assert.equal(meta(e.object)['name'], 'reach-b', 'events after the requested revision');
  } finally {
    w.close();
  }
});
