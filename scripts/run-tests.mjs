#!/usr/bin/env node
// Runs node's test runner over the compiled tests (dist/test/**/*.test.js).
// Usage: node scripts/run-tests.mjs [unit|integration|e2e|<path fragment>...]
// Only files named *.test.js run, so helpers under test/ are never mistaken for tests.
import { readdirSync, statSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';

const root = 'dist/test';
if (!existsSync(root)) {
  console.error('dist/test is missing: run "npm run build" first');
  process.exit(1);
}
const filters = process.argv.slice(2);
const files = [];
(function walk(dir) {
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p);
    else if (name.endsWith('.test.js')) files.push(p);
  }
})(root);
const selected = filters.length ? files.filter((f) => filters.some((x) => f.includes(x))) : files;
if (selected.length === 0) {
  console.error(`no test files match ${filters.join(' ')}`);
  process.exit(1);
}
const concurrency = process.env.TEST_CONCURRENCY ?? '2';
// A hung test must fail, not eat CI's time budget: no single test may run longer than this.
const timeoutMs = process.env.TEST_TIMEOUT_MS ?? '180000';
const r = spawnSync(process.execPath, ['--test', `--test-concurrency=${concurrency}`, `--test-timeout=${timeoutMs}`, '--test-reporter=spec', ...selected], {
  stdio: 'inherit',
  env: process.env,
});
process.exit(r.status ?? 1);
