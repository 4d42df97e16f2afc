#!/usr/bin/env node
// Writes man/nodeagent.1 and man/plat-apiserver.1 from the flag tables, through the built
// renderers (npm run man builds first): the same source as --help. test/unit/apiserver/man.test.ts
// and test/unit/agent/cli/man.test.ts fail when a committed page differs from what this writes.
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import process from 'node:process';
import { renderManPage } from '../dist/src/agent/cli/man.js';
import { renderApiServerManPage } from '../dist/src/apiserver/man.js';
import { EXTRA_FLAGS } from '../dist/src/apiserver/plugins.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const pages = [
  ['nodeagent.1', renderManPage()],
  ['plat-apiserver.1', renderApiServerManPage(EXTRA_FLAGS)],
];
for (const [name, text] of pages) {
  const target = join(root, 'man', name);
  mkdirSync(dirname(target), { recursive: true });
  const tmp = `${target}.tmp-${process.pid}`;
  writeFileSync(tmp, text);
  renameSync(tmp, target);
  process.stdout.write(`wrote ${target}\n`);
}
