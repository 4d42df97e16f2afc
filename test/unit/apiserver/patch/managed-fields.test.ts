import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  FieldSet,
  PatchError,
  applyPatch,
  defaultFieldManager,
  fromFieldsV1,
  pathString,
  toFieldsV1,
  updateManagedFields,
  validateFieldManager,
} from '../../../../src/apiserver/patch/index.js';
import { formatFieldErrors } from '../../../../src/apiserver/field-errors.js';

const AV = 'certificates.platform.io/v1';
const KIND = 'CertificateSigningRequest';
const t0 = new Date('2026-11-22T12:00:00.000Z');
const t1 = new Date('2026-11-22T12:05:00.000Z');
type Obj = Record<string, unknown>;

function csr(extra: Obj = {}): Obj {
  return {
    apiVersion: AV,
    kind: KIND,
    metadata: { name: 'c1', uid: 'u1', resourceVersion: '5', labels: { x: '1' } },
    spec: {
      request: 'cmVx',
      signerName: 'platform.io/plat-apiserver-client',
      usages: ['client auth'],
    },
    status: {},
    ...extra,
  };
}
const mf = (o: Obj): Obj[] => ((o['metadata'] as Obj)['managedFields'] ?? []) as Obj[];
const labels = (o: Obj): Obj => ((o['metadata'] as Obj)['labels'] ?? {}) as Obj;

test('create records an Update entry with FieldsV1 (maps marked with ".", identity fields and status not owned)', () => {
  const o = updateManagedFields({
    oldObj: undefined,
    newObj: csr(),
    manager: 'kubectl-create',
    operation: 'Update',
    subresource: '',
    apiVersion: AV,
    now: t0,
  });
  assert.deepEqual(mf(o), [
    {
      manager: 'kubectl-create',
      operation: 'Update',
      apiVersion: AV,
      time: '2026-11-22T12:00:00Z',
      fieldsType: 'FieldsV1',
      fieldsV1: {
        'f:metadata': { 'f:labels': { '.': {}, 'f:x': {} } },
        'f:spec': { 'f:request': {}, 'f:signerName': {}, 'f:usages': {} },
      },
    },
  ]);
});

test('an update takes the changed fields from their previous owner; idempotent; no-op writes add nothing', () => {
  const created = updateManagedFields({
    oldObj: undefined,
    newObj: csr(),
    manager: 'a',
    operation: 'Update',
    subresource: '',
    apiVersion: AV,
    now: t0,
  });
  const next = structuredClone(created);
  (next['metadata'] as Obj)['labels'] = { x: '2', y: '1' };
  const once = updateManagedFields({
    oldObj: created,
    newObj: structuredClone(next),
    manager: 'b',
    operation: 'Update',
    subresource: '',
    apiVersion: AV,
    now: t1,
  });
  const twice = updateManagedFields({
    oldObj: created,
    newObj: structuredClone(once),
    manager: 'b',
    operation: 'Update',
    subresource: '',
    apiVersion: AV,
    now: t1,
  });
  assert.deepEqual(mf(once), mf(twice));
  const a = mf(once).find((e) => e['manager'] === 'a');
  const b = mf(once).find((e) => e['manager'] === 'b');
  assert.deepEqual(a?.['fieldsV1'], {
    'f:metadata': { 'f:labels': {} },
    'f:spec': { 'f:request': {}, 'f:signerName': {}, 'f:usages': {} },
  });
  assert.deepEqual(b?.['fieldsV1'], { 'f:metadata': { 'f:labels': { 'f:x': {}, 'f:y': {} } } });
  assert.equal(a?.['time'], '2026-11-22T12:00:00Z', 'the other manager keeps its time');
  const noop = updateManagedFields({
    oldObj: once,
    newObj: structuredClone(once),
    manager: 'c',
    operation: 'Update',
    subresource: '',
    apiVersion: AV,
    now: t1,
  });
  assert.equal(mf(noop).length, 2);
});

