import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  SelectorError,
  checkFieldsSupported,
  escapeFieldValue,
  parseFieldSelector,
  requiresExactMatch,
} from '../../../../src/apiserver/selectors/index.js';

const parses: [string, string, { field: string; op: string; value: string }[]][] = [
  ['', '', []],
  ['a=b', 'a=b', [{ field: 'a', op: '=', value: 'b' }]],
  ['a==b', 'a=b', [{ field: 'a', op: '=', value: 'b' }]],
  ['a!=b', 'a!=b', [{ field: 'a', op: '!=', value: 'b' }]],
  [
    'b=2,a=1',
    'a=1,b=2',
    [
      { field: 'a', op: '=', value: '1' },
      { field: 'b', op: '=', value: '2' },
    ],
  ],
  ['a=', 'a=', [{ field: 'a', op: '=', value: '' }]],
  ['a=b,', 'a=b', [{ field: 'a', op: '=', value: 'b' }]],
  [',,a=b', 'a=b', [{ field: 'a', op: '=', value: 'b' }]],
  ['a=x\\,y', 'a=x\\,y', [{ field: 'a', op: '=', value: 'x,y' }]],
  ['a=x\\=y', 'a=x\\=y', [{ field: 'a', op: '=', value: 'x=y' }]],
  ['a=x\\\\y', 'a=x\\\\y', [{ field: 'a', op: '=', value: 'x\\y' }]],
  [
    'spec.signerName=example.com/foo',
    'spec.signerName=example.com/foo',
    [{ field: 'spec.signerName', op: '=', value: 'example.com/foo' }],
  ],
  ['a!==b', 'a!=\\=b', []], // error below
];

for (const [input, canonical, reqs] of parses.slice(0, -1)) {
  test(`parseFieldSelector(${JSON.stringify(input)})`, () => {
    const s = parseFieldSelector(input);
    assert.deepEqual(s.requirements, reqs);
    assert.equal(s.toString(), canonical);
    assert.equal(s.empty, reqs.length === 0);
    assert.deepEqual(parseFieldSelector(s.toString()).requirements, reqs);
  });
}

const errors: [string, string][] = [
  ['foo', "invalid selector: 'foo'; can't understand 'foo'"],
  ['a=b,c', "invalid selector: 'a=b,c'; can't understand 'c'"],
  ['a!==b', 'invalid field selector: unescaped character in value: 61'],
  ['a=b=c', 'invalid field selector: unescaped character in value: 61'],
  ['a=b\\', 'invalid field selector: invalid escape sequence: \\'],
  ['a=b\\n', 'invalid field selector: invalid escape sequence: \\n'],
];
for (const [input, msg] of errors) {
  test(`parseFieldSelector error ${JSON.stringify(input)}`, () => {
    assert.throws(
      () => parseFieldSelector(input),
      (e: unknown) => e instanceof SelectorError && e.message === msg,
    );
  });
}

test('matches: =, != and missing fields', () => {
  const vals: Record<string, string> = { 'metadata.name': 'n1', 'spec.signerName': 's' };
  const get = (f: string): string | undefined => vals[f];
  assert.equal(parseFieldSelector('metadata.name=n1').matches(get), true);
  assert.equal(parseFieldSelector('metadata.name==n2').matches(get), false);
  assert.equal(parseFieldSelector('metadata.name!=n2,spec.signerName=s').matches(get), true);
  assert.equal(parseFieldSelector('metadata.name!=n1').matches(get), false);
  assert.equal(parseFieldSelector('').matches(get), true);
});

test('checkFieldsSupported names the first unsupported label', () => {
  const allowed = new Set(['metadata.name']);
  checkFieldsSupported(parseFieldSelector('metadata.name=x'), allowed);
  assert.throws(
    () => checkFieldsSupported(parseFieldSelector('metadata.name=x,spec.foo=y'), allowed),
    (e: unknown) =>
      e instanceof SelectorError && e.message === 'field label not supported: spec.foo',
  );
});

test('requiresExactMatch finds a pinned name', () => {
  assert.equal(requiresExactMatch(parseFieldSelector('metadata.name=a'), 'metadata.name'), 'a');
  assert.equal(
    requiresExactMatch(parseFieldSelector('metadata.name!=a'), 'metadata.name'),
    undefined,
  );
});

test('property: parse never throws anything but SelectorError', () => {
  fc.assert(
    fc.property(
      fc.string({ unit: fc.constantFrom('a', '.', '=', '!', ',', '\\', ' ', 'é', 'x') }),
      (s) => {
        try {
          parseFieldSelector(s);
        } catch (e) {
          return e instanceof SelectorError;
        }
        return true;
      },
    ),
    { numRuns: 2000 },
  );
  fc.assert(
    fc.property(fc.string(), (s) => {
      try {
        parseFieldSelector(s);
      } catch (e) {
        return e instanceof SelectorError;
      }
      return true;
    }),
  );
});

test('property: escaped values round-trip', () => {
  fc.assert(
    fc.property(fc.string(), fc.string(), (field, value) => {
      fc.pre(/^[a-z.]+$/.test(field));
      const s = parseFieldSelector(`${field}=${escapeFieldValue(value)}`);
      assert.deepEqual(s.requirements, [{ field, op: '=', value }]);
    }),
  );
});
