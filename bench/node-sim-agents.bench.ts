// Does the node simulator load plat-apiserver as real agents do? BENCH_SIM_AGENTS real agents
// (default 100: this build's bin/nodeagent on process://, each its own node) and the same number
// of simulated nodes (node-sim-fleet.ts), each with BENCH_SIM_AGENT_PODS pods (default 3,
// created through the API and bound), each against a fresh plat-apiserver (--data-dir, all
// controllers, the reference's names). Once every pod runs, a steady window of BENCH_SIM_WINDOW_S
// seconds (default 60) measures the server's CPU and the latency a probe sees (a lease renewal
// and a node read every 100 ms, the same in both runs). The figure: real agents / simulator for
// each, which the simulator's use at a thousand nodes needs within 20%. The real agents run at
// nice 19: on a cluster they are other machines, here they share two cores with the server and
// the probe. (The simulator does not: at nice 19 its reads lag, and the server's CPU rose from
// 0.12 to 0.21 of a core in a measured run.)
// BENCH_SIM_ROUNDS (default 1) repeats both runs, the order reversed every other round; each run
// starts once the machine is quiet (what the run before left has ended).

import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { mkdtemp, rm } from 'node:fs/promises';
import { setPriority, tmpdir } from 'node:os';
import {
  loadavg,
  openSession,
  percentile,
  positiveInt,
  type Session,
} from './apiserver-harness.js';
import { argsFrom, type TargetSpec } from './apiserver-target.js';
import type { ProbeSettings } from './node-sim-probe.js';
import { repoRoot } from '../test/helpers/apiserver.js';
import { startAgent, type RunningAgent } from '../test/helpers/agent-process.js';
import { NO_CGROUPS_ARGS } from '../test/helpers/agent-cgroups.js';
import { killProcessPods } from '../test/integration/agent/pods/runtimes.js';
import { testPodLogsArgs } from '../test/helpers/agent-pod-logs.js';
import { quantiles, SimClient } from './node-sim-calls.js';
import { Fleet, SimNode } from './node-sim-fleet.js';
import { createAndBind } from './node-sim-pods.js';
import { UsageSampler } from './node-sim-usage.js';
import { untilQuiet } from './proc-usage.js';
import { median } from './median.js';

const COUNT = positiveInt('BENCH_SIM_AGENTS', process.env['BENCH_SIM_AGENTS'] ?? '100');
const PER_NODE = positiveInt('BENCH_SIM_AGENT_PODS', process.env['BENCH_SIM_AGENT_PODS'] ?? '3');
const WINDOW_S = positiveInt('BENCH_SIM_WINDOW_S', process.env['BENCH_SIM_WINDOW_S'] ?? '60');
const ROUNDS = positiveInt('BENCH_SIM_ROUNDS', process.env['BENCH_SIM_ROUNDS'] ?? '1');
/** The nice value of the agents. */
const YIELD = 19;
const BUILD: TargetSpec = {
  kind: 'spawn',
  label: 'this build',
  bin: `${repoRoot()}/bin/plat-apiserver`,
  args: argsFrom('BENCH_BUILD_ARGS'),
};

interface Measured {
  readonly cpuCores: number;
  /** The load average at the end of the window (before anything stops). */
  readonly load: string;
  readonly probe: number[];
  readonly setupS: number;
}

async function poll(what: string, timeoutMs: number, done: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`${what}: not done in ${timeoutMs / 1000} s`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

async function count(
  client: SimClient,
  path: string,
  keep: (item: Record<string, unknown>) => boolean,
): Promise<number> {
  const r = await client.call('count', 'read', { method: 'GET', path });
  return ((r.json['items'] ?? []) as Record<string, unknown>[]).filter(keep).length;
}

function phaseOf(item: Record<string, unknown>): unknown {
  return (item['status'] as Record<string, unknown> | undefined)?.['phase'];
}

/**
 * The probe (node-sim-probe.ts) in a process of its own: a node with a lease it renews every
 * 100 ms and a read of that node. Resolves once it runs; the function returned stops it and gives
 * every call's duration.
 */
async function startProbe(s: Session): Promise<() => Promise<number[]>> {
  const settings: ProbeSettings = { ...s.endpoint, name: `probe-${s.runId}`, runId: s.runId };
  const c = spawn(process.execPath, [new URL('./node-sim-probe.js', import.meta.url).pathname], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: c.stdout });
  const exited = new Promise<number | null>((r) => c.once('close', r));
  const next = (): Promise<string> =>
    new Promise((resolve, reject) => {
      lines.once('line', resolve);
      void exited.then((code) => reject(new Error(`the probe exited (${String(code)})`)));
    });
  const ready = next();
  c.stdin.write(`${JSON.stringify(settings)}\n`);
  if ((await ready) !== 'ready') throw new Error('the probe did not start');
  return async () => {
    const result = next();
    c.stdin.end('stop\n');
    return JSON.parse(await result) as number[];
  };
}

