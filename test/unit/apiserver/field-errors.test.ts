import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  duplicate,
  errorMessage,
  forbidden,
  formatFieldErrors,
  invalid,
  notSupported,
  required,
  tooLong,
  toStatusCauses,
  type FieldError,
} from '../../../src/apiserver/field-errors.js';

const cases: [string, FieldError, string][] = [
  ['required', required('spec.usages', ''), 'spec.usages: Required value'],
  [
    'required with detail',
    required('metadata.name', 'name or generateName is required'),
    'metadata.name: Required value: name or generateName is required',
  ],
  [
    'invalid string',
    invalid('spec.signerName', 'x', 'bad'),
    'spec.signerName: Invalid value: "x": bad',
  ],
  [
    'invalid number',
    invalid(
      'spec.expirationSeconds',
      5,
      'may not specify a duration less than 600 seconds (10 minutes)',
    ),
    'spec.expirationSeconds: Invalid value: 5: may not specify a duration less than 600 seconds (10 minutes)',
  ],
  [
    'invalid bool',
    invalid('force', true, 'may not be specified for non-apply patch'),
    'force: Invalid value: true: may not be specified for non-apply patch',
  ],
  ['invalid null', invalid('x', null, 'd'), 'x: Invalid value: null: d'],
  [
    'invalid bytes never dumped',
    invalid(
      'spec.request',
      new Uint8Array([1, 2, 3]),
      'PEM block type must be CERTIFICATE REQUEST',
    ),
    'spec.request: Invalid value: []byte{<3 bytes>}: PEM block type must be CERTIFICATE REQUEST',
  ],
  ['invalid array', invalid('spec.usages', ['a'], 'd'), 'spec.usages: Invalid value: ["a"]: d'],
  [
    'notSupported',
    notSupported('spec.usages[0]', 'foo', ['a', 'b']),
    'spec.usages[0]: Unsupported value: "foo": supported values: "a", "b"',
  ],
  ['notSupported no list', notSupported('x', 'foo', []), 'x: Unsupported value: "foo"'],
  [
    'duplicate',
    duplicate('spec.usages[1]', 'client auth'),
    'spec.usages[1]: Duplicate value: "client auth"',
  ],
  [
    'forbidden',
    forbidden('status.conditions', 'updates may not add a condition of type "Approved"'),
    'status.conditions: Forbidden: updates may not add a condition of type "Approved"',
  ],
  [
    'tooLong',
    tooLong('fieldManager', 'x'.repeat(200), 128),
    'fieldManager: Too long: must have at most 128 bytes',
  ],
];

for (const [name, err, text] of cases) {
  test(`formatFieldErrors: ${name}`, () => {
    assert.equal(formatFieldErrors([err]), text);
    assert.equal(errorMessage(err), text.slice(err.field.length + 2));
  });
}

test('formatFieldErrors aggregates several as [a, b] and drops repeated texts', () => {
  const a = required('spec.usages');
  const b = invalid('spec.signerName', 'x', 'bad');
  assert.equal(
    formatFieldErrors([a, b, a]),
    '[spec.usages: Required value, spec.signerName: Invalid value: "x": bad]',
  );
  assert.equal(formatFieldErrors([]), '');
});

test('toStatusCauses carries reason, message without field, and field', () => {
  assert.deepEqual(toStatusCauses([invalid('spec.x', 'v', 'd')]), [
    { reason: 'FieldValueInvalid', message: 'Invalid value: "v": d', field: 'spec.x' },
  ]);
});
