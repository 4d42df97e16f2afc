import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  DecodeError,
  decodeBody,
  findJsonDuplicates,
  fieldProblemTexts,
  isYamlContentType,
  pruneUnknownFields,
  strictDecodingMessage,
} from '../../../../src/apiserver/decode.js';

const CSR = { kind: 'CertificateSigningRequest', apiVersion: 'certificates.platform.io/v1' };
const json = (body: string, kind = CSR) =>
  decodeBody({ body, contentType: 'application/json', ...kind });

test('valid JSON: no problems, kind/apiVersion filled when missing', () => {
  const r = json(
    '{"metadata":{"name":"a","labels":{"x":"y"}},"spec":{"request":"eA==","signerName":"a.b/c","usages":["client auth"]}}',
  );
  assert.deepEqual(r.unknownFields, []);
  assert.deepEqual(r.duplicateFields, []);
  assert.equal(r.object['kind'], 'CertificateSigningRequest');
  assert.equal(r.object['apiVersion'], 'certificates.platform.io/v1');
});

test('unknown fields at every level, with array indexes', () => {
  const r = json(
    '{"foo":1,"metadata":{"name":"a","bogus":true,"ownerReferences":[{"uid":"u","zz":1}],"annotations":{"any/key":"v"}},"spec":{"foo":{"bar":1}},"status":{"conditions":[{"type":"Approved","x":1}]}}',
  );
  assert.deepEqual(r.unknownFields, [
    'foo',
    'metadata.bogus',
    'metadata.ownerReferences[0].zz',
    'spec.foo',
    'status.conditions[0].x',
  ]);
  assert.deepEqual(
    r.object['foo'],
    1,
    'unknown fields are kept in the returned object (the caller prunes)',
  );
});

test('duplicate fields in JSON, last wins', () => {
  const r = json(
    '{"metadata":{"name":"a","name":"b"},"spec":{"usages":["x"],"usages":["y"]},"kind":"CertificateSigningRequest","kind":"CertificateSigningRequest"}',
  );
  assert.deepEqual(r.duplicateFields, ['metadata.name', 'spec.usages', 'kind']);
  assert.equal((r.object['metadata'] as Record<string, unknown>)['name'], 'b');
  assert.deepEqual((r.object['spec'] as Record<string, unknown>)['usages'], ['y']);
});

test('duplicates inside arrays', () => {
  const r = json('{"status":{"conditions":[{"type":"A"},{"type":"B","type":"C"}]}}');
  assert.deepEqual(r.duplicateFields, ['status.conditions[1].type']);
});

test('YAML bodies, duplicates and unknowns', () => {
  const body =
    'apiVersion: v1\nkind: Event\nmetadata:\n  name: e1\n  name: e2\n  namespace: default\ninvolvedObject:\n  kind: Node\n  name: n1\nreason: X\nbogus: 1\ncount: 3\n';
  const r = decodeBody({ body, contentType: 'application/yaml', kind: 'Event', apiVersion: 'v1' });
  assert.deepEqual(r.duplicateFields, ['metadata.name']);
  assert.deepEqual(r.unknownFields, ['bogus']);
  assert.equal((r.object['metadata'] as Record<string, unknown>)['name'], 'e2');
  assert.equal(r.object['count'], 3);
});

test('Pod and Node: typed in full as the reference, an unknown field inside spec or status is reported', () => {
  const r = decodeBody({
    body: '{"metadata":{"name":"p","nope":1},"spec":{"containers":[{"name":"c","whatever":{},"resources":{"limits":{"cpu":1,"memory":"1Gi"}}}]},"status":{"x":1},"extra":1}',
    contentType: 'application/json',
    kind: 'Pod',
    apiVersion: 'v1',
  });
  assert.deepEqual(r.unknownFields, [
    'metadata.nope',
    'spec.containers[0].whatever',
    'status.x',
    'extra',
  ]);
  const n = decodeBody({
    body: '{"metadata":{"name":"n"},"spec":{"taints":[]},"status":{"addresses":[],"capacity":{"cpu":"2"},"nodeInfo":{"bootID":"b","swap":{}},"daemonEndpoints":{"kubeletEndpoint":{"Port":10250}}}}',
    contentType: 'application/json',
    kind: 'Node',
    apiVersion: 'v1',
  });
  assert.deepEqual(n.unknownFields, ['status.nodeInfo.swap']);
  assert.throws(
    () =>
      decodeBody({
        body: '{"spec":{"containers":[{"name":"c","ports":[{"containerPort":"80"}]}]}}',
        contentType: 'application/json',
        kind: 'Pod',
        apiVersion: 'v1',
      }),
    /json: cannot unmarshal string into Go struct field ContainerPort\.spec\.containers.*containerPort of type int32/,
  );
});

