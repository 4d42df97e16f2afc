// The value rules of the schema table, as every write applies them: int32/int64 range (Go's
// encoding/json error text) and Time/MicroTime fields of every kind rewritten to the stored form.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkAgainstSchema, decodeBody } from '../../../../src/apiserver/decode.js';
import { normalizeValues } from '../../../../src/apiserver/schema/values.js';

test('CSR expirationSeconds is an int32: 2^31 is refused with the reference text, 2^31-1 passes', () => {
  const big = { spec: { expirationSeconds: 2147483648 } };
  assert.equal(
    normalizeValues(big, 'CertificateSigningRequest'),
    'json: cannot unmarshal number 2147483648 into Go struct field CertificateSigningRequestSpec.spec.expirationSeconds of type int32',
  );
  assert.equal(
    checkAgainstSchema(big, 'CertificateSigningRequest').typeError,
    'json: cannot unmarshal number 2147483648 into Go struct field CertificateSigningRequestSpec.spec.expirationSeconds of type int32',
  );
  assert.equal(
    normalizeValues({ spec: { expirationSeconds: 2147483647 } }, 'CertificateSigningRequest'),
    undefined,
  );
  assert.equal(
    normalizeValues({ spec: { expirationSeconds: -2147483649 } }, 'CertificateSigningRequest') !==
      undefined,
    true,
  );
});

test('int64 fields: metadata.generation, DeleteOptions.gracePeriodSeconds, pod spec.activeDeadlineSeconds', () => {
  assert.equal(
    normalizeValues({ metadata: { generation: 2 ** 63 } }, 'Event'),
    'json: cannot unmarshal number 9223372036854776000 into Go struct field ObjectMeta.metadata.generation of type int64',
  );
  assert.equal(normalizeValues({ metadata: { generation: 2 ** 53 } }, 'Event'), undefined);
  assert.match(
    String(normalizeValues({ gracePeriodSeconds: 1.5 }, 'DeleteOptions')),
    /number 1\.5 into Go struct field DeleteOptions\.gracePeriodSeconds of type int64/,
  );
  assert.match(
    String(normalizeValues({ spec: { activeDeadlineSeconds: 1e300 } }, 'Pod')),
    /PodSpec\.spec\.activeDeadlineSeconds of type int64/,
  );
  assert.match(
    String(
      normalizeValues(
        { spec: { containers: [{ name: 'c', ports: [{ containerPort: 70000000000 }] }] } },
        'Pod',
      ),
    ),
    /ContainerPort\.spec\.containers\[0\]\.ports\[0\]\.containerPort of type int32/,
  );
});

test('Time and MicroTime of every kind are stored in UTC at seconds / microseconds', () => {
  const ev: Record<string, unknown> = {
    metadata: {
      creationTimestamp: '2026-01-01T01:00:00+01:00',
      managedFields: [{ manager: 'm', time: '2026-01-01T00:00:00.5Z' }],
    },
    firstTimestamp: '2026-01-01T00:00:00+00:00',
    lastTimestamp: '2026-01-01T00:00:00.000Z',
    eventTime: '2026-01-01T05:30:00.123456+05:30',
    series: { count: 2, lastObservedTime: '2026-01-01T00:00:00.000001Z' },
  };
  assert.equal(normalizeValues(ev, 'Event'), undefined);
  assert.deepEqual(ev, {
    metadata: {
      creationTimestamp: '2026-01-01T00:00:00Z',
      managedFields: [{ manager: 'm', time: '2026-01-01T00:00:00Z' }],
    },
    firstTimestamp: '2026-01-01T00:00:00Z',
    lastTimestamp: '2026-01-01T00:00:00Z',
    eventTime: '2026-01-01T00:00:00.123456Z',
    series: { count: 2, lastObservedTime: '2026-01-01T00:00:00.000001Z' },
  });
  const pod: Record<string, unknown> = {
    status: {
      startTime: '2026-01-01T00:00:00-01:00',
      conditions: [{ type: 'Ready', lastTransitionTime: '2026-01-01T00:00:00.9Z', other: 'kept' }],
      containerStatuses: [
        {
          state: { terminated: { exitCode: 1, finishedAt: '2026-01-01T00:00:00+02:00' } },
          unknownField: 1,
        },
      ],
    },
  };
  assert.equal(normalizeValues(pod, 'Pod'), undefined);
  assert.deepEqual(pod['status'], {
    startTime: '2026-01-01T01:00:00Z',
    conditions: [{ type: 'Ready', lastTransitionTime: '2026-01-01T00:00:00Z', other: 'kept' }],
    containerStatuses: [
      {
        state: { terminated: { exitCode: 1, finishedAt: '2025-12-31T22:00:00Z' } },
        unknownField: 1,
      },
    ],
  });
  const nodeObj: Record<string, unknown> = {
    spec: { taints: [{ key: 'k', effect: 'NoSchedule', timeAdded: '2026-01-01T00:00:00+00:00' }] },
    status: { conditions: [{ lastHeartbeatTime: '2026-01-01T00:00:00.1Z' }] },
  };
  assert.equal(normalizeValues(nodeObj, 'Node'), undefined);
  assert.deepEqual(nodeObj, {
    spec: { taints: [{ key: 'k', effect: 'NoSchedule', timeAdded: '2026-01-01T00:00:00Z' }] },
    status: { conditions: [{ lastHeartbeatTime: '2026-01-01T00:00:00Z' }] },
  });
});

