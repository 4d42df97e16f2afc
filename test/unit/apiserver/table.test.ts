// Server-side printing and the metadata conversions, as the reference's
// transformResponseObject and its printers (kube-apiserver 1.32) answer them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  humanDuration,
  responseConversion,
  targetOf,
  type ResponseConversion,
} from '../../../src/apiserver/handlers/table.js';
import { csrDef } from '../../../src/apiserver/registry/resources/csr.js';
import { eventDef } from '../../../src/apiserver/registry/resources/event.js';
import { nodeDef } from '../../../src/apiserver/registry/resources/node.js';
import { podDef } from '../../../src/apiserver/registry/resources/pod.js';
import { StatusError } from '../../../src/apiserver/status.js';
import type { ResourceDef } from '../../../src/apiserver/registry/types.js';

const kubectlAccept =
  'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json';

function conv(
  def: ResourceDef,
  accept: string,
  query = '',
  now = new Date('2026-01-01T01:00:00Z'),
): ResponseConversion {
  const c = responseConversion({
    headers: { accept },
    search: new URLSearchParams(query),
    def,
    platformDomain: 'k8s.io',
    now: () => now,
  });
  assert.ok(c !== undefined);
  return c;
}

const rows = (t: Record<string, unknown>): { cells: unknown[]; object: unknown }[] =>
  t['rows'] as { cells: unknown[]; object: unknown }[];

test('Accept negotiation: kubectl asks for a v1 Table first; plain JSON needs no conversion; only unsupported as= entries get 406', () => {
  assert.deepEqual(targetOf(kubectlAccept, 'k8s.io'), {
    kind: 'Table',
    apiVersion: 'meta.k8s.io/v1',
  });
  // the group asked for is the group answered in: kubectl asks for meta.k8s.io on any profile
  assert.deepEqual(targetOf('application/json;as=Table;v=v1;g=meta.k8s.io', 'platform.io'), {
    kind: 'Table',
    apiVersion: 'meta.k8s.io/v1',
  });
  assert.deepEqual(targetOf('application/json;as=Table;v=v1;g=meta.platform.io', 'platform.io'), {
    kind: 'Table',
    apiVersion: 'meta.platform.io/v1',
  });
  assert.deepEqual(
    targetOf('application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1', 'k8s.io'),
    { kind: 'PartialObjectMetadataList', apiVersion: 'meta.k8s.io/v1' },
  );
  assert.equal(targetOf('application/json', 'k8s.io'), undefined);
  assert.equal(targetOf(undefined, 'k8s.io'), undefined);
  assert.equal(
    targetOf('application/json;as=Table;v=v2;g=meta.k8s.io,application/json', 'k8s.io'),
    undefined,
    'a plain fallback is served',
  );
  for (const bad of [
    'application/json;as=Table;v=v2;g=meta.k8s.io',
    'application/json;as=Deployment;v=v1;g=apps',
    'application/json;as=Table;v=v1;g=example.com',
  ]) {
    assert.throws(
      () => targetOf(bad, 'k8s.io'),
      (e: unknown) =>
        e instanceof StatusError &&
        e.status === 406 &&
        e.reason === 'NotAcceptable' &&
        e.message ===
          'only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf',
      bad,
    );
  }
});

test('includeObject: Metadata (default) gives PartialObjectMetadata, Object the whole object, None null; anything else is the reference 400', () => {
  const csr = {
    metadata: { name: 'a', creationTimestamp: '2026-01-01T00:50:00Z' },
    spec: { signerName: 's/x', username: 'u' },
  };
  assert.deepEqual(
    rows(conv(csrDef('k8s.io'), kubectlAccept).list([csr], { resourceVersion: '5' }))[0]?.object,
    {
      kind: 'PartialObjectMetadata',
      apiVersion: 'meta.k8s.io/v1',
      metadata: csr.metadata,
    },
  );
  assert.deepEqual(
    rows(conv(csrDef('k8s.io'), kubectlAccept, 'includeObject=Object').list([csr], {}))[0]?.object,
    { ...csr, kind: 'CertificateSigningRequest', apiVersion: 'certificates.k8s.io/v1' },
  );
  assert.equal(
    rows(conv(csrDef('k8s.io'), kubectlAccept, 'includeObject=None').list([csr], {}))[0]?.object,
    null,
  );
  assert.throws(
    () => conv(csrDef('k8s.io'), kubectlAccept, 'includeObject=Everything'),
    (e: unknown) =>
      e instanceof StatusError &&
      e.status === 400 &&
      e.message ===
        `Unable to convert to Table as requested: includeObject: Invalid value: "Everything": must be 'Metadata', 'Object', 'None', or empty`,
  );
});