test('Namespace and DeleteOptions', () => {
  const ns = decodeBody({
    body: '{"metadata":{"name":"x"},"spec":{"finalizers":["kubernetes"]},"status":{"phase":"Active"}}',
    contentType: 'application/json',
    kind: 'Namespace',
    apiVersion: 'v1',
  });
  assert.deepEqual(ns.unknownFields, []);
  const d = decodeBody({
    body: '{"kind":"DeleteOptions","apiVersion":"meta.k8s.io/v1","gracePeriodSeconds":0,"preconditions":{"uid":"u"},"propagationPolicy":"Background","dryRun":["All"],"foo":1}',
    contentType: 'application/json',
    kind: 'DeleteOptions',
    apiVersion: 'v1',
  });
  assert.deepEqual(d.unknownFields, ['foo']);
});

const malformed: [string, string, string][] = [
  ['{', 'application/json', "couldn't get version/kind; json parse error: "],
  [
    '',
    'application/json',
    "couldn't get version/kind; json parse error: unexpected end of JSON input",
  ],
  [
    '[1]',
    'application/json',
    "couldn't get version/kind; json parse error: json: cannot unmarshal array into Go value",
  ],
  ['"x"', 'application/json', 'cannot unmarshal string into Go value'],
  ['a: [1\nb: 2', 'application/yaml', 'error converting YAML to JSON: yaml: line 2: '],
  [
    '{"kind":"Event"}',
    'application/json',
    'the object provided is unrecognized (must be of type CertificateSigningRequest): no kind "Event" is registered for version "certificates.platform.io/v1"',
  ],
  [
    '{"apiVersion":"v1"}',
    'application/json',
    'the API version in the data (v1) does not match the expected API version (certificates.platform.io/v1)',
  ],
  [
    '{"kind":5}',
    'application/json',
    'cannot unmarshal number into Go struct field .kind of type string',
  ],
  // encoding/json names the number only for integer fields ("number 1.5"); a string field says "number".
  [
    '{"metadata":{"name":5}}',
    'application/json',
    'CertificateSigningRequest in version "v1" cannot be handled as a CertificateSigningRequest: json: cannot unmarshal number into Go struct field ObjectMeta.metadata.name of type string',
  ],
  [
    '{"spec":{"expirationSeconds":1.5}}',
    'application/json',
    'cannot unmarshal number 1.5 into Go struct field CertificateSigningRequestSpec.spec.expirationSeconds of type int32',
  ],
  [
    '{"spec":{"usages":"client auth"}}',
    'application/json',
    'cannot unmarshal string into Go struct field CertificateSigningRequestSpec.spec.usages of type []string',
  ],
  [
    '{"metadata":[]}',
    'application/json',
    'cannot unmarshal array into Go struct field CertificateSigningRequest.metadata of type v1.ObjectMeta',
  ],
];
for (const [body, ct, msg] of malformed) {
  test(`malformed ${JSON.stringify(body)} (${ct})`, () => {
    assert.throws(
      () => decodeBody({ body, contentType: ct, ...CSR }),
      (e: unknown) => {
        assert.ok(e instanceof DecodeError, String(e));
        assert.equal(e.status, 400);
        assert.ok(e.message.includes(msg), e.message);
        return true;
      },
    );
  });
}

test('null fields are accepted as zero values', () => {
  assert.deepEqual(
    json('{"metadata":{"name":"a","labels":null},"spec":{"usages":null}}').unknownFields,
    [],
  );
});

test('pruneUnknownFields removes exactly the unknown fields', () => {
  const r = json(
    '{"foo":1,"metadata":{"name":"a","bogus":true},"spec":{"signerName":"x","foo":{}},"status":{"conditions":[{"type":"A","x":1}]}}',
  );
  pruneUnknownFields(r.object, 'CertificateSigningRequest');
  assert.deepEqual(r.object, {
    metadata: { name: 'a' },
    spec: { signerName: 'x' },
    status: { conditions: [{ type: 'A' }] },
    kind: 'CertificateSigningRequest',
    apiVersion: 'certificates.platform.io/v1',
  });
});

