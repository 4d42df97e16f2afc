#!/usr/bin/env node
// Runs every compiled benchmark in dist/bench (files named *.bench.js), one after another.
// Usage: node scripts/run-bench.mjs [name fragment...]
import { readdirSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';

const dir = 'dist/bench';
if (!existsSync(dir)) {
  console.error('dist/bench is missing: run "npm run build" first');
  process.exit(1);
}
const filters = process.argv.slice(2);
const all = readdirSync(dir)
  .filter((f) => f.endsWith('.bench.js'))
  .sort();
const chosen = filters.length ? all.filter((f) => filters.some((x) => f.includes(x))) : all;
let failed = 0;
for (const f of chosen) {
  console.log(`\n== ${f}`);
  const r = spawnSync(process.execPath, [join(dir, f)], { stdio: 'inherit' });
  if (r.status !== 0) failed++;
}
process.exit(failed ? 1 : 0);
