#!/usr/bin/env node
// The long fuzz run, outside `npm test`: every fast-check suite under dist/test/fuzz with FUZZ_RUNS
// inputs per property (default 1,000,000; npm test runs the same suites with small seeded counts).
// Usage: node scripts/fuzz.mjs [--runs N] [--seed S] [file fragment...]
// Prints one line per suite (inputs, seconds, result) and exits non-zero if any property failed.
import { readdirSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';

const args = process.argv.slice(2);
let runs = '1000000';
let seed = String(Date.now() % 2147483647);
const filters = [];
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--runs') runs = args[++i] ?? runs;
  else if (args[i] === '--seed') seed = args[++i] ?? seed;
  else filters.push(args[i]);
}
if (!/^[1-9][0-9]*$/.test(runs)) {
  console.error(`--runs takes a positive integer, got ${runs}`);
  process.exit(2);
}
const root = 'dist/test/fuzz';
if (!existsSync(root)) {
  console.error('dist/test/fuzz is missing: run "npm run build" first');
  process.exit(2);
}
const files = readdirSync(root, { recursive: true })
  .map(String)
  .filter((f) => f.endsWith('.test.js'))
  .map((f) => join(root, f))
  .filter((f) => filters.length === 0 || filters.some((x) => f.includes(x)))
  .sort();
let failed = 0;
for (const f of files) {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(process.execPath, ['--test', '--test-reporter=dot', f], {
    env: { ...process.env, FUZZ_RUNS: runs, FUZZ_SEED: seed },
    encoding: 'utf8',
    maxBuffer: 64 << 20,
  });
  const s = Number(process.hrtime.bigint() - t0) / 1e9;
  const ok = r.status === 0;
  if (!ok) {
    failed++;
    process.stdout.write((r.stdout ?? '') + (r.stderr ?? ''));
  }
  console.log(
    `${ok ? 'ok  ' : 'FAIL'} ${f}: ${runs} inputs per property, seed ${seed}, ${s.toFixed(1)} s`,
  );
}
console.log(`${files.length - failed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