test('managedFields [{}] clears the bookkeeping', () => {
  const created = updateManagedFields({
    oldObj: undefined,
    newObj: csr(),
    manager: 'a',
    operation: 'Update',
    subresource: '',
    apiVersion: AV,
    now: t0,
  });
  const next = structuredClone(created);
  (next['metadata'] as Obj)['managedFields'] = [{}];
  const r = updateManagedFields({
    oldObj: created,
    newObj: next,
    manager: 'a',
    operation: 'Update',
    subresource: '',
    apiVersion: AV,
    now: t1,
  });
  assert.equal('managedFields' in (r['metadata'] as Obj), false);
});

test('status subresource: conditions keyed by type, subresource recorded, spec never owned', () => {
  const old = csr();
  const next = csr({
    status: { conditions: [{ type: 'Approved', status: 'True', reason: 'R' }] },
    spec: { changed: true },
  });
  const r = updateManagedFields({
    oldObj: old,
    newObj: next,
    manager: 'approver',
    operation: 'Update',
    subresource: 'approval',
    apiVersion: AV,
    now: t0,
  });
  assert.deepEqual(mf(r), [
    {
      manager: 'approver',
      operation: 'Update',
      apiVersion: AV,
      time: '2026-11-22T12:00:00Z',
      fieldsType: 'FieldsV1',
      fieldsV1: {
        'f:status': {
          'f:conditions': {
            'k:{"type":"Approved"}': { '.': {}, 'f:reason': {}, 'f:status': {}, 'f:type': {} },
          },
        },
      },
      subresource: 'approval',
    },
  ]);
});

const applyBody = (lbls: Obj): string =>
  JSON.stringify({ apiVersion: AV, kind: KIND, metadata: { name: 'c1', labels: lbls } });
function apply(live: Obj | undefined, lbls: Obj, manager: string, force = false, now = t1): Obj {
  return applyPatch({
    live,
    patchBody: applyBody(lbls),
    contentType: 'application/apply-patch+yaml',
    kind: KIND,
    manager,
    force,
    subresource: '',
    apiVersion: AV,
    now,
  }).object;
}

test('apply creates when there is no live object, and owns exactly what it set', () => {
  const r = applyPatch({
    live: undefined,
    patchBody:
      'apiVersion: certificates.platform.io/v1\nkind: CertificateSigningRequest\nmetadata:\n  name: c1\n  labels:\n    a: "1"\nspec:\n  signerName: x.io/y\n  usages: [client auth]\n',
    contentType: 'application/apply-patch+yaml',
    kind: KIND,
    manager: 'tool',
    force: false,
    subresource: '',
    apiVersion: AV,
    now: t0,
  });
  assert.equal(r.created, true);
  assert.deepEqual(mf(r.object), [
    {
      manager: 'tool',
      operation: 'Apply',
      apiVersion: AV,
      time: '2026-11-22T12:00:00Z',
      fieldsType: 'FieldsV1',
      fieldsV1: {
        'f:metadata': { 'f:labels': { 'f:a': {} } },
        'f:spec': { 'f:signerName': {}, 'f:usages': {} },
      },
    },
  ]);
  assert.deepEqual((r.object['spec'] as Obj)['usages'], ['client auth']);
});

test('apply conflicts with another owner of a field it changes (409, FieldManagerConflict causes)', () => {
  const live = updateManagedFields({
    oldObj: undefined,
    newObj: csr(),
    manager: 'kubectl-edit',
    operation: 'Update',
    subresource: '',
    apiVersion: AV,
    now: t0,
  });
  assert.throws(
    () => apply(live, { x: '2' }, 'tool'),
    (e: unknown) => {
      assert.ok(e instanceof PatchError);
      assert.equal(e.status, 409);
      assert.equal(e.reason, 'Conflict');
      assert.equal(
        e.message,
        `Apply failed with 1 conflict: conflict with "kubectl-edit" using ${AV}: .metadata.labels.x`,
      );
      assert.deepEqual(e.causes, [
        {
          reason: 'FieldManagerConflict',
          message: `conflict with "kubectl-edit" using ${AV}`,
          field: '.metadata.labels.x',
        },
      ]);
      return true;
    },
  );
});