test('messages for Strict and Warn', () => {
  const r = { unknownFields: ['spec.foo'], duplicateFields: ['metadata.name'] };
  assert.deepEqual(fieldProblemTexts(r), [
    'unknown field "spec.foo"',
    'duplicate field "metadata.name"',
  ]);
  assert.equal(
    strictDecodingMessage('CertificateSigningRequest', 'certificates.platform.io/v1', r),
    'CertificateSigningRequest in version "v1" cannot be handled as a CertificateSigningRequest: strict decoding error: unknown field "spec.foo", duplicate field "metadata.name"',
  );
});

test('content types', () => {
  assert.equal(isYamlContentType('application/yaml; charset=utf-8'), true);
  assert.equal(isYamlContentType('application/apply-patch+yaml'), true);
  assert.equal(isYamlContentType('application/json'), false);
  assert.equal(isYamlContentType('application/merge-patch+json'), false);
});

type Tree = { pairs: [string, Tree][] } | { items: Tree[] } | { leaf: unknown };
const tree: fc.Arbitrary<Tree> = fc.letrec<{ t: Tree }>((tie) => ({
  t: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.record({ leaf: fc.oneof(fc.string(), fc.integer(), fc.boolean(), fc.constant(null)) }),
    fc.record({
      pairs: fc.array(fc.tuple(fc.constantFrom('a', 'b', 'c"q', 'd\\e', 'é', '\u0001'), tie('t')), {
        maxLength: 4,
      }),
    }),
    fc.record({ items: fc.array(tie('t'), { maxLength: 3 }) }),
  ),
})).t;

function serialize(t: Tree, ws: boolean): string {
  const sp = ws ? ' \n ' : '';
  if ('leaf' in t) return JSON.stringify(t.leaf);
  if ('items' in t)
    return `[${sp}${t.items.map((x) => serialize(x, ws)).join(`${sp},${sp}`)}${sp}]`;
  return `{${sp}${t.pairs.map(([k, v]) => `${JSON.stringify(k)}${sp}:${sp}${serialize(v, ws)}`).join(`${sp},${sp}`)}${sp}}`;
}

function expected(t: Tree, path: string, out: string[]): void {
  const join = (k: string): string => (path === '' ? k : `${path}.${k}`);
  if ('items' in t) t.items.forEach((x, i) => expected(x, `${path}[${i}]`, out));
  else if ('pairs' in t) {
    const seen = new Set<string>();
    for (const [k, v] of t.pairs) {
      if (seen.has(k)) out.push(join(k));
      seen.add(k);
      expected(v, join(k), out);
    }
  }
}

test('property: the JSON duplicate scanner finds exactly the repeated keys', () => {
  fc.assert(
    fc.property(tree, fc.boolean(), (t, ws) => {
      const text = serialize(t, ws);
      JSON.parse(text);
      const got: string[] = [];
      findJsonDuplicates(text, got);
      const want: string[] = [];
      expected(t, '', want);
      assert.deepEqual(got, want);
    }),
    { numRuns: 1000 },
  );
});

test('JSON syntax errors never echo the body', () => {
  const cases: [string, string][] = [
    [
      '{"secret":"hunter2",}',
      "couldn't get version/kind; json parse error: expected double-quoted property name (at offset 20)",
    ],
    [
      '{"secret":"hunter2","a":}',
      "couldn't get version/kind; json parse error: invalid character '}' looking for beginning of value",
    ],
    [
      '{',
      "couldn't get version/kind; json parse error: expected property name or '}' (at offset 1)",
    ],
    [
      '{"a":1}x',
      "couldn't get version/kind; json parse error: invalid character after top-level value (at offset 7)",
    ],
    ['nul', "couldn't get version/kind; json parse error: unexpected end of JSON input"],
  ];
  for (const [body, msg] of cases) {
    assert.throws(
      () => decodeBody({ body, contentType: 'application/json', kind: 'Event', apiVersion: 'v1' }),
      (e: unknown) => {
        assert.ok(e instanceof DecodeError);
        assert.equal(e.message, msg);
        assert.ok(!e.message.includes('hunter2'));
        return true;
      },
    );
  }
});

test('property: JSON syntax messages never quote the body', () => {
  fc.assert(
    fc.property(
      fc.string({ unit: fc.constantFrom('{', '}', '"', ':', ',', 'a', 'S', '[', ']', '1', ' ') }),
      (s) => {
        const body = `{"k":"SECRETSECRET",${s}`;
        try {
          decodeBody({ body, contentType: 'application/json', kind: 'Event', apiVersion: 'v1' });
        } catch (e) {
          assert.ok(!(e as Error).message.includes('SECRET'), (e as Error).message);
        }
      },
    ),
    { numRuns: 500 },
  );
});
