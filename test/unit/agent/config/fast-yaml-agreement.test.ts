// The agent reads its config files with two YAML libraries (README "Start-up time" gives the
// measured reason: js-yaml's fast path, the `yaml` library for everything else). They must agree:
// whatever text the fast path decodes, the full parser reads to the same value with no error and
// no duplicate key. Random texts over YAML's indicator characters, random scalars, generated
// documents in block, flow and JSON form, and every hostile corpus under test/fixtures.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import jsyaml from 'js-yaml';
import { stringify } from 'yaml';
import { fastYamlValue } from '../../../../src/common/util/fast-yaml.js';
import { parseYaml } from '../../../../src/agent/config/yaml-doc.js';
import { InputLimitError } from '../../../../src/common/util/errors.js';
import { fuzzParams } from '../../../helpers/fuzz-runs.js';

/** -0 and 0 are one JSON number; an empty document is null to both. */
function json(v: unknown): unknown {
  if (v === undefined || v === null) return null;
  if (Array.isArray(v)) return v.map(json);
  if (typeof v === 'object')
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, json(x)]));
  return Object.is(v, -0) ? 0 : v;
}

/** True when the fast path decoded `text` (and the full parser agrees); false when it declined. */
function agrees(text: string, what: string): boolean {
  const fast = fastYamlValue(text);
  if (fast === undefined) return false;
  let full: ReturnType<typeof parseYaml>;
  try {
    full = parseYaml(text, what);
  } catch (err) {
    if (err instanceof InputLimitError)
      return assert.fail(
        `${what}: the fast path decoded a text over the config file limits (${err.message})`,
      );
    throw err;
  }
  assert.deepEqual(
    full.errors.map((e) => e.message),
    [],
    `${what}: the fast path decoded ${JSON.stringify(text)}, the full parser refuses it`,
  );
  assert.deepEqual(
    full.duplicates.map((d) => d.path),
    [],
    `${what}: the fast path decoded ${JSON.stringify(text)}, the full parser finds duplicate keys`,
  );
  assert.deepEqual(
    json(fast.value),
    json(full.value),
    `${what}: ${JSON.stringify(text)} decodes differently`,
  );
  return true;
}

const indicators = fc.constantFrom(
  ...'ab:- \n\t{}[],#&*!|>\'"%@`?0123456789.+eExXoObB_~<=\\'.split(''),
);
const numberish = fc.constantFrom(...'0123456789.+-eExXoObB_:'.split(''));

test('random texts over the YAML indicators: what the fast path decodes, the full parser reads the same', () => {
  fc.assert(
    fc.property(
      fc.string({ unit: indicators, maxLength: 40 }),
      (text) => void agrees(text, 'random text'),
    ),
    fuzzParams(4000),
  );
});

test('random scalars: the fast path and the full parser resolve them alike (numbers, signs, exponents, bases)', () => {
  fc.assert(
    fc.property(
      fc.string({ unit: numberish, maxLength: 8 }),
      (s) => void agrees(`a: ${s}\nb: [${s}]\n`, 'scalar'),
    ),
    fuzzParams(4000),
  );
});

test('generated documents (block, flow, JSON, js-yaml): the same value; the fast path takes most of them', () => {
  const keys = fc.constantFrom(
    'port',
    'maxPods',
    'featureGates',
    'evictionHard',
    'memory.available',
    'a b',
    'x',
    'null',
    'true',
    '0x1F',
    '-.5',
    'on',
  );
  const leaf = fc.oneof(
    fc.string({ maxLength: 8 }),
    fc.integer(),
    fc.double({ noNaN: true }),
    fc.boolean(),
    fc.constant(null),
    fc.constantFrom('0b101', '+.5', '1e400', '~', 'yes', '2001-01-01', '<<', '! x', '# y'),
  );
  const doc = fc.letrec((tie) => ({
    v: fc.oneof(
      { depthSize: 'small' },
      leaf,
      fc.array(tie('v'), { maxLength: 3 }),
      fc.dictionary(keys, tie('v'), { maxKeys: 4 }),
    ),
  })).v;
  let taken = 0;
  let runs = 0;
  fc.assert(
    fc.property(fc.dictionary(keys, doc, { maxKeys: 5 }), (d) => {
      runs++;
      const forms = [
        stringify(d),
        stringify(d, { collectionStyle: 'flow' }),
        JSON.stringify(d),
        JSON.stringify(d, null, 2),
        jsyaml.dump(d, { schema: jsyaml.CORE_SCHEMA }),
      ];
      for (const text of forms) if (agrees(text, 'generated document')) taken++;
    }),
    fuzzParams(300),
  );
  // A guard on the test, not a rule of the agreement: a fast path that declined everything would
  // agree trivially (about a third of these forms have a scalar it leaves to the full parser).
  assert.ok(taken > runs, `the fast path decoded ${taken} of ${runs * 5} documents`);
});

