// Lists: limit/continue as a consistent snapshot, remainingItemCount, the resourceVersion x
// resourceVersionMatch table of the reference, ListOptions errors, field/label/shard selectors.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startApiServer, type StartedApiServer } from '../../helpers/apiserver.js';
import { eventBody } from '../../helpers/apiserver-fixtures.js';

let api: StartedApiServer;
const NS = 'lists';
const base = `/api/v1/namespaces/${NS}/events`;

type List = {
  metadata: {
    resourceVersion: string;
    continue?: string;
    remainingItemCount?: number;
    shardInfo?: { selector: string };
  };
  items: { metadata: { name: string; uid: string } }[];
};

async function list(q: string): Promise<List> {
  const r = await api.request('GET', `${base}?${q}`);
  assert.equal(r.status, 200, r.text);
  return r.json as unknown as List;
}

function numbered(i: number): Record<string, unknown> {
  const body = eventBody(`e${String(i).padStart(2, '0')}`, NS, {
    reason: i % 2 === 0 ? 'Even' : 'Odd',
  });
  (body['metadata'] as Record<string, unknown>)['labels'] = {
    parity: i % 2 === 0 ? 'even' : 'odd',
    idx: String(i),
  };
  return body;
}

before(async () => {
  api = await startApiServer({ args: ['--feature-gates=ShardedListAndWatch=true'] });
  assert.equal(
    (await api.request('POST', '/api/v1/namespaces', { body: { metadata: { name: NS } } })).status,
    201,
  );
  for (let i = 0; i < 25; i++) {
    const r = await api.request('POST', base, { body: numbered(i) });
    assert.equal(r.status, 201, r.text);
  }
});
after(async () => {
  await api?.stop();
});

test('limit/continue pages form a consistent snapshot with remainingItemCount', async () => {
  const p1 = await list('limit=10');
  assert.equal(p1.items.length, 10);
  assert.equal(p1.metadata.remainingItemCount, 15);
  assert.ok(p1.metadata.continue);
  // Changes after the first page must not show up in later pages.
  assert.equal((await api.request('POST', base, { body: eventBody('zz-new', NS) })).status, 201);
  assert.equal((await api.request('DELETE', `${base}/e20`)).status, 200);
  const p2 = await list(`limit=10&continue=${encodeURIComponent(p1.metadata.continue ?? '')}`);
  assert.equal(p2.metadata.resourceVersion, p1.metadata.resourceVersion);
  // Counted from the first page's remainder (15 - 10), in the snapshot: the new and deleted
  // events after it change nothing; the same page asked again says the same.
  assert.equal(p2.metadata.remainingItemCount, 5);
  assert.equal(
    (await list(`limit=10&continue=${encodeURIComponent(p1.metadata.continue ?? '')}`)).metadata
      .remainingItemCount,
    5,
  );
  const p3 = await list(`limit=10&continue=${encodeURIComponent(p2.metadata.continue ?? '')}`);
  assert.equal(p3.metadata.continue, undefined);
  assert.equal(p3.metadata.remainingItemCount, undefined);
  const names = [...p1.items, ...p2.items, ...p3.items].map((i) => i.metadata.name);
  assert.equal(names.length, 25);
  assert.ok(names.includes('e20'), 'deleted after the snapshot: still in it');
  assert.ok(!names.includes('zz-new'), 'created after the snapshot: not in it');
  assert.deepEqual(names, [...names].sort());
  await api.request('POST', base, { body: numbered(20) });
  await api.request('DELETE', `${base}/zz-new`);
});

test('items is always an array; list kind and apiVersion', async () => {
  const r = await api.request('GET', `${base}?labelSelector=nothing%3Dhere`);
  assert.equal(r.status, 200);
  assert.deepEqual(r.json?.['items'], []);
  assert.equal(r.json?.['kind'], 'EventList');
  assert.equal(r.json?.['apiVersion'], 'v1');
});

