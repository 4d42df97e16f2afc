// Agent CPU and RSS with 110 and with 1,000 static pods on process:// (the built agent, one
// process per run), against the same agent idle with no pods in the same run. Targets: RSS under
// 70 MB at 110 pods and under 100 MB at 1,000. BENCH_COMPARE_BIN=<another build's bin/nodeagent>
// (several: comma-separated) runs that build at each size too, right after this one (a
// before/after figure under the same load); BENCH_SCALE_ROUNDS repeats the whole run.
// The launcher is executed as a user or a systemd unit runs it (its shebang line, with the node
// flags and environment it sets, take effect), not as `node bin/nodeagent`, with the node that
// runs the benchmark first on PATH.
// RSS moves with each collection V8 makes, so it is sampled every 500 ms over the window and the
// median is the figure (the range beside it). Two windows: one a second after the last pod runs
// (what the burst of starts left), and one BENCH_SCALE_SETTLE_MS (default 30 s) after it, once
// V8's memory reducer has run (it collects and shrinks the heap about 8 s after the allocation
// rate falls): the agent's steady state. The agent's podLogsDir is under the run's own root:
// the default /var/log/pods would keep earlier runs' pod directories, which housekeeping removes
// while this run is measured.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isSameProcessAlive } from '../src/agent/runtime/process/proc.js';
import { launcherEnv } from '../test/helpers/launcher.js';

const SIZES = (process.env['BENCH_SCALE_PODS'] ?? '0,110,1000').split(',').map(Number);
const WINDOW_MS = Number(process.env['BENCH_SCALE_WINDOW_MS'] ?? 5000);
const TICKS = 100;
const SETTLE_MS = Number(process.env['BENCH_SCALE_SETTLE_MS'] ?? 30_000);

const SAMPLE_MS = 500;

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
      const r = JSON.parse(await readFile(join(dir, f), 'utf8')) as {
        state?: string;
        pid?: number;
        startTicks?: string;
      };
      if (r.state === 'running') running++;
      if (
        r.pid !== undefined &&
        r.startTicks !== undefined &&
        isSameProcessAlive(r.pid, r.startTicks)
      )
        pids.push(r.pid);
    } catch {
      // being rewritten
    }
  }
  return { running, pids };
}

interface RunResult {
  n: number;
  startS: number;
  cpuPct: number;
  /** The median of the samples over the window, and the lowest and highest. */
  rssMb: number;
  rssMinMb: number;
  rssMaxMb: number;
  hwmMb: number;
  /** The settled window's median and range. */
  settledMb: number;
  settledMinMb: number;
  settledMaxMb: number;
}

/** RSS samples over the window and the CPU spent in it. */
async function sampleWindow(
  pid: number,
): Promise<{ cpuPct: number; rss: number[]; hwmMb: number }> {
  const a = procStat(pid);
  const rss: number[] = [];
  let last = a;
  for (let t = 0; t < WINDOW_MS; t += SAMPLE_MS) {
    await new Promise((r) => setTimeout(r, SAMPLE_MS));
    last = procStat(pid);
    rss.push(last.rssMb);
  }
  rss.sort((x, y) => x - y);
  return { cpuPct: ((last.cpuMs - a.cpuMs) / WINDOW_MS) * 100, rss, hwmMb: last.hwmMb };
}