test('several conflicts are grouped by manager', () => {
  const live = updateManagedFields({
    oldObj: undefined,
    newObj: csr({ metadata: { name: 'c1', labels: { x: '1', y: '1' } } }),
    manager: 'm1',
    operation: 'Update',
    subresource: '',
    apiVersion: AV,
    now: t0,
  });
  assert.throws(
    () => apply(live, { x: '2', y: '2' }, 'tool'),
    (e: unknown) => {
      assert.ok(e instanceof PatchError);
      assert.equal(
        e.message,
        `Apply failed with 2 conflicts: conflicts with "m1" using ${AV}:\n- .metadata.labels.x\n- .metadata.labels.y`,
      );
      assert.equal(e.causes?.length, 2);
      return true;
    },
  );
});

test('force takes ownership; the same value is shared without conflict', () => {
  const live = updateManagedFields({
    oldObj: undefined,
    newObj: csr(),
    manager: 'kubectl-edit',
    operation: 'Update',
    subresource: '',
    apiVersion: AV,
    now: t0,
  });
  const forced = apply(live, { x: '2' }, 'tool', true);
  assert.deepEqual(labels(forced), { x: '2' });
  const editor = mf(forced).find((e) => e['manager'] === 'kubectl-edit');
  assert.deepEqual(editor?.['fieldsV1'], {
    'f:metadata': { 'f:labels': {} },
    'f:spec': { 'f:request': {}, 'f:signerName': {}, 'f:usages': {} },
  });
  const shared = apply(live, { x: '1' }, 'tool');
  const owners = mf(shared)
    .filter((e) => JSON.stringify(e['fieldsV1']).includes('"f:x"'))
    .map((e) => e['manager']);
  assert.deepEqual(owners.sort(), ['kubectl-edit', 'tool']);
});

test('apply removes fields it no longer sets, unless another manager owns them', () => {
  const first = apply(csr({ metadata: { name: 'c1' } }), { a: '1', b: '2' }, 'tool');
  const second = apply(first, { a: '1' }, 'tool');
  assert.deepEqual(labels(second), { a: '1' });
  // another manager also owns b: it stays
  const withOther = apply(first, { b: '2' }, 'other');
  const third = apply(withOther, { a: '1' }, 'tool');
  assert.deepEqual(labels(third), { a: '1', b: '2' });
});

test('apply to a keyed list merges by key (pod containers)', () => {
  const live = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'p' },
    spec: {
      containers: [
        { name: 'a', image: 'i1' },
        { name: 'b', image: 'i2' },
      ],
    },
  };
  const r = applyPatch({
    live,
    patchBody: JSON.stringify({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p' },
      spec: { containers: [{ name: 'b', image: 'new' }] },
    }),
    contentType: 'application/apply-patch+yaml',
    kind: 'Pod',
    manager: 'tool',
    force: true,
    subresource: '',
    apiVersion: 'v1',
    now: t0,
  });
  assert.deepEqual((r.object['spec'] as Obj)['containers'], [
    { name: 'a', image: 'i1' },
    { name: 'b', image: 'new' },
  ]);
  const tool = mf(r.object).find((e) => e['manager'] === 'tool');
  assert.deepEqual(tool?.['fieldsV1'], {
    'f:spec': { 'f:containers': { 'k:{"name":"b"}': { '.': {}, 'f:image': {}, 'f:name': {} } } },
  });
  assert.ok(
    mf(r.object).some((e) => e['manager'] === 'before-first-apply'),
    'fields of an untracked object belong to before-first-apply',
  );
});

test('apply rejects managedFields in the body', () => {
  const body = JSON.stringify({
    apiVersion: AV,
    kind: KIND,
    metadata: { name: 'c1', managedFields: [] },
  });
  assert.throws(
    () =>
      applyPatch({
        live: csr(),
        patchBody: body,
        contentType: 'application/apply-patch+yaml',
        kind: KIND,
        manager: 'm',
        force: false,
        subresource: '',
        apiVersion: AV,
        now: t0,
      }),
    /metadata.managedFields must be nil/,
  );
});