test('a compact JSON list (items from the served-JSON cache) is the same document as the pretty one, twice', async () => {
  for (const q of ['limit=7', 'labelSelector=parity%3Deven', '']) {
    const pretty = await api.request('GET', `${base}?pretty=true&${q}`);
    for (let round = 0; round < 2; round++) {
      const compact = await api.request('GET', `${base}?${q}`);
      assert.equal(compact.status, 200);
      assert.equal(compact.text, JSON.stringify(JSON.parse(pretty.text)), `${q}, round ${round}`);
    }
  }
});

test('all-namespaces list includes this namespace', async () => {
  const r = await api.request('GET', `/api/v1/events?fieldSelector=metadata.namespace%3D${NS}`);
  assert.equal(r.status, 200);
  assert.equal((r.json?.['items'] as unknown[]).length, 25);
});

test('resourceVersion semantics: unset, 0, not older than, exact with limit, Exact, NotOlderThan', async () => {
  const before = await list('');
  const rv = before.metadata.resourceVersion;
  assert.equal((await api.request('POST', base, { body: eventBody('after-rv', NS) })).status, 201);
  const latest = await list('');
  assert.ok(Number(latest.metadata.resourceVersion) > Number(rv));
  assert.ok(latest.items.some((i) => i.metadata.name === 'after-rv'));
  assert.ok((await list('resourceVersion=0')).items.some((i) => i.metadata.name === 'after-rv'));
  const notOlder = await list(`resourceVersion=${rv}`);
  assert.ok(Number(notOlder.metadata.resourceVersion) >= Number(rv));
  const exactByLimit = await list(`resourceVersion=${rv}&limit=500`);
  assert.equal(exactByLimit.metadata.resourceVersion, rv);
  assert.ok(!exactByLimit.items.some((i) => i.metadata.name === 'after-rv'));
  const exact = await list(`resourceVersion=${rv}&resourceVersionMatch=Exact`);
  assert.equal(exact.metadata.resourceVersion, rv);
  assert.ok(!exact.items.some((i) => i.metadata.name === 'after-rv'));
  const nto = await list(`resourceVersion=${rv}&resourceVersionMatch=NotOlderThan`);
  assert.ok(nto.items.some((i) => i.metadata.name === 'after-rv'));
  await api.request('DELETE', `${base}/after-rv`);
});

test('ListOptions errors are 422 Invalid with the reference messages', async () => {
  const cases: [string, string][] = [
    [
      'resourceVersionMatch=Exact',
      'resourceVersionMatch is forbidden unless resourceVersion is provided',
    ],
    [
      'resourceVersionMatch=NotOlderThan',
      'resourceVersionMatch is forbidden unless resourceVersion is provided',
    ],
    [
      'resourceVersion=0&resourceVersionMatch=Exact',
      'resourceVersionMatch "exact" is forbidden for resourceVersion "0"',
    ],
    ['resourceVersion=1&resourceVersionMatch=Sometimes', 'Unsupported value: "Sometimes"'],
    ['sendInitialEvents=true', 'sendInitialEvents is forbidden for list'],
    [
      'resourceVersion=1&resourceVersionMatch=Exact&continue=abc',
      'resourceVersionMatch is forbidden when continue is provided',
    ],
  ];
  for (const [q, msg] of cases) {
    const r = await api.request('GET', `${base}?${q}`);
    assert.equal(r.status, 422, `${q}: ${r.text}`);
    assert.equal(r.json?.['reason'], 'Invalid');
    assert.match(String(r.json?.['message']), /^ListOptions\.meta\.platform\.io "" is invalid: /);
    assert.ok(String(r.json?.['message']).includes(msg), `${q}: ${String(r.json?.['message'])}`);
  }
});

test('continue with a resourceVersion is 400; a bad token is 400; a too-new rv is 504', async () => {
  const p1 = await list('limit=5');
  const r = await api.request(
    'GET',
    `${base}?limit=5&resourceVersion=3&continue=${p1.metadata.continue ?? ''}`,
  );
  assert.equal(r.status, 400);
  assert.equal(
    r.json?.['message'],
    'specifying resource version is not allowed when using continue',
  );
  const bad = await api.request('GET', `${base}?limit=5&continue=not-a-token!`);
  assert.equal(bad.status, 400);
  assert.match(String(bad.json?.['message']), /^invalid continue token: /);
  const wrongVersion = Buffer.from(
    JSON.stringify({ v: 'meta.other.io/v1', rv: 3, start: 'a' }),
  ).toString('base64url');
  assert.equal((await api.request('GET', `${base}?limit=5&continue=${wrongVersion}`)).status, 400);
  const far = await api.request('GET', `${base}?resourceVersion=99999999`);
  assert.equal(far.status, 504);
  assert.equal(far.json?.['reason'], 'Timeout');
  assert.equal(far.headers['retry-after'], '1');
});