async function steadyWindow(s: Session, usage: UsageSampler): Promise<Omit<Measured, 'setupS'>> {
  const stopProbe = await startProbe(s);
  const cpu0 = usage.cpu();
  const from = Date.now();
  await new Promise((r) => setTimeout(r, WINDOW_S * 1000));
  const cpuCores = (usage.cpu() - cpu0) / ((Date.now() - from) / 1000);
  return { cpuCores, load: loadavg(), probe: await stopProbe() };
}

async function simulated(): Promise<Measured> {
  await settle();
  const s = await openSession(BUILD, 64, sessionOptions);
  const usage = new UsageSampler(s.reached.pids);
  const client = new SimClient(s, 64);
  const fleet = new Fleet(s, client, COUNT);
  try {
    const t0 = performance.now();
    await fleet.register(32);
    await fleet.watch(s.streamAgent(2 * COUNT + 8), 32);
    fleet.startHeartbeats();
    await createAndBind(client, fleet.nodes, s.namespace, s.runId, PER_NODE, 32);
    await poll('simulated pods Running', 600_000, async () => {
      fleet.check();
      return fleet.running() === COUNT * PER_NODE;
    });
    const setupS = (performance.now() - t0) / 1000;
    return { ...(await steadyWindow(s, usage)), setupS };
  } finally {
    await fleet.quiesce();
    fleet.stop();
    usage.stop();
    await s.close();
  }
}

const sessionOptions = {
  dataDir: true,
  controllers: '*',
  args: ['--platform-profile=kubernetes'],
} as const;

/** One agent as a kubeadm node runs it (the reference's flag spellings), on process://. */
function startOne(s: Session, kubeconfig: string, dir: string, i: number): RunningAgent {
  const own = join(dir, String(i));
  const agent = startAgent([
    '--platform-profile=kubernetes',
    `--kubeconfig=${kubeconfig}`,
    '--container-runtime-endpoint=process://',
    `--root-dir=${join(own, 'root')}`,
    `--cert-dir=${join(own, 'pki')}`,
    `--hostname-override=${agentName(s, i)}`,
    '--node-ip=127.0.0.1',
    '--fail-cgroupv1=false',
    ...NO_CGROUPS_ARGS,
    ...testPodLogsArgs(own, 'k8s.io', 'kubernetes'),
    '--enable-server=false',
    '--healthz-port=0',
    '--read-only-port=0',
    `--max-pods=${Math.max(PER_NODE, 10)}`,
  ]);
  yieldCores(agent);
  return agent;
}

/**
 * The agents stand for other machines: at nice 19 (their containers inherit it) they take what
 * the control plane and the probe leave of the cores, so that the probe sees the server's latency,
 * not a hundred agents' turns on two cores.
 */
function yieldCores(agent: RunningAgent): void {
  if (agent.child.pid !== undefined) setPriority(agent.child.pid, YIELD);
}

function agentName(s: Session, i: number): string {
  return `agent-${s.runId}-${String(i).padStart(3, '0')}`;
}

/** Throws with the output of an agent that exited (none should while the run lasts). */
function exitedAgent(agents: readonly RunningAgent[]): void {
  const gone = agents.find((a) => a.child.exitCode !== null || a.child.signalCode !== null);
  if (gone !== undefined)
    throw new Error(
      `an agent exited (${gone.child.exitCode ?? gone.child.signalCode}):\n${gone.output().slice(-3000)}`,
    );
}

