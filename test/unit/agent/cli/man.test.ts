import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderManPage, troffEscape } from '../../../../src/agent/cli/man.js';
import { FLAGS } from '../../../../src/agent/cli/flags.js';

function repoRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'man', 'nodeagent.1')) || !existsSync(join(dir, 'package.json'))) {
    const up = dirname(dir);
    if (up === dir)
      throw new Error('man/nodeagent.1 not found above the test file: run npm run man');
    dir = up;
  }
  return dir;
}

test('man/nodeagent.1 matches the flag table byte for byte', () => {
  const committed = readFileSync(join(repoRoot(), 'man', 'nodeagent.1'), 'utf8');
  if (committed !== renderManPage()) assert.fail('man/nodeagent.1 is stale: run npm run man');
});

test('the man page documents every flag', () => {
  const page = renderManPage();
  assert.match(page, /^\.TH NODEAGENT 1 /);
  for (const f of FLAGS)
    assert.ok(page.includes(`\\fB${troffEscape(`--${f.name}`)}\\fR`), `--${f.name}`);
  assert.ok(page.includes('\\fB\\-v\\fR, \\fB\\-\\-v\\fR \\fIint\\fR'));
});

test('troff escaping', () => {
  assert.equal(troffEscape('a-b\\c'), 'a\\-b\\ec');
  assert.equal(troffEscape(".x\n'y"), "\\&.x\n\\&'y");
});
