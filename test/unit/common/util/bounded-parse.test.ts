// The bounded parser: every limit of ParseLimits, for JSON and YAML, is an InputLimitError naming
// the limit, the input and where; 10,000-level documents (JSON, YAML flow, YAML block) are refused
// without exhausting the stack, even when the parser is called with most of the stack already used.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parse as yamlParse } from 'yaml';
import {
  API_BODY_LIMITS,
  MANIFEST_LIMITS,
  parseJsonBounded,
  parseYamlBounded,
  parseYamlValueBounded,
  yamlNestingUpperBound,
  yamlToJsBounded,
  type ParseLimits,
} from '../../../../src/common/util/bounded-parse.js';
import { InputLimitError, InputSyntaxError } from '../../../../src/common/util/errors.js';

const N = 10_000;
const deepObject = '{"a":'.repeat(N) + '1' + '}'.repeat(N);
const deepArray = '['.repeat(N) + ']'.repeat(N);
const input = { limits: API_BODY_LIMITS, source: 'request body' };

function yamlValues(text: string, limits: ParseLimits = MANIFEST_LIMITS): unknown[] {
  const i = { limits, source: 'm.yaml' };
  return parseYamlBounded(text, i).map((d) => yamlToJsBounded(d, i, text));
}

function limitOf(fn: () => unknown): InputLimitError {
  try {
    fn();
  } catch (e) {
    if (e instanceof InputLimitError) return e;
    throw e;
  }
  assert.fail('expected an InputLimitError');
}

