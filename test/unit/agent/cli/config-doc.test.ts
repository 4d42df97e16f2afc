import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import {
  CONFIG_DOC_BEGIN,
  CONFIG_DOC_END,
  referenceSpelling,
  renderConfigurationReference,
  withConfigurationReference,
} from '../../../../src/agent/cli/config-doc.js';
import { FLAGS } from '../../../../src/agent/cli/flags.js';
import { FILE_ONLY_FIELDS } from '../../../../src/agent/config/file-only-fields.js';

test('docs/configuration.md carries the flag table as it is now (npm run docs writes it)', () => {
  const page = readFileSync('docs/configuration.md', 'utf8');
  const fresh = withConfigurationReference(page, renderConfigurationReference());
  if (fresh !== page) assert.fail('docs/configuration.md is out of date: run npm run docs');
});

test('the configuration reference names every flag and every field without a flag', () => {
  const reference = renderConfigurationReference();
  for (const f of FLAGS) assert.ok(reference.includes(`--${f.name}\` |`), `--${f.name}`);
  for (const name of Object.keys(FILE_ONLY_FIELDS))
    assert.ok(reference.includes(`| \`${name}\` |`), name);
  assert.ok(reference.startsWith(CONFIG_DOC_BEGIN));
  assert.ok(reference.trimEnd().endsWith(CONFIG_DOC_END));
});

test("the reference's spellings of our flags, as kubeadm's drop-in writes them", () => {
  assert.equal(referenceSpelling('platconfig'), '--kubeconfig');
  assert.equal(referenceSpelling('bootstrap-platconfig'), '--bootstrap-kubeconfig');
  assert.equal(referenceSpelling('nodeagent-cgroups'), '--kubelet-cgroups');
  assert.equal(referenceSpelling('max-pods'), '');
});

test('a page without the markers is refused, naming them', () => {
  assert.throws(() => withConfigurationReference('# nothing\n', 'x'), /lacks the markers/);
});
