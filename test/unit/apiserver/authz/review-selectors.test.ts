// resourceAttributes.fieldSelector / labelSelector of a (Self)SubjectAccessReview against the
// reference (Kubernetes 1.32, AuthorizeWithSelectors on): the validation messages are those of its
// pkg/apis/authorization/validation tests, written out here; the attributes authorizers see follow
// its ResourceAttributesFrom; what a webhook is sent follows its webhook authorizer.
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { test } from 'node:test';
import {
  reviewSelectors,
  validateReviewSelectors,
} from '../../../../src/apiserver/authz/review-selectors.js';
import { formatFieldErrors } from '../../../../src/apiserver/field-errors.js';
import { sarSpecV1 } from '../../../../src/common/auth/subject-access-review.js';
import { StatusError } from '../../../../src/apiserver/status.js';
import { fuzzParams } from '../../../helpers/fuzz-runs.js';

const first = (ra: Record<string, unknown>): string => {
  const errs = validateReviewSelectors(ra);
  return errs.length === 0 ? '' : formatFieldErrors(errs.slice(0, 1));
};

test("field selector validation: the reference's messages", () => {
  assert.equal(
    first({ fieldSelector: { rawSelector: 'foo', requirements: [{}] } }),
    'spec.resourceAttributes.fieldSelector.rawSelector: Invalid value: "foo": may not specified at the same time as requirements',
  );
  assert.equal(
    first({ fieldSelector: {} }),
    'spec.resourceAttributes.fieldSelector.requirements: Required value: when spec.resourceAttributes.fieldSelector is specified, requirements or rawSelector is required',
  );
  assert.equal(
    first({ fieldSelector: { requirements: [{ key: '' }] } }),
    'spec.resourceAttributes.fieldSelector.requirements[0].key: Required value: must be specified',
  );
  assert.equal(
    first({ fieldSelector: { requirements: [{ key: 'k', operator: 'In', values: [] }] } }),
    "spec.resourceAttributes.fieldSelector.requirements[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'",
  );
  assert.equal(
    first({ fieldSelector: { requirements: [{ key: 'k', operator: 'NotIn', values: [] }] } }),
    "spec.resourceAttributes.fieldSelector.requirements[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'",
  );
  assert.equal(
    first({ fieldSelector: { requirements: [{ key: 'k', operator: 'Exists', values: ['val'] }] } }),
    "spec.resourceAttributes.fieldSelector.requirements[0].values: Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
  );
  assert.equal(
    first({
      fieldSelector: { requirements: [{ key: 'k', operator: 'DoesNotExist', values: ['val'] }] },
    }),
    "spec.resourceAttributes.fieldSelector.requirements[0].values: Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
  );
  // unknown operators are allowed (newer clients), and a raw selector alone is fine
  assert.equal(
    first({ fieldSelector: { requirements: [{ key: 'k', operator: 'Matches', values: ['x'] }] } }),
    '',
  );
  assert.equal(first({ fieldSelector: { rawSelector: 'spec.nodeName=a' } }), '');
});