test('10,000-level JSON: maxDepth, with the byte offset and the field path', () => {
  const text = `{"spec":{"x":${deepObject}}}`;
  const e = limitOf(() => parseJsonBounded(text, input));
  assert.equal(e.limit, 'maxDepth');
  assert.equal(e.max, 100);
  assert.equal(e.source, 'request body');
  // the 101st '{': 2 for spec and x, then 98 '{"a":' of 5 bytes
  assert.equal(e.offset, 13 + 98 * 5);
  assert.equal(text[e.offset], '{');
  assert.ok(e.field.startsWith('spec.x.a.a'), e.field);
  assert.match(
    e.message,
    /^request body: more than 100 levels of nesting \(limit maxDepth=100\) at byte offset 503 \(field spec\.x\.a\.a/,
  );
  assert.equal(limitOf(() => parseJsonBounded(deepArray, input)).limit, 'maxDepth');
});

test('10,000-level YAML, flow and block and mixed: maxDepth', () => {
  const cases = [
    deepArray,
    deepObject,
    `a:\n  ${'- '.repeat(N)}x\n`,
    `${'- '.repeat(N)}x\n`,
    Array.from({ length: 300 }, (_, i) => `${' '.repeat(2 * i)}- a:`).join('\n') + ' 1\n',
    Array.from({ length: 2000 }, (_, i) => `${' '.repeat(i)}a:`).join('\n') + ' 1\n',
  ];
  for (const text of cases) {
    const e = limitOf(() => yamlValues(text));
    assert.equal(e.limit, 'maxDepth', text.slice(0, 40));
    assert.match(
      e.message,
      /^m\.yaml: more than 100 levels of nesting \(limit maxDepth=100\) at byte offset \d+/,
    );
  }
  // not even YAML (a sequence on the line of its key): still refused before it is parsed
  assert.equal(limitOf(() => yamlValues(`a: ${'- '.repeat(N)}x\n`)).limit, 'maxDepth');
  const bad = parseYamlBounded(`a: ${'- '.repeat(50)}x\n`, {
    limits: MANIFEST_LIMITS,
    source: 'm.yaml',
  });
  assert.match(bad[0]?.errors[0]?.message ?? '', /Unexpected block-seq-ind on same line with key/);
});

test('refused even with most of the stack in use (no recursion before the bounds hold)', () => {
  const texts = [deepArray, `${'- '.repeat(N)}x\n`, `{"a":${deepObject}}`];
  let refused = 0;
  const nest = (n: number): void => {
    if (n > 0) return nest(n - 1);
    for (const t of texts) {
      assert.equal(limitOf(() => yamlValues(t)).limit, 'maxDepth');
      assert.equal(
        limitOf(() => parseJsonBounded(t.startsWith('-') ? deepArray : t, input)).limit,
        'maxDepth',
      );
      refused++;
    }
  };
  nest(3000);
  assert.equal(refused, texts.length);
});

test('at the depth limit, JSON and YAML are read and agree', () => {
  const at = '['.repeat(100) + '1' + ']'.repeat(100);
  assert.deepEqual(parseJsonBounded(at, input), JSON.parse(at));
  assert.deepEqual(yamlValues(at), [JSON.parse(at)]);
  const block =
    Array.from({ length: 50 }, (_, i) => `${' '.repeat(2 * i)}- a:`).join('\n') + ' 1\n';
  assert.deepEqual(yamlValues(block), [yamlParse(block)]);
  assert.equal(limitOf(() => parseJsonBounded(`[${at}]`, input)).limit, 'maxDepth');
});

test('keys per object, values, string length, documents, bytes', () => {
  const small: ParseLimits = {
    maxBytes: 1000,
    maxDepth: 5,
    maxDocuments: 2,
    maxKeysPerObject: 3,
    maxNodes: 10,
    maxStringLength: 8,
    maxAliases: 2,
  };
  const i = { limits: small, source: 'f.json' };
  assert.equal(
    limitOf(() => parseJsonBounded('{"a":1,"b":2,"c":3,"d":4}', i)).limit,
    'maxKeysPerObject',
  );
  assert.equal(
    limitOf(() => yamlValues('{a: 1, b: 2, c: 3, d: 4}', small)).limit,
    'maxKeysPerObject',
  );
  assert.equal(
    limitOf(() => yamlValues('a: 1\nb: 2\nc: 3\nd: 4\n', small)).limit,
    'maxKeysPerObject',
  );
  assert.equal(limitOf(() => parseJsonBounded('[1,2,3,4,5,6,7,8,9,10]', i)).limit, 'maxNodes');
  assert.equal(limitOf(() => yamlValues('[1,2,3,4,5,6,7,8,9,10]', small)).limit, 'maxNodes');
  assert.equal(
    limitOf(() => yamlValues('- 1\n- 2\n- 3\n- 4\n- 5\n- 6\n- 7\n- 8\n- 9\n- 10\n', small)).limit,
    'maxNodes',
  );
  assert.equal(limitOf(() => parseJsonBounded('["123456789"]', i)).limit, 'maxStringLength');
  assert.equal(limitOf(() => parseJsonBounded('[1234567890]', i)).limit, 'maxStringLength');
  assert.equal(limitOf(() => yamlValues('a: 123456789x\n', small)).limit, 'maxStringLength');
  assert.equal(limitOf(() => yamlValues('a: "123456789"\n', small)).limit, 'maxStringLength');
  assert.equal(
    limitOf(() => yamlValues('a: 1\n---\nb: 1\n---\nc: 1\n', small)).limit,
    'maxDocuments',
  );
  assert.equal(limitOf(() => yamlValues('a: &x 1\nb: [*x, *x, *x]\n', small)).limit, 'maxAliases');
  const e = limitOf(() =>
    parseJsonBounded(`"${'é'.repeat(600)}"`, {
      limits: { ...small, maxStringLength: 10_000 },
      source: 'f.json',
    }),
  );
  assert.equal(e.limit, 'maxBytes');
  assert.equal(e.message, 'f.json: 1202 bytes is more than 1000 bytes (limit maxBytes=1000)');
});

test('aliases cannot nest a value past the depth limit or expand into a bomb', () => {
  const nest =
    Array.from(
      { length: 60 },
      (_, i) => `a${i}: &a${i} ` + (i === 0 ? '['.repeat(90) + ']'.repeat(90) : `[*a${i - 1}]`),
    ).join('\n') + '\n';
  assert.equal(limitOf(() => yamlValues(nest)).limit, 'maxDepth');
  const bomb =
    'a: &a [x, x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\n';
  const e = limitOf(() => yamlValues(bomb));
  assert.equal(e.limit, 'maxAliases');
  assert.match(
    e.message,
    /^m\.yaml: Excessive alias count indicates a resource exhaustion attack \(limit maxAliases=100\)/,
  );
});

test('malformed input is an InputSyntaxError (JSON) or a document error (YAML), never anything else', () => {
  assert.throws(() => parseJsonBounded('{"a":', input), InputSyntaxError);
  assert.throws(() => parseJsonBounded('[1,]', input), InputSyntaxError);
  const docs = parseYamlBounded('a: [1\nb: 2', { ...input });
  assert.ok((docs[0]?.errors.length ?? 0) > 0);
  assert.throws(() => parseYamlValueBounded('a: [1\nb: 2', input), InputSyntaxError);
  assert.throws(
    () =>
      parseYamlValueBounded('a: 1\n---\nb: 2\n', {
        limits: { ...API_BODY_LIMITS, maxDocuments: 5 },
        source: 'x',
      }),
    /Source contains multiple documents/,
  );
  assert.equal(parseYamlValueBounded('', input), null);
});

test('yamlNestingUpperBound never under-counts', () => {
  const samples = [
    'a: 1\n',
    'a:\n- b:\n  - c:\n    - d: 1\n',
    '- - - - x\n',
    'a: {b: [c, {d: e}]}\n',
    Array.from({ length: 30 }, (_, i) => `${' '.repeat(i)}a:`).join('\n') + ' 1\n',
    'a:\n  b:\n    c: [1, [2, [3]]]\n',
  ];
  for (const s of samples) {
    let depth = 0;
    const walk = (v: unknown, d: number): void => {
      if (v === null || typeof v !== 'object') return;
      depth = Math.max(depth, d);
      for (const c of Object.values(v)) walk(c, d + 1);
    };
    walk(yamlParse(s), 1);
    assert.ok(
      yamlNestingUpperBound(s) >= depth,
      `${JSON.stringify(s)}: ${yamlNestingUpperBound(s)} < ${depth}`,
    );
  }
});