test("an unparseable time is refused with the reference text; a non-string with encoding/json's", () => {
  assert.equal(
    normalizeValues({ lastTimestamp: 'yesterday' }, 'Event'),
    'parsing time "yesterday" as "2006-01-02T15:04:05Z07:00": cannot parse "yesterday" as "2006"',
  );
  assert.equal(
    normalizeValues({ lastTimestamp: 5 }, 'Event'),
    'json: cannot unmarshal number into Go value of type string',
  );
  assert.equal(
    normalizeValues(
      { status: { conditions: [{ lastUpdateTime: {} }] } },
      'CertificateSigningRequest',
    ),
    'json: cannot unmarshal object into Go value of type string',
  );
});

test('decoding a body: the time error wins over an earlier integer error, as Go stops at the first UnmarshalJSON error', () => {
  assert.throws(
    () =>
      decodeBody({
        body: '{"count":1.5,"lastTimestamp":"yesterday"}',
        contentType: 'application/json',
        kind: 'Event',
        apiVersion: 'v1',
      }),
    {
      message:
        'Event in version "v1" cannot be handled as a Event: parsing time "yesterday" as "2006-01-02T15:04:05Z07:00": cannot parse "yesterday" as "2006"',
    },
  );
  assert.throws(
    () =>
      decodeBody({
        body: '{"count":2147483648}',
        contentType: 'application/json',
        kind: 'Event',
        apiVersion: 'v1',
      }),
    {
      message:
        'Event in version "v1" cannot be handled as a Event: json: cannot unmarshal number 2147483648 into Go struct field Event.count of type int32',
    },
  );
});

test('Pod and Node specs stay open: unknown fields in them are neither reported nor pruned', () => {
  const r = decodeBody({
    body: '{"spec":{"containers":[{"name":"c","image":"i","ports":[{"containerPort":80,"name":"http"}]}],"nodeName":"n"}}',
    contentType: 'application/json',
    kind: 'Pod',
    apiVersion: 'v1',
  });
  assert.deepEqual(r.unknownFields, []);
});

test('a kind without a schema entry (added later) still has its metadata times normalised', () => {
  const o: Record<string, unknown> = {
    metadata: { deletionTimestamp: '2026-01-01T01:00:00+01:00' },
    rules: [{ anything: 'kept' }],
  };
  assert.equal(normalizeValues(o, 'SomeNewKind'), undefined);
  assert.deepEqual(o, {
    metadata: { deletionTimestamp: '2026-01-01T00:00:00Z' },
    rules: [{ anything: 'kept' }],
  });
  assert.match(
    String(normalizeValues({ metadata: { creationTimestamp: 'soon' } }, 'SomeNewKind')),
    /^parsing time "soon"/,
  );
});
