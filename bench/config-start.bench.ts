// Process start to validated configuration: `nodeagent --config <full file> --config-dir <10
// drop-ins> --print-config`, against `node -e 0` measured in the same run (target: at most 1.5x).
// The shipped program (bin/nodeagent, the bundle) is measured beside the unbundled tsc output
// (dist/src) and, when `npm run sea` has built it, the single executable (dist/sea/nodeagent).
// BENCH_COMPARE_BIN=<another build's bin/nodeagent> measures that build beside this one in the
// same run (a before/after figure).
import { spawnSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { launcherEnv } from '../test/helpers/launcher.js';
import { median } from './median.js';

const here = fileURLToPath(new URL('.', import.meta.url));
const repo = resolve(here, here.includes('/dist/') ? '../..' : '..');
const bin = join(repo, 'bin/nodeagent');
// 40 of each: on this loaded 2-core machine the medians of 15 moved by 0.3x from one run to the next.
const runs = Number(process.env['BENCH_RUNS'] ?? 40);

/** The load average (1, 5, 15 min) where the system shows it: the figures depend on it. */
function loadAverage(): string {
  try {
    return readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  } catch {
    return 'unknown';
  }
}

function time(args: string[], command = process.execPath): number {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(command, args, { stdio: ['ignore', 'ignore', 'pipe'], env: launcherEnv() });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.status !== 0)
    throw new Error(`${args.join(' ')} exited ${String(r.status)}: ${r.stderr.toString()}`);
  return ms;
}

interface Variant {
  name: string;
  command?: string;
  args: (flags: string[]) => string[];
}

const compare = process.env['BENCH_COMPARE_BIN'];
const unbundled = pathToFileURL(join(repo, 'dist/src/agent/cli/main.js')).href;
const sea = join(repo, 'dist/sea/nodeagent');
const VARIANTS: Variant[] = [
  { name: 'node -e 0', args: () => ['-e', '0'] },
  // launchers are executed, as a user runs them: the node flags of their #! line apply
  { name: 'bin/nodeagent (bundle)', command: bin, args: (f) => f },
  {
    name: 'node dist/src (tsc output, unbundled)',
    args: (f) => [
      '--input-type=module',
      '-e',
      `const { main } = await import(${JSON.stringify(unbundled)}); process.exitCode = await main(process.argv.slice(1));`,
      '--',
      ...f,
    ],
  },
  ...(compare !== undefined
    ? [{ name: `${compare} (compared)`, command: compare, args: (f: string[]) => f }]
    : []),
  ...(existsSync(sea)
    ? [{ name: 'dist/sea/nodeagent (single executable)', command: sea, args: (f: string[]) => f }]
    : []),
];

const dir = mkdtempSync(join(tmpdir(), 'na-bench-'));
try {
  copyFileSync(join(repo, 'examples/nodeagent-config.yaml'), join(dir, 'config.yaml'));
  mkdirSync(join(dir, 'config.d', 'nested'), { recursive: true });
  for (let i = 0; i < 10; i++) {
    const sub = i >= 7 ? 'nested' : '';
    writeFileSync(
      join(dir, 'config.d', sub, `${String(i).padStart(2, '0')}-dropin.conf`),
      `apiVersion: nodeagent.config.platform.io/v1beta1\nkind: NodeAgentConfiguration\nmaxPods: ${100 + i}\nevictionHard:\n  memory.available: ${100 + i}Mi\nfeatureGates:\n  QOSReserved: ${i % 2 === 0}\nlogging:\n  verbosity: ${i % 4}\n`,
    );
  }
  const flags = [
    '--config',
    join(dir, 'config.yaml'),
    '--config-dir',
    join(dir, 'config.d'),
    '--print-config',
  ];
  // Warm the file cache, then interleave the variants so machine noise hits all alike.
  for (const v of VARIANTS) time(v.args(flags), v.command);
  const loadBefore = loadAverage();
  const samples = VARIANTS.map(() => [] as number[]);
  for (let i = 0; i < runs; i++)
    VARIANTS.forEach((v, j) => samples[j]?.push(time(v.args(flags), v.command)));
  const base = median(samples[0] ?? []);
  console.log(
    `runs: ${runs}; node ${process.version}; load average ${loadBefore} before, ${loadAverage()} after`,
  );
  VARIANTS.forEach((v, j) => {
    const m = median(samples[j] ?? []);
    console.log(
      `${v.name.padEnd(42)} median ${m.toFixed(1).padStart(6)} ms  ${(m / base).toFixed(2)}x node -e 0`,
    );
  });
  console.log('target: bin/nodeagent at most 1.5x node -e 0');
} finally {
  rmSync(dir, { recursive: true, force: true });
}
