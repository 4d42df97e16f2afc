// Why the agent keeps two YAML libraries: a fresh process that loads a parser and decodes the
// example config file (examples/nodeagent-config.yaml) plus ten drop-ins, through the fast path
// (js-yaml, src/common/util/fast-yaml.ts) against the full path (the `yaml` library through the
// bounded parser, src/agent/config/yaml-doc.ts), each against `node -e 0` in the same run.
// The figures are in README.md ("Start-up time").
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { median } from './median.js';

const here = fileURLToPath(new URL('.', import.meta.url));
const repo = resolve(here, here.includes('/dist/') ? '../..' : '..');
const runs = Number(process.env['BENCH_RUNS'] ?? 15);

const config = readFileSync(join(repo, 'examples/nodeagent-config.yaml'), 'utf8');
const dropIns = Array.from(
  { length: 10 },
  (_, i) =>
    `apiVersion: nodeagent.config.platform.io/v1beta1\nkind: NodeAgentConfiguration\nmaxPods: ${100 + i}\nevictionHard:\n  memory.available: ${100 + i}Mi\n`,
);
const texts = JSON.stringify([config, ...dropIns]);
const mod = (p: string): string =>
  JSON.stringify(pathToFileURL(join(repo, 'dist/src/agent/config', p)).href);

const VARIANTS: { name: string; script: string }[] = [
  { name: 'node -e 0', script: '0' },
  {
    name: 'fast path (js-yaml)',
    script: `const { fastYamlValue } = await import(${JSON.stringify(pathToFileURL(join(repo, 'dist/src/common/util/fast-yaml.js')).href)}); for (const t of ${texts}) if (fastYamlValue(t) === undefined) process.exit(2);`,
  },
  {
    name: 'full path (yaml, bounded)',
    script: `const { parseYaml } = await import(${mod('yaml-doc.js')}); for (const t of ${texts}) if (parseYaml(t).errors.length > 0) process.exit(2);`,
  },
];

function time(script: string): number {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.status !== 0) throw new Error(`exited ${String(r.status)}: ${r.stderr.toString()}`);
  return ms;
}

for (const v of VARIANTS) time(v.script);
const samples = VARIANTS.map(() => [] as number[]);
for (let i = 0; i < runs; i++) VARIANTS.forEach((v, j) => samples[j]?.push(time(v.script)));
const base = median(samples[0] ?? []);
console.log(
  `runs: ${runs}; node ${process.version}; load average ${loadavg()
    .map((x) => x.toFixed(1))
    .join(' ')}`,
);
VARIANTS.forEach((v, j) => {
  const m = median(samples[j] ?? []);
  console.log(
    `${v.name.padEnd(28)} median ${m.toFixed(1).padStart(6)} ms  ${(m / base).toFixed(2)}x node -e 0  (+${(m - base).toFixed(1)} ms)`,
  );
});