async function real(): Promise<Measured> {
  await settle();
  const s = await openSession(BUILD, 64, sessionOptions);
  const usage = new UsageSampler(s.reached.pids);
  const dir = await mkdtemp(join(tmpdir(), 'na-sim-agents-'));
  const agents: RunningAgent[] = [];
  try {
    const t0 = performance.now();
    const platconfig = s.reached.adminPlatconfig;
    if (platconfig === undefined) throw new Error('the started server has no admin platconfig');
    const client = new SimClient(s, 64);
    const ready = (item: Record<string, unknown>): boolean =>
      (
        (item['status'] as { conditions?: { type: string; status: string }[] }).conditions ?? []
      ).some((c) => c.type === 'Ready' && c.status === 'True');
    // Ten at a time, each ten Ready before the next start: a hundred agents starting at once
    // would hold both cores for a minute (their start, not their steady state, is not measured).
    for (let i = 0; i < COUNT; i++) {
      agents.push(startOne(s, platconfig, dir, i));
      if (agents.length % 10 !== 0 && agents.length !== COUNT) continue;
      await poll('agents Ready', 600_000, async () => {
        exitedAgent(agents);
        return (await count(client, '/api/v1/nodes', ready)) >= agents.length;
      });
    }
    const nodes = agents.map((_, i) => new SimNode(agentName(s, i), i));
    await createAndBind(client, nodes, s.namespace, s.runId, PER_NODE, 32, ['sleep', '3600']);
    await poll('agents\u2019 pods Running', 600_000, async () => {
      exitedAgent(agents);
      const n = await count(
        client,
        `/api/v1/namespaces/${s.namespace}/pods`,
        (p) => phaseOf(p) === 'Running',
      );
      return n === COUNT * PER_NODE;
    });
    const setupS = (performance.now() - t0) / 1000;
    return { ...(await steadyWindow(s, usage)), setupS };
  } finally {
    await Promise.all(agents.map((a) => a.stop()));
    // an agent that stops leaves its containers running, as the kubelet does; the run ends them
    await Promise.all(agents.map((_, i) => killProcessPods(join(dir, String(i), 'root'))));
    usage.stop();
    await s.close();
    await rm(dir, { recursive: true, force: true });
  }
}

function print(label: string, m: Measured): void {
  console.log(
    `  ${label}, load ${m.load} at the window's end: setup ${m.setupS.toFixed(1)} s; ` +
      `server CPU ${m.cpuCores.toFixed(3)} cores; probe ${quantiles(m.probe)}`,
  );
}

/** Before each run: what the one before left running (a hundred agents ending) has passed. */
async function settle(): Promise<void> {
  await untilQuiet('  ', 0.25, 5, 120);
}

/** One round: both runs, the order reversed every other round; the real / simulated ratios. */
async function round(n: number): Promise<number[]> {
  const simFirst = n % 2 === 0;
  const first = simFirst ? await simulated() : await real();
  print(simFirst ? 'simulated' : 'real agents', first);
  const second = simFirst ? await real() : await simulated();
  print(simFirst ? 'real agents' : 'simulated', second);
  const [agents, sim] = simFirst ? [second, first] : [first, second];
  const ratios = [
    agents.cpuCores / sim.cpuCores,
    percentile(agents.probe, 0.5) / percentile(sim.probe, 0.5),
    percentile(agents.probe, 0.99) / percentile(sim.probe, 0.99),
  ];
  console.log(`  round ${n + 1}, real / simulated: ${describe(ratios)}`);
  return ratios;
}

function describe([cpu, p50, p99]: readonly number[]): string {
  const x = (r: number | undefined): string =>
    r === undefined || !Number.isFinite(r) ? 'n/a' : `${r.toFixed(2)}x`;
  return `server CPU ${x(cpu)}, probe p50 ${x(p50)}, p99 ${x(p99)}`;
}

console.log(
  `[node-sim-agents] ${COUNT} nodes, ${PER_NODE} pods each, window ${WINDOW_S} s, ${ROUNDS} round(s)`,
);
const rounds: number[][] = [];
for (let n = 0; n < ROUNDS; n++) rounds.push(await round(n));
if (ROUNDS > 1) {
  const medians = [0, 1, 2].map((i) => median(rounds.map((r) => r[i] ?? NaN)));
  console.log(`  median of the rounds' ratios: ${describe(medians)}`);
}