test('field selectors: reason, involvedObject, source; != ; unsupported label and bad syntax are 400', async () => {
  assert.equal((await list('fieldSelector=reason%3DEven')).items.length, 13);
  assert.equal((await list('fieldSelector=reason!%3DEven')).items.length, 12);
  assert.equal((await list('fieldSelector=involvedObject.name%3Dp,reason%3DOdd')).items.length, 12);
  assert.equal(
    (await list('fieldSelector=source%3Dnodeagent,metadata.name%3De01')).items.length,
    1,
  );
  const unsupported = await api.request('GET', `${base}?fieldSelector=spec.foo%3Dbar`);
  assert.equal(unsupported.status, 400);
  assert.equal(unsupported.json?.['message'], 'field label not supported: spec.foo');
  const syntax = await api.request('GET', `${base}?fieldSelector=reason`);
  assert.equal(syntax.status, 400);
  assert.equal(syntax.json?.['message'], "invalid selector: 'reason'; can't understand 'reason'");
});

test('label selectors: =, in, notin, exists, !, and a parse error', async () => {
  assert.equal((await list('labelSelector=parity%3Deven')).items.length, 13);
  assert.equal(
    (await list(`labelSelector=${encodeURIComponent('idx in (1,2,3)')}`)).items.length,
    3,
  );
  assert.equal(
    (await list(`labelSelector=${encodeURIComponent('parity notin (even)')}`)).items.length,
    12,
  );
  assert.equal((await list('labelSelector=idx')).items.length, 25);
  assert.equal((await list(`labelSelector=${encodeURIComponent('!idx')}`)).items.length, 0);
  const withSelectorLimit = await list('labelSelector=parity%3Deven&limit=5');
  assert.equal(withSelectorLimit.items.length, 5);
  assert.equal(
    withSelectorLimit.metadata.remainingItemCount,
    undefined,
    'no remainingItemCount with selectors',
  );
  const bad = await api.request('GET', `${base}?labelSelector=${encodeURIComponent('a in (')}`);
  assert.equal(bad.status, 400);
  assert.match(String(bad.json?.['message']), /unable to parse requirement|found '', expected/);
});

test('shardSelector (gate on): FNV ranges partition the objects and are echoed', async () => {
  const all = await list('');
  const lo = `shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')`;
  const hi = `shardRange(object.metadata.uid, '0x8000000000000000', '0x10000000000000000')`;
  const a = await list(`shardSelector=${encodeURIComponent(lo)}`);
  const b = await list(`shardSelector=${encodeURIComponent(hi)}`);
  assert.equal(a.items.length + b.items.length, all.items.length);
  assert.equal(a.metadata.shardInfo?.selector, lo);
  const both = await list(`shardSelector=${encodeURIComponent(`${lo} || ${hi}`)}`);
  assert.equal(both.items.length, all.items.length);
  const bad = await api.request(
    'GET',
    `${base}?shardSelector=${encodeURIComponent("shardRange(object.metadata.uid, '0x10', '0x20')")}`,
  );
  assert.equal(bad.status, 400);
  assert.match(String(bad.json?.['message']), /must be a 0x-prefixed 16-digit hex value/);
  const empty = await api.request('GET', `${base}?shardSelector=`);
  assert.equal(empty.status, 400);
  assert.equal(empty.json?.['message'], 'empty shard selector is not allowed');
});

test('delete collection applies list options and returns the deleted items', async () => {
  const r = await api.request('DELETE', `${base}?labelSelector=parity%3Dodd`);
  assert.equal(r.status, 200, r.text);
  assert.equal(r.json?.['kind'], 'EventList');
  assert.equal((r.json?.['items'] as unknown[]).length, 12);
  assert.equal((await list('')).items.length, 13);
});