test("label selector validation: the reference's messages", () => {
  assert.equal(
    first({ labelSelector: { rawSelector: 'foo', requirements: [{}] } }),
    'spec.resourceAttributes.labelSelector.rawSelector: Invalid value: "foo": may not specified at the same time as requirements',
  );
  assert.equal(
    first({ labelSelector: {} }),
    'spec.resourceAttributes.labelSelector.requirements: Required value: when spec.resourceAttributes.labelSelector is specified, requirements or rawSelector is required',
  );
  assert.equal(
    first({ labelSelector: { requirements: [{ key: '' }] } }),
    'spec.resourceAttributes.labelSelector.requirements[0].key: Invalid value: "": name part must be non-empty',
  );
  assert.equal(
    first({ labelSelector: { requirements: [{ key: '()foo' }] } }),
    `spec.resourceAttributes.labelSelector.requirements[0].key: Invalid value: "()foo": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
  );
  assert.equal(
    first({ labelSelector: { requirements: [{ key: 'k', operator: 'In', values: [] }] } }),
    "spec.resourceAttributes.labelSelector.requirements[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'",
  );
  assert.equal(
    first({ labelSelector: { requirements: [{ key: 'k', operator: 'NotIn', values: [] }] } }),
    "spec.resourceAttributes.labelSelector.requirements[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'",
  );
  assert.equal(
    first({ labelSelector: { requirements: [{ key: 'k', operator: 'Exists', values: ['val'] }] } }),
    "spec.resourceAttributes.labelSelector.requirements[0].values: Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
  );
  assert.equal(
    first({
      labelSelector: { requirements: [{ key: 'k', operator: 'DoesNotExist', values: ['val'] }] },
    }),
    "spec.resourceAttributes.labelSelector.requirements[0].values: Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
  );
});

test("a selector that is not an object: 400 with the reference decoder's words", () => {
  assert.throws(
    () => validateReviewSelectors({ fieldSelector: 'spec.nodeName=a' }),
    (e: unknown) =>
      e instanceof StatusError &&
      e.status === 400 &&
      e.message ===
        'json: cannot unmarshal string into Go struct field ResourceAttributes.spec.resourceAttributes.fieldSelector of type v1.FieldSelectorAttributes',
  );
});

test('the attributes authorizers see: raw selectors parsed, requirements converted, what cannot be converted dropped', () => {
  assert.deepEqual(
    reviewSelectors({ fieldSelector: { rawSelector: 'spec.nodeName=a,metadata.name!=b' } }),
    {
      fieldSelector: [
        { field: 'metadata.name', op: '!=', value: 'b' },
        { field: 'spec.nodeName', op: '=', value: 'a' },
      ],
    },
  );
  assert.deepEqual(
    reviewSelectors({
      fieldSelector: {
        requirements: [
          { key: 'spec.nodeName', operator: 'In', values: ['a'] },
          { key: 'x', operator: 'NotIn', values: ['y'] },
        ],
      },
    }),
    {
      fieldSelector: [
        { field: 'spec.nodeName', op: '=', value: 'a' },
        { field: 'x', op: '!=', value: 'y' },
      ],
    },
  );
  // fieldSelectors do not support several values, Exists or unknown operators: dropped (a broader request)
  assert.deepEqual(
    reviewSelectors({
      fieldSelector: {
        requirements: [
          { key: 'a', operator: 'In', values: ['1', '2'] },
          { key: 'b', operator: 'Exists' },
          { key: 'c', operator: 'Matches', values: ['x'] },
        ],
      },
    }),
    {},
  );
  assert.deepEqual(reviewSelectors({ fieldSelector: { rawSelector: 'no operator here' } }), {});
  assert.deepEqual(
    reviewSelectors({ labelSelector: { rawSelector: 'app=web,tier in (a,b),!canary,gen>3' } }),
    {
      labelSelector: [
        { key: 'app', operator: 'In', values: ['web'] },
        { key: 'canary', operator: 'DoesNotExist', values: [] },
        { key: 'tier', operator: 'In', values: ['a', 'b'] },
      ],
    },
  );
  assert.deepEqual(
    reviewSelectors({
      labelSelector: {
        requirements: [
          { key: 'app', operator: 'Exists' },
          { key: 'x', operator: 'Near', values: ['1'] },
        ],
      },
    }),
    { labelSelector: [{ key: 'app', operator: 'Exists', values: [] }] },
  );
});

test('what a webhook is sent: requirements only (= is In, != NotIn; no values for Exists)', () => {
  const spec = sarSpecV1({
    user: { username: 'u', groups: [] },
    verb: 'list',
    path: '/api/v1/pods',
    namespace: '',
    apiGroup: '',
    apiVersion: 'v1',
    resource: 'pods',
    subresource: '',
    name: '',
    fieldSelector: [{ field: 'spec.nodeName', op: '=', value: 'a' }],
    labelSelector: [
      { key: 'app', operator: 'Exists', values: [] },
      { key: 'tier', operator: 'NotIn', values: ['x'] },
    ],
  });
  assert.deepEqual(spec.resourceAttributes?.fieldSelector, {
    requirements: [{ key: 'spec.nodeName', operator: 'In', values: ['a'] }],
  });
  assert.deepEqual(spec.resourceAttributes?.labelSelector, {
    requirements: [
      { key: 'app', operator: 'Exists' },
      { key: 'tier', operator: 'NotIn', values: ['x'] },
    ],
  });
  const plain = sarSpecV1({
    user: { username: 'u', groups: [] },
    verb: 'get',
    path: '',
    namespace: '',
    apiGroup: '',
    apiVersion: 'v1',
    resource: 'pods',
    subresource: '',
    name: 'p',
  });
  assert.equal('fieldSelector' in (plain.resourceAttributes ?? {}), false);
});

test('fuzz: any selector attributes are validated or answered 400, never a crash; valid ones convert', () => {
  const req = fc.record(
    {
      key: fc.string({ maxLength: 8 }),
      operator: fc.constantFrom('In', 'NotIn', 'Exists', 'DoesNotExist', '', 'X'),
      values: fc.array(fc.string({ maxLength: 4 }), { maxLength: 3 }),
    },
    { requiredKeys: [] },
  );
  const sel = fc.oneof(
    fc.record(
      { rawSelector: fc.string({ maxLength: 20 }), requirements: fc.array(req, { maxLength: 3 }) },
      { requiredKeys: [] },
    ),
    fc.string(),
    fc.constant(null),
    fc.integer(),
  );
  fc.assert(
    fc.property(
      fc.record({ fieldSelector: sel, labelSelector: sel }, { requiredKeys: [] }),
      (ra) => {
        try {
          validateReviewSelectors(ra);
          reviewSelectors(ra);
        } catch (err) {
          if (!(err instanceof StatusError && err.status === 400)) throw err;
        }
      },
    ),
    fuzzParams(300),
  );
});
