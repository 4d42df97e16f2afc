// Process start to validated configuration: `nodeagent --config <full file> --config-dir <10
// drop-ins> --print-config`, against `node -e 0` measured in the same run (target: at most 2x).
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = fileURLToPath(new URL('.', import.meta.url));
const repo = resolve(here, here.includes('/dist/') ? '../..' : '..');
const bin = join(repo, 'bin/nodeagent');
const runs = Number(process.env['BENCH_RUNS'] ?? 15);

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? (s[m] ?? 0) : ((s[m - 1] ?? 0) + (s[m] ?? 0)) / 2;
}

function time(args: string[]): number {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.status !== 0) throw new Error(`${args.join(' ')} exited ${String(r.status)}: ${r.stderr.toString()}`);
  return ms;
}

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
  const agentArgs = [bin, '--config', join(dir, 'config.yaml'), '--config-dir', join(dir, 'config.d'), '--print-config'];
  // Warm the file cache, then interleave the two so machine noise hits both alike.
  time(['-e', '0']);
  time(agentArgs);
  const base: number[] = [];
  const agent: number[] = [];
  for (let i = 0; i < runs; i++) {
    base.push(time(['-e', '0']));
    agent.push(time(agentArgs));
  }
  const b = median(base);
  const a = median(agent);
  console.log(`runs: ${runs}`);
  console.log(`node -e 0                                   median ${b.toFixed(1)} ms`);
  console.log(`nodeagent --config + 10 drop-ins --print-config median ${a.toFixed(1)} ms`);
  console.log(`ratio: ${(a / b).toFixed(2)}x (target <= 2x)`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