test('CSR columns and cells as the reference prints them (Denied over Approved, then Failed and Issued)', () => {
  assert.deepEqual(
    [45_000, 330_000, 12 * 60_000, 200 * 60_000, 50 * 3600_000, 3 * 86_400_000].map(humanDuration),
    ['45s', '5m30s', '12m', '3h20m', '2d2h', '3d'],
  );
  const t = conv(csrDef('k8s.io'), kubectlAccept, '', new Date('2026-01-01T00:10:00Z')).list(
    [
      {
        metadata: { name: 'a', creationTimestamp: '2026-01-01T00:00:00Z' },
        spec: { signerName: 's/x', username: 'u', expirationSeconds: 3600 },
        status: { conditions: [{ type: 'Approved', status: 'True' }], certificate: 'Zm9v' },
      },
      {
        metadata: { name: 'b', creationTimestamp: '2026-01-01T00:00:00Z' },
        spec: { username: 'u' },
        status: { conditions: [{ type: 'Approved' }, { type: 'Denied' }, { type: 'Failed' }] },
      },
    ],
    {},
  );
  assert.equal(t['apiVersion'], 'meta.k8s.io/v1');
  assert.deepEqual(
    (
      t['columnDefinitions'] as { name: string; type: string; format: string; priority: number }[]
    ).map((c) => [c.name, c.type, c.format, c.priority]),
    [
      ['Name', 'string', 'name', 0],
      ['Age', 'string', '', 0],
      ['SignerName', 'string', '', 0],
      ['Requestor', 'string', '', 0],
      ['RequestedDuration', 'string', '', 0],
      ['Condition', 'string', '', 0],
    ],
  );
  assert.deepEqual(
    rows(t).map((r) => r.cells),
    [
      ['a', '10m', 's/x', 'u', '60m', 'Approved,Issued'],
      ['b', '10m', '<none>', 'u', '<none>', 'Denied,Failed'],
    ],
  );
});

test('Event columns: the reference order and priorities, our descriptions; cells from series, reporting fields and a missing name', () => {
  const t = conv(eventDef, kubectlAccept).list(
    [
      {
        metadata: { name: 'e1' },
        involvedObject: { kind: 'Pod', name: 'web', fieldPath: 'spec.containers{a}' },
        reason: 'Started',
        message: ' started \n',
        type: 'Normal',
        source: { component: 'kubelet', host: 'n1' },
        firstTimestamp: '2026-01-01T00:00:00Z',
        lastTimestamp: '2026-01-01T00:59:00Z',
        count: 3,
      },
      {
        metadata: { name: 'e2' },
        involvedObject: { kind: 'Node' },
        reason: 'R',
        type: 'Warning',
        eventTime: '2026-01-01T00:30:00.000000Z',
        reportingComponent: 'ctrl',
        reportingInstance: 'i1',
        series: { count: 7, lastObservedTime: '2026-01-01T00:58:00.000000Z' },
      },
    ],
    {},
  );
  const cols = t['columnDefinitions'] as { name: string; priority: number; description: string }[];
  assert.deepEqual(
    cols.map((c) => [c.name, c.priority]),
    [
      ['Last Seen', 0],
      ['Type', 0],
      ['Reason', 0],
      ['Object', 0],
      ['Subobject', 1],
      ['Source', 1],
      ['Message', 0],
      ['First Seen', 1],
      ['Count', 1],
      ['Name', 1],
    ],
  );
  assert.equal(cols[0]?.description, 'When the event last occurred.');
  assert.equal(cols[3]?.description, 'The object the event is about.');
  assert.deepEqual(
    rows(t).map((r) => r.cells),
    [
      [
        '60s',
        'Normal',
        'Started',
        'pod/web',
        'spec.containers{a}',
        'kubelet, n1',
        'started',
        '60m',
        3,
        'e1',
      ],
      ['2m', 'Warning', 'R', 'node', '', 'ctrl, i1', '', '30m', 7, 'e2'],
    ],
  );
});

