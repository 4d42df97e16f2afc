#!/usr/bin/env node
// Runs node's test runner over the compiled tests (dist/test/**/*.test.js).
// Usage: node scripts/run-tests.mjs [unit|integration|e2e|<path fragment>...]
// Only files named *.test.js run, so helpers under test/ are never mistaken for tests.
// A run must leave the host's /var/log/pods (the reference's podLogsDir) as it found it: every
// agent a test starts keeps its container log links under the test's own directory
// (test/helpers/agent-pod-logs.ts, testConfig). A run that adds, removes or changes an entry there
// fails, naming it.
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
const HOST_POD_LOGS = process.env.NODEAGENT_TEST_HOST_POD_LOGS ?? '/var/log/pods';
/** Each entry of the host's podLogsDir with its modification time ('' when the directory is absent). */
function podLogsSnapshot() {
  if (!existsSync(HOST_POD_LOGS)) return new Map();
  return new Map(
    readdirSync(HOST_POD_LOGS).map((name) => [
      name,
      String(statSync(join(HOST_POD_LOGS, name), { throwIfNoEntry: false })?.mtimeMs ?? ''),
    ]),
  );
}
const podLogsBefore = podLogsSnapshot();
const r = spawnSync(
  process.execPath,
  [
    '--test',
    `--test-concurrency=${concurrency}`,
    `--test-timeout=${timeoutMs}`,
    '--test-reporter=spec',
    ...selected,
  ],
  {
    stdio: 'inherit',
    env: process.env,
  },
);
const podLogsAfter = podLogsSnapshot();
const changed = [
  ...[...podLogsAfter.keys()].filter((n) => !podLogsBefore.has(n)).map((n) => `added ${n}`),
  ...[...podLogsBefore.keys()].filter((n) => !podLogsAfter.has(n)).map((n) => `removed ${n}`),
  ...[...podLogsAfter]
    .filter(([n, m]) => podLogsBefore.has(n) && podLogsBefore.get(n) !== m)
    .map(([n]) => `changed ${n}`),
];
if (changed.length > 0) {
  console.error(
    `\nthe test run changed the host's ${HOST_POD_LOGS} (a test agent without podLogsDir under its own directory?): ${changed.join('; ')}`,
  );
  process.exit(r.status || 1);
}
process.exit(r.status ?? 1);
