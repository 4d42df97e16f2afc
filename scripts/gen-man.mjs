#!/usr/bin/env node
// Writes man/nodeagent.1 from the flag table, through the built renderer (npm run man builds
// first). test/unit/cli/man.test.ts fails when the committed page differs from what this writes.
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import process from 'node:process';
import { renderManPage } from '../dist/src/agent/cli/man.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const target = join(root, 'man', 'nodeagent.1');
mkdirSync(dirname(target), { recursive: true });
const tmp = `${target}.tmp-${process.pid}`;
writeFileSync(tmp, renderManPage());
renameSync(tmp, target);
process.stdout.write(`wrote ${target}\n`);