const base = {
  live: csr(),
  patchBody: '{}',
  kind: KIND,
  manager: 'm',
  force: false,
  subresource: '',
  apiVersion: AV,
  now: t0,
};
const errorCases: [string, Partial<typeof base> & { contentType: string }, number, string][] = [
  [
    'unknown content type',
    { contentType: 'application/json' },
    415,
    'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json, application/apply-patch+yaml',
  ],
  [
    'force with merge patch',
    { contentType: 'application/merge-patch+json', force: true },
    422,
    'force: Invalid value: true: may not be specified for non-apply patch',
  ],
  [
    'apply without fieldManager',
    { contentType: 'application/apply-patch+yaml', manager: '' },
    422,
    'fieldManager: Required value: is required for apply patch',
  ],
  [
    'bad fieldManager',
    { contentType: 'application/merge-patch+json', manager: 'a\u0007' },
    422,
    'fieldManager: Invalid value: "a\\u0007": invalid character U+0007 (at position 1)',
  ],
  [
    'merge patch not an object',
    { contentType: 'application/merge-patch+json', patchBody: '[1]' },
    400,
    'error decoding patch: the patch must be a JSON object',
  ],
  [
    'merge patch bad JSON',
    { contentType: 'application/merge-patch+json', patchBody: '{' },
    400,
    'error decoding patch: ',
  ],
  [
    'apply bad YAML',
    { contentType: 'application/apply-patch+yaml', patchBody: 'a: [1\nb: 2' },
    400,
    'error converting YAML to JSON',
  ],
  [
    'non-apply on a missing object',
    { contentType: 'application/merge-patch+json', live: undefined as unknown as Obj },
    404,
    'the object to patch does not exist',
  ],
];
for (const [name, o, status, msg] of errorCases) {
  test(`applyPatch error: ${name}`, () => {
    assert.throws(
      () => applyPatch({ ...base, ...o }),
      (e: unknown) => {
        assert.ok(e instanceof PatchError, String(e));
        assert.equal(e.status, status);
        assert.ok(e.message.startsWith(msg), e.message);
        return true;
      },
    );
  });
}

test('applyPatch merge/strategic/json patches record an Update entry and report duplicates and new unknown fields', () => {
  const r = applyPatch({
    ...base,
    contentType: 'application/merge-patch+json',
    patchBody: '{"metadata":{"labels":{"y":"1","y":"2"}},"spec":{"bogus":1}}',
  });
  assert.deepEqual(labels(r.object), { x: '1', y: '2' });
  assert.deepEqual(r.duplicateFields, ['metadata.labels.y']);
  assert.deepEqual(r.unknownFields, ['spec.bogus']);
  assert.deepEqual(mf(r.object)[0]?.['fieldsV1'], {
    'f:metadata': { 'f:labels': { 'f:y': {} } },
    'f:spec': { 'f:bogus': {} },
  });
  const s = applyPatch({
    ...base,
    contentType: 'application/strategic-merge-patch+json; charset=utf-8',
    patchBody: '{"metadata":{"labels":{"z":"1"}}}',
  });
  assert.deepEqual(labels(s.object), { x: '1', z: '1' });
  const j = applyPatch({
    ...base,
    contentType: 'application/json-patch+json',
    patchBody: '[{"op":"replace","path":"/metadata/labels/x","value":"9"}]',
  });
  assert.deepEqual(labels(j.object), { x: '9' });
  assert.throws(
    () =>
      applyPatch({
        ...base,
        contentType: 'application/merge-patch+json',
        patchBody: '{"metadata":{"name":5}}',
      }),
    // the reference: the patched object does not decode, 422 with the patch as the invalid value
    (e: unknown) =>
      e instanceof PatchError &&
      e.status === 422 &&
      e.reason === 'Invalid' &&
      e.message.startsWith(' "" is invalid: patch: Invalid value: "{') &&
      e.message.endsWith(
        '}": json: cannot unmarshal number into Go struct field ObjectMeta.metadata.name of type string',
      ),
  );
});

