// Agent CPU and RSS with 110 and with 1,000 static pods on process:// (the built agent, one
// process per run), against the same agent idle with no pods in the same run. Targets: RSS under
// 70 MB at 110 pods and under 100 MB at 1,000. BENCH_COMPARE_BIN=<another build's bin/nodeagent>
// runs that build at each size too, after this one in the same run (a before/after figure).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isSameProcessAlive } from '../src/agent/runtime/process/proc.js';

const SIZES = (process.env['BENCH_SCALE_PODS'] ?? '0,110,1000').split(',').map(Number);
const WINDOW_MS = Number(process.env['BENCH_SCALE_WINDOW_MS'] ?? 5000);
const TICKS = 100;

function procStat(pid: number): { cpuMs: number; rssMb: number; hwmMb: number } {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const cpuMs = ((Number(f[11]) + Number(f[12])) / TICKS) * 1000;
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (k: string): number => Number(new RegExp(`${k}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
  return { cpuMs, rssMb: kb('VmRSS') / 1024, hwmMb: kb('VmHWM') / 1024 };
}

async function states(root: string): Promise<{ running: number; pids: number[] }> {
  // pids of processes that are still the ones the agent started (pids are reused)
  const dir = join(root, 'process-runtime', 'containers');
  let running = 0;
  const pids: number[] = [];
  for (const f of await readdir(dir).catch(() => [] as string[])) {
    if (!f.endsWith('.json') || f.startsWith('sb-')) continue;
    try {
      const r = JSON.parse(await readFile(join(dir, f), 'utf8')) as { state?: string; pid?: number; startTicks?: string };
      if (r.state === 'running') running++;
      if (r.pid !== undefined && r.startTicks !== undefined && isSameProcessAlive(r.pid, r.startTicks)) pids.push(r.pid);
    } catch {
      // being rewritten
    }
  }
  return { running, pids };
}

async function run(n: number, bin: string): Promise<{ n: number; startS: number; cpuPct: number; rssMb: number; hwmMb: number }> {
  const root = await mkdtemp(join(tmpdir(), 'na-scale-'));
  const dir = await mkdtemp(join(tmpdir(), 'na-scale-m-'));
  for (let i = 0; i < n; i++) {
    await writeFile(join(dir, `p${i}.yaml`), `apiVersion: v1\nkind: Pod\nmetadata: {name: s${i}}\nspec: {terminationGracePeriodSeconds: 1, containers: [{name: c, command: [sleep, "600"]}]}\n`);
  }
  let agent: ChildProcess | undefined;
  try {
    const t0 = performance.now();
    agent = spawn(process.execPath, [
      bin, '--pod-manifest-path', dir, '--container-runtime-endpoint', 'process://', '--root-dir', root,
      '--cert-dir', join(root, 'pki'), '--hostname-override', 'scale', '--max-pods', String(Math.max(110, n)),
      '--fail-cgroupv1=false', '--cgroups-per-qos=false', '--enforce-node-allocatable=', '--enable-server=false', '--healthz-port=0', '--read-only-port=0', '-v=0',
    ], { stdio: 'ignore' });
    const pid = agent.pid as number;
    const deadline = Date.now() + 90_000;
    while ((await states(root)).running < n && Date.now() < deadline) await new Promise((r) => setTimeout(r, 250));
    const startS = (performance.now() - t0) / 1000;
    const got = (await states(root)).running;
    if (got < n) throw new Error(`only ${got}/${n} pods running after 90 s`);
    await new Promise((r) => setTimeout(r, 1000));
    const a = procStat(pid);
    await new Promise((r) => setTimeout(r, WINDOW_MS));
    const b = procStat(pid);
    return { n, startS, cpuPct: ((b.cpuMs - a.cpuMs) / WINDOW_MS) * 100, rssMb: b.rssMb, hwmMb: b.hwmMb };
  } finally {
    agent?.kill('SIGTERM');
    await new Promise((r) => (agent && agent.exitCode === null ? agent.once('exit', r) : r(undefined)));
    for (const p of (await states(root)).pids) {
      try {
        process.kill(-p, 'SIGKILL');
      } catch {
        // gone
      }
    }
    await rm(root, { recursive: true, force: true });
    await rm(dir, { recursive: true, force: true });
  }
}

const BINS = ['bin/nodeagent', ...(process.env['BENCH_COMPARE_BIN'] !== undefined ? [process.env['BENCH_COMPARE_BIN']] : [])];
const TARGETS: ReadonlyMap<number, number> = new Map([[110, 70], [1000, 100]]);
for (const bin of BINS) {
  const results = [];
  for (const n of SIZES) results.push(await run(n, bin));
  const idle = results.find((r) => r.n === 0);
  console.log(`${bin}:`);
  for (const r of results) {
    const ratio = idle && r.n > 0 ? ` (${(r.rssMb / idle.rssMb).toFixed(2)}x the idle agent's RSS)` : '';
    console.log(
      `${String(r.n).padStart(5)} pods: all running after ${r.startS.toFixed(1)} s; steady CPU ${r.cpuPct.toFixed(1)}% of a core over ${WINDOW_MS / 1000} s; RSS ${r.rssMb.toFixed(0)} MB (peak ${r.hwmMb.toFixed(0)} MB)${ratio}`,
    );
    const target = TARGETS.get(r.n);
    if (target !== undefined) console.log(`      target RSS < ${target} MB at ${r.n} pods: ${r.rssMb < target ? 'met' : 'NOT met'} (${r.rssMb.toFixed(0)} MB)`);
  }
}
