#!/usr/bin/env node
// Writes the reference part of docs/configuration.md (between its markers) from the flag table,
// through the built renderer (npm run docs builds first). test/unit/agent/cli/config-doc.test.ts
// fails when the committed page differs from what this writes.
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import process from 'node:process';
import {
  renderConfigurationReference,
  withConfigurationReference,
} from '../dist/src/agent/cli/config-doc.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const target = join(root, 'docs', 'configuration.md');
const page = withConfigurationReference(
  readFileSync(target, 'utf8'),
  renderConfigurationReference(),
);
const tmp = `${target}.tmp-${process.pid}`;
writeFileSync(tmp, page);
renameSync(tmp, target);
process.stdout.write(`wrote ${target}\n`);
