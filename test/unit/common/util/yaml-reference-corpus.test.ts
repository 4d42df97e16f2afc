// The committed corpus of test/fixtures/yaml-reference/: YAML texts that the reference (sigs.k8s.io/
// yaml's YAMLToJSON over go-yaml v2, asked by test/fuzz/yaml-reference.test.ts) reads differently
// from a YAML 1.2 core-schema reader, each with the reference's own answer written in the file.
// Our reading must give that answer's value, or refuse where it refused.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { agree, ourReading, referenceReading } from '../../../helpers/yaml-reading.js';
import type { OracleAnswer } from '../../../helpers/yaml-oracle.js';

const DIR = 'test/fixtures/yaml-reference';

test("every text of the reference YAML corpus reads to the reference's answer written in its file", () => {
  const files = readdirSync(DIR).filter((f) => f.endsWith('.json'));
  assert.ok(files.length >= 50, `the corpus holds ${files.length} texts`);
  for (const f of files) {
    const { yaml, reference } = JSON.parse(readFileSync(join(DIR, f), 'utf8')) as {
      yaml: string;
      reference: OracleAnswer;
    };
    const ref = referenceReading(reference);
    const ours = ourReading(yaml);
    assert.ok(
      agree(ours, ref),
      `${f}: ${JSON.stringify(yaml)}\n reference: ${JSON.stringify(ref)}\n ours: ${JSON.stringify(ours)}`,
    );
  }
});

test('the corpus names the YAML 1.1 forms by the reference\'s values (0644 is 420, yes and on are true, 1_000 is 1000, keys on: and n: are "true" and "false")', () => {
  const cases: [string, string][] = [
    ['mode: 0644\n', '{"mode":420}'],
    ['hostNetwork: yes\n', '{"hostNetwork":true}'],
    ['a: on\nb: n\n', '{"a":true,"b":false}'],
    ['n: 1_000\n', '{"false":1000}'],
    ['count: 1_000\n', '{"count":1000}'],
    ['on: x\n', '{"true":"x"}'],
    ['1e7: y\n', '{"1e+07":true}'],
    ['t: 2002-12-14\n', '{"t":"2002-12-14"}'],
    ['s: 190:20:30\n', '{"s":"190:20:30"}'],
    ['a: 1\n<<: {a: 2, b: 3}\n', '{"a":2,"b":3}'],
  ];
  for (const [text, json] of cases) assert.deepEqual(ourReading(text), { json }, text);
  assert.ok(
    'error' in ourReading('~: a\n'),
    'a null key is refused (the reference: Unsupported map key of type: %!s(<nil>))',
  );
  assert.ok(
    'error' in ourReading('a: .inf\n'),
    'an infinite value is refused (the reference: json: unsupported value: +Inf)',
  );
});