test('a sequence or mapping as a mapping key (block `? `, flow, nested, aliased): the fast path declines and the full parser refuses it with line and column', () => {
  const word = fc.stringMatching(/^[a-z][a-z0-9]{0,5}$/);
  const scalar = fc.oneof(
    word,
    fc.integer({ min: 0, max: 999 }).map(String),
    fc.constantFrom('true', 'null', '"q"', "'s'"),
  );
  const flowSeq = fc.array(scalar, { maxLength: 3 }).map((a) => `[${a.join(', ')}]`);
  const flowMap = fc
    .array(fc.tuple(word, scalar), { maxLength: 2 })
    .map((a) => `{${a.map(([k, v]) => `${k}: ${v}`).join(', ')}}`);
  const key = fc.oneof(
    flowSeq,
    flowMap,
    flowSeq.map((k) => `[${k}]`),
  );
  const forms: ((k: string, v: string) => string)[] = [
    (k, v) => `? ${k}\n: ${v}\n`,
    (k, v) => `${k}: ${v}\n`,
    (k, v) => `${k} : ${v}\n`,
    (k, v) => `x: {${k}: ${v}}\n`,
    (k, v) => `x: [${k}: ${v}]\n`,
    (k, v) => `x:\n- ${k}: ${v}\n`,
    (k, v) => `x:\n  y: 1\n  ? ${k}\n  : ${v}\n`,
    (k, v) => `a: &k ${k}\n*k : ${v}\n`,
    (_k, v) => `? - a\n  - b\n: ${v}\n`,
    (_k, v) => `? a: b\n: ${v}\n`,
  ];
  const head = fc.constantFrom(
    '',
    'apiVersion: nodeagent.config.platform.io/v1beta1\nkind: NodeAgentConfiguration\n',
    'port: 10250\n',
  );
  fc.assert(
    fc.property(head, key, scalar, fc.integer({ min: 0, max: forms.length - 1 }), (h, k, v, i) => {
      const text = h + (forms[i] as (k: string, v: string) => string)(k, v);
      assert.equal(fastYamlValue(text), undefined, `the fast path decoded ${JSON.stringify(text)}`);
      const full = parseYaml(text, 'generated');
      assert.match(
        full.errors[0]?.message ?? '',
        /^invalid map key: the key is a (sequence|mapping); a mapping key must be a string, a number within int64 or a boolean$/,
        JSON.stringify(text),
      );
      assert.ok(
        (full.errors[0]?.pos.line ?? 0) > h.split('\n').length - 1,
        `the line of the key in ${JSON.stringify(text)}`,
      );
    }),
    fuzzParams(2000),
  );
});

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? filesUnder(p) : [p];
  });
}

test('the hostile corpora and the examples: the fast path never throws, and what it decodes the full parser reads the same', () => {
  const corpora = readdirSync('test/fixtures')
    .filter((d) => d.startsWith('hostile-'))
    .flatMap((d) => filesUnder(join('test/fixtures', d)));
  assert.ok(corpora.length > 100, `${corpora.length} files in test/fixtures/hostile-*`);
  for (const f of corpora) agrees(readFileSync(f, 'latin1'), f);
  const examples = ['examples/nodeagent-config.yaml'];
  for (const f of examples)
    assert.equal(
      agrees(readFileSync(f, 'utf8'), f),
      true,
      `${f}: a clean config file takes the fast path`,
    );
});