test('validateFieldManager and defaultFieldManager', () => {
  assert.deepEqual(validateFieldManager('kubectl-client-side-apply'), []);
  assert.deepEqual(validateFieldManager('ünïcode ok'), []);
  assert.equal(
    formatFieldErrors(validateFieldManager('a\tb')),
    'fieldManager: Invalid value: "a\\tb": invalid character U+0009 (at position 1)',
  );
  assert.equal(
    formatFieldErrors(validateFieldManager('x'.repeat(129))),
    'fieldManager: Too long: must have at most 128 bytes',
  );
  assert.equal(validateFieldManager('x'.repeat(128)).length, 0);
  assert.equal(defaultFieldManager('kubectl/v1.30.0 (linux/amd64) kubernetes/abc'), 'kubectl');
  assert.equal(defaultFieldManager('curl/8.0'), 'curl');
  assert.equal(defaultFieldManager(undefined), '');
  assert.equal(defaultFieldManager('x'.repeat(300)).length, 128);
});

test('pathString renders the reference form', () => {
  assert.equal(
    pathString(['f:status', 'f:conditions', 'k:{"type":"Approved"}', 'f:message']),
    '.status.conditions[type="Approved"].message',
  );
  assert.equal(pathString(['f:metadata', 'f:finalizers', 'v:"x"']), '.metadata.finalizers[="x"]');
  assert.equal(pathString(['f:a', 'i:0']), '.a[0]');
});

test('property: FieldsV1 round-trips', () => {
  const pe = fc.oneof(
    fc.constantFrom('a', 'b', 'c').map((s) => `f:${s}`),
    fc.constantFrom('x', 'y').map((s) => `k:{"name":"${s}"}`),
    fc.constantFrom('1', '"s"').map((s) => `v:${s}`),
  );
  fc.assert(
    fc.property(
      fc.array(fc.array(pe, { minLength: 1, maxLength: 4 }), { maxLength: 10 }),
      (paths) => {
        const set = FieldSet.of(paths);
        assert.ok(fromFieldsV1(JSON.parse(JSON.stringify(toFieldsV1(set)))).equals(set));
      },
    ),
  );
});

test('apply: dropping a list element another manager also touches keeps the element whole (key fields stay)', () => {
  const podApply = (containers: Obj[], manager: string, live: Obj | undefined): Obj =>
    applyPatch({
      live,
      patchBody: JSON.stringify({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'p' },
        spec: { containers },
      }),
      contentType: 'application/apply-patch+yaml',
      kind: 'Pod',
      manager,
      force: false,
      subresource: '',
      apiVersion: 'v1',
      now: t0,
    }).object;
  const first = podApply(
    [
      { name: 'a', image: 'i1' },
      { name: 'b', image: 'i2' },
    ],
    'tool',
    undefined,
  );
  // another manager sets a field of container b
  const edited = structuredClone(first);
  ((edited['spec'] as Obj)['containers'] as Obj[])[1]!['args'] = ['x'];
  const withOther = updateManagedFields({
    oldObj: first,
    newObj: edited,
    manager: 'editor',
    operation: 'Update',
    subresource: '',
    apiVersion: 'v1',
    now: t1,
  });
  const second = podApply([{ name: 'a', image: 'i1' }], 'tool', withOther);
  assert.deepEqual((second['spec'] as Obj)['containers'], [
    { name: 'a', image: 'i1' },
    { name: 'b', args: ['x'] },
  ]);
  // nobody else owns anything of b: it goes
  const third = podApply([{ name: 'a', image: 'i1' }], 'tool', first);
  assert.deepEqual((third['spec'] as Obj)['containers'], [{ name: 'a', image: 'i1' }]);
});

