// man/plat-apiserver.1 is rendered from the same flag table and sections as --help.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { renderApiServerManPage } from '../../../src/apiserver/man.js';
import { FLAG_DEFS } from '../../../src/apiserver/flags.js';
import { EXTRA_FLAGS } from '../../../src/apiserver/plugins.js';
import { troffEscape } from '../../../src/common/cli/troff.js';
import { repoRoot } from '../../helpers/apiserver.js';

test('man/plat-apiserver.1 matches the flag table byte for byte', () => {
  const committed = readFileSync(join(repoRoot(), 'man', 'plat-apiserver.1'), 'utf8');
  if (committed !== renderApiServerManPage(EXTRA_FLAGS))
    assert.fail('man/plat-apiserver.1 is stale: run npm run man');
});

test('the man page documents every flag under its --help section', () => {
  const page = renderApiServerManPage(EXTRA_FLAGS);
  assert.match(page, /^\.TH PLAT\\-APISERVER 1 /);
  for (const f of [...FLAG_DEFS, ...EXTRA_FLAGS])
    assert.ok(page.includes(`\\fB${troffEscape(`--${f.name}`)}\\fR`), `--${f.name}`);
  assert.match(page, /\.SS\nSecure serving flags\n\.TP\n\\fB\\-\\-bind\\-address\\fR/);
});
