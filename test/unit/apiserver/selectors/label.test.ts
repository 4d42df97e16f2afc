import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { SelectorError, parseLabelSelector } from '../../../../src/apiserver/selectors/index.js';

const labels = { app: 'web', tier: 'front', n: '5', neg: '-3', notnum: 'x' };

const matchCases: [string, boolean][] = [
  ['', true],
  ['app=web', true],
  ['app==web', true],
  ['app!=web', false],
  ['app!=db', true],
  ['missing!=x', true],
  ['app in (web,db)', true],
  ['app in (db)', false],
  ['app notin (db)', true],
  ['app notin (web)', false],
  ['missing notin (a)', true],
  ['missing in (a)', false],
  ['app', true],
  ['missing', false],
  ['!missing', true],
  ['!app', false],
  ['n>4', true],
  ['n>5', false],
  ['n<6', true],
  ['neg<0', true],
  ['notnum>1', false],
  ['missing>1', false],
  ['app=web,tier=front', true],
  ['app=web,tier=back', false],
  ['  app = web , tier in ( front , back ) ', true],
  ['example.com/key', false],
  ['app=', false],
  ['missing=', false],
  ['in=in', false],
  ['app in (,web)', true],
];
for (const [sel, want] of matchCases) {
  test(`label selector ${JSON.stringify(sel)} matches=${want}`, () => {
    assert.equal(parseLabelSelector(sel).matches(labels), want);
  });
}

test('requirements and canonical text', () => {
  const s = parseLabelSelector('z=1,a in (c,b),!d,e,f>3,g notin (x)');
  assert.equal(s.toString(), 'a in (b,c),!d,e,f>3,g notin (x),z=1');
  assert.equal(s.empty, false);
  assert.equal(parseLabelSelector('').empty, true);
  assert.deepEqual(parseLabelSelector('a in ()').requirements, [
    { key: 'a', operator: 'in', values: [''] },
  ]);
  assert.deepEqual(parseLabelSelector('a=b').requirements, [
    { key: 'a', operator: '=', values: ['b'] },
  ]);
});

const errors: [string, string][] = [
  ['a=b c', "found 'c', expected: ',' or 'end of string'"],
  ['a=b,', "found '', expected: identifier after ','"],
  ['=b', "found '=', expected: !, identifier, or 'end of string'"],
  ['a b', "unable to parse requirement: found 'b', expected: in, notin, =, ==, !=, gt, lt"],
  ['a in b', "unable to parse requirement: found 'b' expected: '('"],
  ['a in (b', "unable to parse requirement: found '', expected: ',' or ')'"],
  ['a in (b c)', "unable to parse requirement: found 'c', expected: ',' or ')'"],
  ['a in (=)', "unable to parse requirement: found '=', expected: ',', ')' or identifier"],
  ['a=(', "unable to parse requirement: found '(', expected: identifier"],
  ['!', "unable to parse requirement: found '', expected: identifier"],
  ['!a=b', "found '=', expected: ',' or 'end of string'"],
  [
    'a>b',
    "unable to parse requirement: values[0]: Invalid value: \"b\": for 'Gt', 'Lt' operators, the value must be an integer",
  ],
  [
    '-a=b',
    "unable to parse requirement: <nil>: Invalid value: \"-a\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
  ],
  [
    'a=-b',
    "unable to parse requirement: values[0][a]: Invalid value: \"-b\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
  ],
  [
    'a/b/c',
    "unable to parse requirement: <nil>: Invalid value: \"a/b/c\": a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
  ],
  ['/a', 'unable to parse requirement: <nil>: Invalid value: "/a": prefix part must be non-empty'],
  [
    'Ex.com/a',
    "unable to parse requirement: <nil>: Invalid value: \"Ex.com/a\": prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
  ],
  [
    `${'a'.repeat(64)}`,
    `unable to parse requirement: <nil>: Invalid value: "${'a'.repeat(64)}": name part must be no more than 63 characters`,
  ],
];
for (const [sel, msg] of errors) {
  test(`label selector error ${JSON.stringify(sel)}`, () => {
    assert.throws(
      () => parseLabelSelector(sel),
      (e: unknown) => {
        assert.ok(e instanceof SelectorError);
        assert.equal(e.message, msg);
        return true;
      },
    );
  });
}

test('property: label selector parse never throws anything but SelectorError', () => {
  const unit = fc.constantFrom(
    'a',
    'b',
    '=',
    '!',
    ',',
    '(',
    ')',
    ' ',
    '<',
    '>',
    'in',
    'notin',
    '/',
    '-',
    '.',
    '1',
  );
  fc.assert(
    fc.property(fc.string({ unit }), (s) => {
      try {
        parseLabelSelector(s);
      } catch (e) {
        return e instanceof SelectorError;
      }
      return true;
    }),
    { numRuns: 3000 },
  );
});

test('property: canonical text re-parses to the same requirements', () => {
  const unit = fc.constantFrom(
    'a',
    'b',
    '=',
    '!',
    ',',
    '(',
    ')',
    ' ',
    '<',
    '>',
    'in',
    'notin',
    '1',
  );
  fc.assert(
    fc.property(fc.string({ unit }), (s) => {
      let sel;
      try {
        sel = parseLabelSelector(s);
      } catch {
        return true;
      }
      assert.deepEqual(parseLabelSelector(sel.toString()).requirements, sel.requirements);
      return true;
    }),
    { numRuns: 2000 },
  );
});