async function run(n: number, bin: string): Promise<RunResult> {
  const root = await mkdtemp(join(tmpdir(), 'na-scale-'));
  const dir = await mkdtemp(join(tmpdir(), 'na-scale-m-'));
  for (let i = 0; i < n; i++) {
    await writeFile(
      join(dir, `p${i}.yaml`),
      `apiVersion: v1\nkind: Pod\nmetadata: {name: s${i}}\nspec: {terminationGracePeriodSeconds: 1, containers: [{name: c, command: [sleep, "600"]}]}\n`,
    );
  }
  const config = join(root, 'config.yaml');
  await writeFile(
    config,
    `apiVersion: nodeagent.config.platform.io/v1beta1\nkind: NodeAgentConfiguration\npodLogsDir: ${join(root, 'pod-logs')}\n`,
  );
  let agent: ChildProcess | undefined;
  try {
    const t0 = performance.now();
    agent = spawn(
      bin,
      [
        '--config',
        config,
        '--pod-manifest-path',
        dir,
        '--container-runtime-endpoint',
        'process://',
        '--root-dir',
        root,
        '--cert-dir',
        join(root, 'pki'),
        '--hostname-override',
        'scale',
        '--max-pods',
        String(Math.max(110, n)),
        '--fail-cgroupv1=false',
        '--cgroups-per-qos=false',
        '--enforce-node-allocatable=',
        '--enable-server=false',
        '--healthz-port=0',
        '--read-only-port=0',
        '-v=0',
      ],
      { stdio: 'ignore', env: launcherEnv() },
    );
    const pid = agent.pid as number;
    const deadline = Date.now() + 90_000;
    while ((await states(root)).running < n && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 250));
    const startS = (performance.now() - t0) / 1000;
    const got = (await states(root)).running;
    if (got < n) throw new Error(`only ${got}/${n} pods running after 90 s`);
    const running = performance.now();
    await new Promise((r) => setTimeout(r, 1000));
    const w = await sampleWindow(pid);
    await new Promise((r) => setTimeout(r, Math.max(0, SETTLE_MS - (performance.now() - running))));
    const settled = await sampleWindow(pid);
    const median = (xs: number[]): number => xs[Math.floor(xs.length / 2)] ?? 0;
    return {
      n,
      startS,
      cpuPct: w.cpuPct,
      rssMb: median(w.rss),
      rssMinMb: w.rss[0] ?? 0,
      rssMaxMb: w.rss.at(-1) ?? 0,
      hwmMb: settled.hwmMb,
      settledMb: median(settled.rss),
      settledMinMb: settled.rss[0] ?? 0,
      settledMaxMb: settled.rss.at(-1) ?? 0,
    };
  } finally {
    agent?.kill('SIGTERM');
    await new Promise((r) =>
      agent && agent.exitCode === null ? agent.once('exit', r) : r(undefined),
    );
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

const BINS = [
  'bin/nodeagent',
  ...(process.env['BENCH_COMPARE_BIN']?.split(',').filter((b) => b !== '') ?? []),
];
const ROUNDS = Number(process.env['BENCH_SCALE_ROUNDS'] ?? 1);
const TARGETS: ReadonlyMap<number, number> = new Map([
  [110, 70],
  [1000, 100],
]);

function report(bin: string, results: readonly (RunResult & { load: string })[]): void {
  const idle = results.find((r) => r.n === 0);
  console.log(`${bin}:`);
  for (const r of results) {
    const ratio =
      idle && r.n > 0
        ? ` (${(r.rssMb / idle.rssMb).toFixed(2)}x the idle agent's RSS; settled ${(r.settledMb / idle.settledMb).toFixed(2)}x)`
        : '';
    console.log(
      `${String(r.n).padStart(5)} pods: all running after ${r.startS.toFixed(1)} s; steady CPU ${r.cpuPct.toFixed(1)}% of a core over ${WINDOW_MS / 1000} s; RSS ${r.rssMb.toFixed(0)} MB (${r.rssMinMb.toFixed(0)}-${r.rssMaxMb.toFixed(0)}), settled (${SETTLE_MS / 1000} s on) ${r.settledMb.toFixed(0)} MB (${r.settledMinMb.toFixed(0)}-${r.settledMaxMb.toFixed(0)}); peak ${r.hwmMb.toFixed(0)} MB${ratio}; load ${r.load}`,
    );
    const target = TARGETS.get(r.n);
    if (target === undefined) continue;
    const met = (mb: number): string => `${mb < target ? 'met' : 'NOT met'} (${mb.toFixed(0)} MB)`;
    console.log(
      `      target RSS < ${target} MB at ${r.n} pods: just after the starts ${met(r.rssMb)}; settled ${met(r.settledMb)}`,
    );
  }
}

// Each size runs every build one after the other, so a before/after pair shares the machine's load.
for (let round = 1; round <= ROUNDS; round++) {
  const results = new Map<string, (RunResult & { load: string })[]>(BINS.map((b) => [b, []]));
  for (const n of SIZES) {
    for (const bin of BINS) {
      const load = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
      results.get(bin)?.push({ ...(await run(n, bin)), load });
    }
  }
  if (ROUNDS > 1) console.log(`round ${round}:`);
  for (const [bin, r] of results) report(bin, r);
}