test('CSR reset fields: /status owns the certificate but not conditions; /approval owns conditions but not the certificate', () => {
  const old = csr();
  const next = csr({
    status: { certificate: 'Y2VydA==', conditions: [{ type: 'Failed', status: 'True' }] },
  });
  const s = updateManagedFields({
    oldObj: old,
    newObj: structuredClone(next),
    manager: 'signer',
    operation: 'Update',
    subresource: 'status',
    apiVersion: AV,
    now: t0,
  });
  assert.deepEqual(mf(s)[0]?.['fieldsV1'], { 'f:status': { 'f:certificate': {} } });
  const a = updateManagedFields({
    oldObj: old,
    newObj: structuredClone(next),
    manager: 'approver',
    operation: 'Update',
    subresource: 'approval',
    apiVersion: AV,
    now: t0,
  });
  assert.deepEqual(mf(a)[0]?.['fieldsV1'], {
    'f:status': {
      'f:conditions': { 'k:{"type":"Failed"}': { '.': {}, 'f:status': {}, 'f:type': {} } },
    },
  });
});

const labelMap = fc.dictionary(fc.constantFrom('a', 'b', 'c', 'd'), fc.constantFrom('1', '2'), {
  noNullPrototype: true,
});

test('property: apply is idempotent, and a later apply leaves exactly the labels it sets (single manager)', () => {
  fc.assert(
    fc.property(labelMap, labelMap, (first, second) => {
      const base = csr({ metadata: { name: 'c1' } });
      const once = apply(base, first, 'tool');
      const twice = apply(once, first, 'tool');
      assert.deepEqual(twice, once);
      const next = apply(once, second, 'tool');
      assert.deepEqual(labels(next), second);
    }),
    { numRuns: 200 },
  );
});

test("property: without force, an apply either conflicts or leaves every other manager's values in place", () => {
  fc.assert(
    fc.property(labelMap, labelMap, (mine, theirs) => {
      const base = csr({ metadata: { name: 'c1', labels: theirs } });
      const live = updateManagedFields({
        oldObj: undefined,
        newObj: base,
        manager: 'other',
        operation: 'Update',
        subresource: '',
        apiVersion: AV,
        now: t0,
      });
      let out: Obj;
      try {
        out = apply(live, mine, 'tool');
      } catch (e) {
        assert.ok(e instanceof PatchError && e.status === 409);
        const differing = Object.keys(mine).filter((k) => k in theirs && theirs[k] !== mine[k]);
        assert.ok(differing.length > 0);
        return;
      }
      for (const [k, v] of Object.entries(theirs)) assert.equal(labels(out)[k], v);
      for (const [k, v] of Object.entries(mine)) assert.equal(labels(out)[k], v);
    }),
    { numRuns: 200 },
  );
});

const containerList = fc.uniqueArray(
  fc.record(
    { name: fc.constantFrom('a', 'b', 'c'), image: fc.constantFrom('i1', 'i2') },
    { noNullPrototype: true },
  ),
  { selector: (c) => c.name, maxLength: 3 },
);

test('property: applying keyed lists (pod containers) converges to exactly the applied elements', () => {
  const podApply = (live: Obj | undefined, containers: unknown[]): Obj =>
    applyPatch({
      live,
      patchBody: JSON.stringify({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'p' },
        spec: { containers },
      }),
      contentType: 'application/apply-patch+yaml',
      kind: 'Pod',
      manager: 'tool',
      force: false,
      subresource: '',
      apiVersion: 'v1',
      now: t0,
    }).object;
  fc.assert(
    fc.property(containerList, containerList, (first, second) => {
      const a = podApply(undefined, first);
      assert.deepEqual(podApply(a, first), a);
      const b = podApply(a, second);
      const got = (((b['spec'] as Obj | undefined)?.['containers'] ?? []) as Obj[])
        .map((c) => `${String(c['name'])}=${String(c['image'])}`)
        .sort();
      assert.deepEqual(got, second.map((c) => `${c.name}=${c.image}`).sort());
    }),
    { numRuns: 300 },
  );
});
