// events.k8s.io/v1 on the built plat-apiserver (kubernetes profile): one stored Event, two
// shapes, with the reference's field mapping, discovery entry, field selector labels, watch,
// validation answers and immutable fields, written as the reference (kube-apiserver 1.32) gives them.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startApiServer, type StartedApiServer } from '../../helpers/apiserver.js';
import { eventBody } from '../../helpers/apiserver-fixtures.js';

let api: StartedApiServer;
const core = '/api/v1/namespaces/default/events';
const v1 = '/apis/events.k8s.io/v1/namespaces/default/events';

function newEvent(name: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    apiVersion: 'events.k8s.io/v1',
    kind: 'Event',
    metadata: { name, namespace: 'default' },
    eventTime: '2026-01-01T00:00:00.000000Z',
    reportingController: 'kubelet',
    reportingInstance: 'node-1',
    action: 'Started',
    reason: 'Started',
    regarding: { kind: 'Pod', namespace: 'default', name: 'web', apiVersion: 'v1' },
    note: 'Started container app',
    type: 'Normal',
    ...extra,
  };
}

before(async () => {
  api = await startApiServer({ platformDomain: 'k8s.io', args: ['--platform-profile=kubernetes'] });
});
after(async () => {
  await api?.stop();
});

test('discovery lists events.k8s.io/v1 events as the reference does', async () => {
  const groups = (await api.request('GET', '/apis')).json?.['groups'] as {
    name: string;
    preferredVersion: { groupVersion: string };
  }[];
  assert.deepEqual(groups.find((g) => g.name === 'events.k8s.io')?.preferredVersion, {
    groupVersion: 'events.k8s.io/v1',
    version: 'v1',
  });
  const list = await api.request('GET', '/apis/events.k8s.io/v1');
  assert.equal(list.json?.['groupVersion'], 'events.k8s.io/v1');
  assert.deepEqual(list.json?.['resources'], [
    {
      name: 'events',
      singularName: 'event',
      namespaced: true,
      kind: 'Event',
      verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
      shortNames: ['ev'],
    },
  ]);
});

test('a core/v1 Event reads through events.k8s.io/v1 with the reference mapping', async () => {
  const created = await api.request('POST', core, {
    body: eventBody('legacy', 'default', {
      firstTimestamp: '2026-01-01T00:00:00Z',
      lastTimestamp: '2026-01-01T00:05:00Z',
      count: 4,
      source: { component: 'kubelet', host: 'n1' },
    }),
  });
  assert.equal(created.status, 201, created.text);
  const got = await api.request('GET', `${v1}/legacy`);
  assert.equal(got.status, 200, got.text);
  const e = got.json ?? {};
  assert.deepEqual(
    {
      kind: e['kind'],
      apiVersion: e['apiVersion'],
      eventTime: e['eventTime'],
      reason: e['reason'],
      regarding: e['regarding'],
      note: e['note'],
      type: e['type'],
      deprecatedSource: e['deprecatedSource'],
      deprecatedFirstTimestamp: e['deprecatedFirstTimestamp'],
      deprecatedLastTimestamp: e['deprecatedLastTimestamp'],
      deprecatedCount: e['deprecatedCount'],
    },
    {
      kind: 'Event',
      apiVersion: 'events.k8s.io/v1',
      eventTime: null,
      reason: 'Started',
      regarding: { kind: 'Pod', name: 'p', namespace: 'default', apiVersion: 'v1' },
      note: 'started container',
      type: 'Normal',
      deprecatedSource: { component: 'kubelet', host: 'n1' },
      deprecatedFirstTimestamp: '2026-01-01T00:00:00Z',
      deprecatedLastTimestamp: '2026-01-01T00:05:00Z',
      deprecatedCount: 4,
    },
  );
  for (const coreOnly of [
    'message',
    'involvedObject',
    'source',
    'count',
    'firstTimestamp',
    'lastTimestamp',
  ])
    assert.equal(e[coreOnly], undefined, coreOnly);
  assert.equal(
    (e['metadata'] as Record<string, unknown>)['resourceVersion'],
    (created.json?.['metadata'] as Record<string, unknown>)['resourceVersion'],
  );
});

test('an events.k8s.io/v1 Event is stored once and reads through core/v1 with the reverse mapping; series and PATCH', async () => {
  const created = await api.request('POST', v1, { body: newEvent('modern') });
  assert.equal(created.status, 201, created.text);
  assert.equal(created.json?.['note'], 'Started container app');
  const c = (await api.request('GET', `${core}/modern`)).json ?? {};
  assert.deepEqual(
    [
      c['apiVersion'],
      c['message'],
      c['involvedObject'],
      c['reportingComponent'],
      c['reportingInstance'],
      c['action'],
      c['eventTime'],
      c['count'],
    ],
    [
      'v1',
      'Started container app',
      { kind: 'Pod', namespace: 'default', name: 'web', apiVersion: 'v1' },
      'kubelet',
      'node-1',
      'Started',
      '2026-01-01T00:00:00.000000Z',
      undefined,
    ],
  );
  const patched = await api.request('PATCH', `${v1}/modern`, {
    body: { series: { count: 2, lastObservedTime: '2026-01-01T00:01:00.000000Z' } },
    contentType: 'application/merge-patch+json',
  });
  assert.equal(patched.status, 200, patched.text);
  assert.deepEqual((await api.request('GET', `${core}/modern`)).json?.['series'], {
    count: 2,
    lastObservedTime: '2026-01-01T00:01:00.000000Z',
  });
  const items = (await api.request('GET', '/apis/events.k8s.io/v1/events')).json?.[
    'items'
  ] as Record<string, unknown>[];
  assert.deepEqual(items.map((i) => (i['metadata'] as Record<string, unknown>)['name']).sort(), [
    'legacy',
    'modern',
  ]);
});