test('pod and node wide cells as the reference prints them', () => {
  const pod = {
    metadata: { name: 'web', creationTimestamp: '2026-01-01T00:00:00Z' },
    spec: { containers: [{ name: 'a' }, { name: 'b' }], nodeName: 'n1' },
    status: {
      phase: 'Running',
      podIP: '10.0.0.5',
      containerStatuses: [
        { ready: true, restartCount: 2, state: { running: {} } },
        { ready: false, restartCount: 1, state: { waiting: { reason: 'CrashLoopBackOff' } } },
      ],
    },
  };
  const pt = conv(podDef, kubectlAccept).list([pod], {});
  assert.deepEqual(
    (pt['columnDefinitions'] as { name: string }[]).map((c) => c.name),
    [
      'Name',
      'Ready',
      'Status',
      'Restarts',
      'Age',
      'IP',
      'Node',
      'Nominated Node',
      'Readiness Gates',
    ],
  );
  assert.deepEqual(rows(pt)[0]?.cells, [
    'web',
    '1/2',
    'CrashLoopBackOff',
    '3',
    '60m',
    '10.0.0.5',
    'n1',
    '<none>',
    '<none>',
  ]);
  const restarted = {
    ...pod,
    status: {
      ...pod.status,
      containerStatuses: [
        {
          ready: true,
          restartCount: 2,
          lastState: { terminated: { finishedAt: '2026-01-01T00:55:00Z' } },
          state: { running: {} },
        },
      ],
    },
  };
  assert.equal(rows(conv(podDef, kubectlAccept).list([restarted], {}))[0]?.cells[3], '2 (5m ago)');
  const node = {
    metadata: {
      name: 'n1',
      creationTimestamp: '2026-01-01T00:00:00Z',
      labels: {
        'node-role.kubernetes.io/worker': '',
        'kubernetes.io/role': 'edge',
        'example.com/role': 'not-a-role',
      },
    },
    spec: { unschedulable: true },
    status: {
      conditions: [{ type: 'Ready', status: 'True' }],
      nodeInfo: { kubeletVersion: 'v1.32.0' },
      addresses: [{ type: 'InternalIP', address: '192.168.1.2' }],
    },
  };
  assert.deepEqual(rows(conv(nodeDef, kubectlAccept).list([node], {}))[0]?.cells, [
    'n1',
    'Ready,SchedulingDisabled',
    'edge,worker',
    '60m',
    'v1.32.0',
    '192.168.1.2',
    '<none>',
    '<unknown>',
    '<unknown>',
    '<unknown>',
  ]);
});

test('a watch of tables: the first event carries the column definitions, later ones null; one row each', () => {
  const render = conv(nodeDef, kubectlAccept).watch();
  const a = render({ metadata: { name: 'a', resourceVersion: '7' } });
  const b = render({ metadata: { name: 'b', resourceVersion: '8' } });
  assert.equal((a['columnDefinitions'] as unknown[]).length, 10);
  assert.equal(b['columnDefinitions'], null);
  assert.deepEqual(
    [a['metadata'], b['metadata']],
    [{ resourceVersion: '7' }, { resourceVersion: '8' }],
  );
  assert.equal(rows(b).length, 1);
});

test('PartialObjectMetadata(List): metadata only; the wrong shape is the reference 406', () => {
  const listConv = conv(
    eventDef,
    'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1',
  );
  assert.deepEqual(
    listConv.list([{ metadata: { name: 'x' }, reason: 'r' }], { resourceVersion: '3' }),
    {
      kind: 'PartialObjectMetadataList',
      apiVersion: 'meta.k8s.io/v1',
      metadata: { resourceVersion: '3' },
      items: [
        { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: { name: 'x' } },
      ],
    },
  );
  assert.throws(
    () => listConv.one({ metadata: { name: 'x' } }),
    (e: unknown) =>
      e instanceof StatusError &&
      e.status === 406 &&
      e.message ===
        'you requested PartialObjectMetadataList, but the requested object is not a list (*core.Event)',
  );
  const one = conv(
    csrDef('k8s.io'),
    'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1',
  );
  assert.deepEqual(one.one({ metadata: { name: 'x' }, spec: {} }), {
    kind: 'PartialObjectMetadata',
    apiVersion: 'meta.k8s.io/v1',
    metadata: { name: 'x' },
  });
  assert.throws(
    () => one.list([], {}),
    (e: unknown) =>
      e instanceof StatusError &&
      e.status === 406 &&
      e.message ===
        'you requested PartialObjectMetadata, but the requested object is a list (*certificates.CertificateSigningRequestList)',
  );
});
