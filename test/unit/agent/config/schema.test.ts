import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { FLAGS } from '../../../../src/agent/cli/flags.js';
import { defaultConfiguration } from '../../../../src/agent/config/defaults.js';
import { renderJsonSchema, SCHEMA_FILE } from '../../../../src/agent/config/json-schema.js';
import { getPath } from '../../../../src/agent/config/merge.js';
import { schemaPaths } from '../../../../src/agent/config/schema-paths.js';
import { nodeAgentConfigurationSchema } from '../../../../src/agent/config/schema.js';
import { FILE_ONLY_FIELDS } from '../../../../src/agent/config/file-only-fields.js';

test('every config field of the flag table is in the schema and has a default', () => {
  const { leaves } = schemaPaths();
  const defaults = defaultConfiguration('file');
  for (const spec of FLAGS) {
    if (spec.configPath === undefined) continue;
    assert.ok(
      leaves.has(spec.configPath),
      `--${spec.name}: ${spec.configPath} is not in the schema`,
    );
    assert.notEqual(
      getPath(defaults, spec.configPath),
      undefined,
      `${spec.configPath} has no default`,
    );
  }
});

// Fields the reference sets only in its config file (no kubelet flag in 1.32).
const CONFIG_ONLY = new Set(['nodeLeaseDurationSeconds', 'nodeStatusReportFrequency']);

test("every schema field is set by some flag (no orphan fields) except the reference's config-only ones", () => {
  const mapped = new Set(FLAGS.flatMap((f) => (f.configPath === undefined ? [] : [f.configPath])));
  for (const leaf of schemaPaths().leaves) {
    if (
      leaf === 'apiVersion' ||
      leaf === 'kind' ||
      CONFIG_ONLY.has(leaf) ||
      Object.hasOwn(FILE_ONLY_FIELDS, leaf.split('.')[0] ?? '')
    )
      continue;
    assert.ok(mapped.has(leaf), `${leaf} has no flag`);
  }
});

test('the defaults pass the strict schema', () => {
  assert.equal(nodeAgentConfigurationSchema.safeParse(defaultConfiguration('file')).success, true);
  assert.equal(nodeAgentConfigurationSchema.safeParse(defaultConfiguration('flags')).success, true);
});

test(`${SCHEMA_FILE} is up to date (run "npm run schema" after changing the schema)`, () => {
  const onDisk = readFileSync(SCHEMA_FILE, 'utf8');
  assert.equal(onDisk, renderJsonSchema(FLAGS), `${SCHEMA_FILE} is stale: run "npm run schema"`);
});