test('validation through events.k8s.io/v1: the reference 422s for a missing eventTime, deprecated fields, a short series and immutable fields', async () => {
  const noTime = newEvent('no-time');
  delete noTime['eventTime'];
  const r1 = await api.request('POST', v1, { body: noTime });
  assert.equal(r1.status, 422, r1.text);
  assert.equal(
    r1.json?.['message'],
    'Event.events.k8s.io "no-time" is invalid: eventTime: Required value',
  );
  const r2 = await api.request('POST', v1, {
    body: newEvent('deprecated', { deprecatedCount: 3 }),
  });
  assert.equal(
    r2.json?.['message'],
    'Event.events.k8s.io "deprecated" is invalid: deprecatedCount: Invalid value: "": needs to be unset',
  );
  const r3 = await api.request('POST', v1, {
    body: newEvent('series', {
      series: { count: 1, lastObservedTime: '2026-01-01T00:00:00.000000Z' },
    }),
  });
  assert.equal(
    r3.json?.['message'],
    'Event.events.k8s.io "series" is invalid: series.count: Invalid value: "": should be at least 2',
  );
  assert.equal((await api.request('POST', v1, { body: newEvent('immutable') })).status, 201);
  const r4 = await api.request('PATCH', `${v1}/immutable`, {
    body: { note: 'changed' },
    contentType: 'application/merge-patch+json',
  });
  assert.equal(r4.status, 422, r4.text);
  assert.equal(
    r4.json?.['message'],
    'Event.events.k8s.io "immutable" is invalid: note: Invalid value: "changed": field is immutable',
  );
});

test('field selectors use the events.k8s.io labels (regarding.*, reportingController); core labels are not supported here', async () => {
  assert.equal(
    (
      await api.request('POST', v1, {
        body: newEvent('sel-a', {
          regarding: { kind: 'Pod', namespace: 'default', name: 'db' },
          reportingController: 'example.com/ctl',
        }),
      })
    ).status,
    201,
  );
  const names = async (q: string): Promise<string[]> => {
    const r = await api.request('GET', `${v1}?fieldSelector=${encodeURIComponent(q)}`);
    assert.equal(r.status, 200, r.text);
    return (r.json?.['items'] as Record<string, unknown>[])
      .map((i) => String((i['metadata'] as Record<string, unknown>)['name']))
      .sort();
  };
  assert.deepEqual(await names('regarding.name=db'), ['sel-a']);
  assert.deepEqual(await names('reportingController=example.com/ctl'), ['sel-a']);
  const bad = await api.request('GET', `${v1}?fieldSelector=involvedObject.name%3Ddb`);
  assert.equal(bad.status, 400);
  assert.equal(bad.json?.['message'], 'field label not supported: involvedObject.name');
});

test('a watch through events.k8s.io/v1 sees events written through core/v1, in the events.k8s.io shape; delete through either', async () => {
  const w = await api.watch(`${v1}?watch=1&fieldSelector=metadata.name%3Dwatched`);
  try {
    assert.equal(
      (
        await api.request('POST', core, {
          body: eventBody('watched', 'default', { reason: 'Watched' }),
        })
      ).status,
      201,
    );
    const ev = await w.next();
    assert.equal(ev.type, 'ADDED');
    assert.deepEqual(
      [ev.object['apiVersion'], ev.object['reason'], ev.object['note'], ev.object['message']],
      ['events.k8s.io/v1', 'Watched', 'started container', undefined],
    );
    assert.equal((await api.request('DELETE', `${v1}/watched`)).status, 200);
    const gone = await w.next();
    assert.equal(gone.type, 'DELETED');
    assert.equal(gone.object['apiVersion'], 'events.k8s.io/v1');
    assert.equal((await api.request('GET', `${core}/watched`)).status, 404);
  } finally {
    w.close();
  }
});

test('server-side apply and a strategic merge patch through events.k8s.io/v1 keep the events.k8s.io shape and record managedFields', async () => {
  const applied = await api.request('PATCH', `${v1}/applied?fieldManager=tester`, {
    body: JSON.stringify(newEvent('applied')),
    contentType: 'application/apply-patch+yaml',
  });
  assert.equal(applied.status, 201, applied.text);
  const meta = applied.json?.['metadata'] as Record<string, unknown>;
  const mf = meta['managedFields'] as Record<string, unknown>[];
  assert.deepEqual(
    [mf[0]?.['manager'], mf[0]?.['operation'], mf[0]?.['apiVersion']],
    ['tester', 'Apply', 'events.k8s.io/v1'],
  );
  assert.ok(
    JSON.stringify(mf[0]?.['fieldsV1']).includes('f:note'),
    'the managed fields name the events.k8s.io fields',
  );
  const smp = await api.request('PATCH', `${v1}/applied`, {
    body: { metadata: { labels: { tier: 'x' } } },
    contentType: 'application/strategic-merge-patch+json',
  });
  assert.equal(smp.status, 200, smp.text);
  assert.deepEqual(
    [smp.json?.['note'], (smp.json?.['metadata'] as Record<string, unknown>)['labels']],
    ['Started container app', { tier: 'x' }],
  );
});
