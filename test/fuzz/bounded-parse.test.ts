// Fuzz of the bounded parser (src/common/util/bounded-parse.ts): on any text it returns or throws
// InputLimitError / InputSyntaxError (JSON) and nothing else; within bounds it agrees with JSON.parse
// and with the `yaml` library; what it returns always lies within the bounds it was given.
// Inputs per property: fuzzRuns() (FUZZ_RUNS; `npm run fuzz` for the long run).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { stringify as yamlStringify } from 'yaml';
import {
  measureValue,
  parseJsonBounded,
  parseYamlBounded,
  yamlToJsBounded,
  type ParseLimits,
} from '../../src/common/util/bounded-parse.js';
import { InputLimitError, InputSyntaxError } from '../../src/common/util/errors.js';
import { goYamlWriteTags } from '../../src/common/util/go-yaml-tags.js';
import { fuzzParams } from '../helpers/fuzz-runs.js';

const small: ParseLimits = {
  maxBytes: 4096,
  maxDepth: 6,
  maxDocuments: 3,
  maxKeysPerObject: 5,
  maxNodes: 40,
  maxStringLength: 24,
  maxAliases: 4,
};
const roomy: ParseLimits = {
  maxBytes: 1 << 20,
  maxDepth: 100,
  maxDocuments: 10,
  maxKeysPerObject: 10_000,
  maxNodes: 20_000,
  maxStringLength: 1 << 20,
  maxAliases: 100,
};

/** Texts built from the characters that make structure in JSON and YAML, plus nesting runs. */
const structural = fc.oneof(
  fc.string({
    unit: fc.constantFrom(
      '[',
      ']',
      '{',
      '}',
      ',',
      ':',
      '"',
      "'",
      '-',
      ' ',
      '\n',
      '?',
      '&a',
      '*a',
      '#',
      'a',
      '1',
      '|',
      '>',
      '\\',
      '---\n',
      '  ',
    ),
    maxLength: 200,
  }),
  fc
    .tuple(
      fc.constantFrom('[', '{"a":', '- ', '{a: ', '? '),
      fc.integer({ min: 1, max: 3000 }),
      fc.string({ maxLength: 10 }),
    )
    .map(([open, n, tail]) => open.repeat(n) + tail),
  fc.string({ maxLength: 300 }),
  fc.json({ maxDepth: 8 }),
);

function onlyTyped(fn: () => unknown): unknown {
  try {
    return fn();
  } catch (e) {
    if (e instanceof InputLimitError || e instanceof InputSyntaxError) return e;
    throw e;
  }
}

function withinBounds(value: unknown, limits: ParseLimits): void {
  const size = measureValue(value, limits.maxNodes);
  assert.ok(size.depth <= limits.maxDepth, `depth ${size.depth}`);
  assert.ok(size.nodes <= limits.maxNodes + 1, `nodes ${size.nodes}`);
}

test('JSON: any text gives a value within bounds or a typed error; never anything else', () => {
  fc.assert(
    fc.property(structural, fc.constantFrom(small, roomy), (text, limits) => {
      const r = onlyTyped(() => parseJsonBounded(text, { limits, source: 'fuzz' }));
      if (!(r instanceof Error)) withinBounds(r, limits);
    }),
    fuzzParams(2000),
  );
});

test('JSON: within bounds it agrees with JSON.parse', () => {
  fc.assert(
    fc.property(fc.jsonValue({ maxDepth: 10 }), (v) => {
      const text = JSON.stringify(v);
      assert.deepEqual(parseJsonBounded(text, { limits: roomy, source: 'fuzz' }), JSON.parse(text));
    }),
    fuzzParams(1000),
  );
});

test('YAML: any text gives documents within bounds or a typed error; never anything else', () => {
  fc.assert(
    fc.property(structural, fc.constantFrom(small, roomy), (text, limits) => {
      const input = { limits, source: 'fuzz' };
      onlyTyped(() => {
        for (const d of parseYamlBounded(text, input)) {
          if (d.errors.length === 0) withinBounds(yamlToJsBounded(d, input, text), limits);
        }
      });
    }),
    fuzzParams(2000),
  );
});

test('YAML: within bounds, a JSON value written as JSON or as YAML (strings that YAML 1.1 could take for another type quoted) reads back as that value', () => {
  fc.assert(
    fc.property(fc.jsonValue({ maxDepth: 10 }), fc.boolean(), (v, flow) => {
      const text = flow ? JSON.stringify(v) : yamlStringify(v, { customTags: goYamlWriteTags });
      const input = { limits: roomy, source: 'fuzz' };
      const [doc] = parseYamlBounded(text, input);
      assert.ok(doc !== undefined && doc.errors.length === 0);
      assert.deepEqual(yamlToJsBounded(doc, input, text), JSON.parse(JSON.stringify(v)));
    }),
    fuzzParams(1000),
  );
});
