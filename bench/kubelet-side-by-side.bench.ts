// nodeagent side by side with the reference kubelet 1.32.13 (/opt/anchors/bin/kubelet) on the same
// containerd (one private daemon for the whole run), the same control plane (the reference's, at
// /opt/anchors: kube-apiserver, kube-controller-manager with its csrapproving/csrsigning
// controllers), the same argv and KubeletConfiguration and the environment a systemd unit gives
// (side-by-side-node.ts, unitEnv); one node program at a time, taking turns (kubelet, nodeagent,
// kubelet, nodeagent, ...):
//   1. 30 pods created at once through the API server: create to all Running, and per pod create
//      to Running / Ready (p50, p99) as the API server's watch shows them; goal at most 0.8x
//   2. 110 running pods: the node program's CPU seconds per minute and RSS (/proc/<pid>) over a
//      steady minute; goal at most 1.0x each
//   3. launch to client certificate on disk with the bootstrap token (TLS bootstrap through the
//      CSR API); goal: nodeagent at most 0.5x the kubelet's
// Not in CI: without the kubelet binary, the control plane or what a private containerd needs, it
// says why and exits 0; it never builds or fetches the reference. It waits while a NodeConformance
// run (../shared/scripts/node-conformance/run.sh) holds the control plane.
//
//   npm run build && node scripts/run-bench.mjs kubelet-side-by-side
//
// Environment: BENCH_SBS_ROUNDS (rounds of figures 1 and 3, default 2), BENCH_SBS_CERT_ROUNDS
// (more rounds of figure 3 alone: launch, certificate, stop; default 0), BENCH_SBS_STEADY_ROUNDS
// (of figure 2, default 1), BENCH_SBS_SETTLE_S (wait after the 110 pods are Ready, default 30),
// BENCH_SBS_WAIT_MIN (longest wait for a NodeConformance run to end, default 60),
// BENCH_SBS_AGENT_NODE_OPTIONS (NODE_OPTIONS for the agent; Node refuses --cpu-prof there),
// BENCH_SBS_AGENT_NODE_ARGS (node's own flags for the agent, e.g. `--cpu-prof
// --cpu-prof-dir=/tmp/p --trace-gc`: bin/nodeagent then runs as `node <its #! line's flags>
// <these> bin/nodeagent` with the #! line's environment), BENCH_SBS_ONLY (kubelet or nodeagent:
// that program's turns alone, no ratios),
// BENCH_SBS_AGENT_ARGS (more flags for the agent alone, space-separated, e.g.
// `--vmodule=cri=10,pods=4` for each CRI call's time and each pod sync pass's steps).
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { cpuSeconds } from './proc-usage.js';
import { connectKube, type Kube } from './side-by-side-kube.js';
import {
  ANCHORS,
  PROGRAMS,
  defaultIp,
  launchNode,
  waitReady,
  type Program,
  type RunningNode,
} from './side-by-side-node.js';
import { deletePods, startPods, steadyWindow } from './side-by-side-pods.js';
import {
  controlPlaneReady,
  eventCounts,
  leftRunning,
  serviceAccountAdmission,
  setUpHost,
  sideBySideSkipReason,
  type Host,
} from './side-by-side-host.js';
import { Figures, printFigures } from './side-by-side-report.js';

const run = promisify(execFile);
const num = (name: string, dflt: number): number => Number(process.env[name] ?? dflt);
const ROUNDS = num('BENCH_SBS_ROUNDS', 2);
const CERT_ROUNDS = num('BENCH_SBS_CERT_ROUNDS', 0);
const STEADY_ROUNDS = num('BENCH_SBS_STEADY_ROUNDS', 1);
const SETTLE_S = num('BENCH_SBS_SETTLE_S', 30);
const WAIT_MIN = num('BENCH_SBS_WAIT_MIN', 60);
export const COMMAND = 'npm run build && node scripts/run-bench.mjs kubelet-side-by-side';
const loadAverage = (): string =>
  readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
/** The benchmark's containerd daemon (not its shims), for its CPU seconds. */
async function containerdPid(host: Host): Promise<number | undefined> {
  const out = await run('pgrep', ['-f', `^containerd --config ${host.ctd.dir}/`]).then(
    (r) => r.stdout,
    () => '',
  );
  const pid = Number(out.trim().split('\n')[0]);
  return Number.isInteger(pid) && pid > 0 ? pid : undefined;
}

/** The programs taking turns: both, or the one BENCH_SBS_ONLY names (for a profile). */
function programs(): readonly Program[] {
  const only = process.env['BENCH_SBS_ONLY'];
  return PROGRAMS.filter((p) => only === undefined || only === '' || p === only);
}

/** The node program running now, stopped first when the benchmark is interrupted. */
let current: RunningNode | undefined;
const log = (s: string): void => console.log(`[${new Date().toISOString().slice(11, 19)}] ${s}`);

async function conformanceRunning(): Promise<boolean> {
  return run('pgrep', ['-f', 'node-conformance/run.sh']).then(
    (r) => r.stdout.trim() !== '',
    () => false,
  );
}

/** Waits (polling every 30 s) while a NodeConformance run holds the control plane. */
async function waitForConformance(): Promise<boolean> {
  const t0 = Date.now();
  while (await conformanceRunning()) {
    if (Date.now() - t0 > WAIT_MIN * 60_000) return false;
    log('a NodeConformance run (node-conformance/run.sh) is using the control plane: waiting');
    await new Promise((r) => setTimeout(r, 30_000));
  }
  return true;
}

/** One turn of figures 3 and 1: launch, certificate, Ready, 30 pods, their deletion, stop. */
async function podRound(host: Host, figures: Figures, program: Program, round: number) {
  const load = loadAverage();
  const node = await launchNode(host, program, `bench-${program}-${round}`);
  current = node;
  try {
    figures.bootstrap[program].push(node.bootstrapMs);
    await waitReady(host.kube, node);
    const tag = `r${round}-${program}`;
    const ctdPid = await containerdPid(host);
    const cpu0 = [cpuSeconds(node.pid), ctdPid === undefined ? NaN : cpuSeconds(ctdPid)];
    const start = await startPods(host.kube, host.ns, node.name, tag, 30, 300_000);
    figures.pods30[program].push(start);
    const cpu = [cpuSeconds(node.pid), ctdPid === undefined ? NaN : cpuSeconds(ctdPid)];
    figures.notes.push(
      `${node.name}: CPU seconds while its 30 pods started: ${program} ` +
        `${((cpu[0] ?? NaN) - (cpu0[0] ?? NaN)).toFixed(2)}, containerd ` +
        `${((cpu[1] ?? NaN) - (cpu0[1] ?? NaN)).toFixed(2)}`,
    );
    figures.loads.push(`${program} round ${round}: ${load} -> ${loadAverage()}`);
    log(
      `${program} round ${round}: certificate ${node.bootstrapMs.toFixed(0)} ms, 30 pods Running ` +
        `${start.allRunningMs.toFixed(0)} ms (${start.missing} not Ready), load ${loadAverage()}`,
    );
    const events = await eventCounts(host.kube, host.ns, node.name);
    figures.notes.push(`${node.name}: events about its 30 pods by reason: ${events}`);
    await deletePods(host.kube, host.ns, tag, 300_000);
  } finally {
    await stopNode(host, figures, node);
  }
}

/** A turn of figure 3 alone: launch, certificate on disk, stop. */
async function certRound(host: Host, figures: Figures, program: Program, round: number) {
  const load = loadAverage();
  const node = await launchNode(host, program, `bench-${program}-cert-${round}`);
  current = node;
  try {
    figures.bootstrap[program].push(node.bootstrapMs);
    figures.loads.push(`${program} certificate ${round}: ${load} -> ${loadAverage()}`);
    log(`${program} certificate round ${round}: ${node.bootstrapMs.toFixed(0)} ms, load ${load}`);
  } finally {
    await stopNode(host, figures, node);
  }
}

async function stopNode(host: Host, figures: Figures, node: RunningNode): Promise<void> {
  await node.stop();
  current = undefined;
  await host.restoreSysctls();
  const left = await leftRunning(host);
  if (left > 0) figures.notes.push(`${node.name}: ${left} containers left running in containerd`);
}

/** Figure 2: 110 pods Ready, a settle, then a steady minute of the node program. */
async function steadyRound(host: Host, figures: Figures, program: Program, round: number) {
  const node = await launchNode(host, program, `bench-${program}-steady-${round}`);
  current = node;
  try {
    await waitReady(host.kube, node);
    const tag = `s${round}-${program}`;
    const load = loadAverage();
    const start = await startPods(host.kube, host.ns, node.name, tag, 110, 900_000);
    if (start.missing > 0) throw new Error(`${program}: ${start.missing} of 110 pods not Ready`);
    log(
      `${program}: 110 pods Ready in ${start.allRunningMs.toFixed(0)} ms; settling ${SETTLE_S} s`,
    );
    await new Promise((r) => setTimeout(r, SETTLE_S * 1000));
    const steady = await steadyWindow(node.pid, 60_000);
    figures.steady[program].push({ ...steady, start110Ms: start.allRunningMs });
    figures.loads.push(`${program} steady ${round}: ${load} -> ${loadAverage()}`);
    log(`${program} steady: ${JSON.stringify(steady)}`);
    await deletePods(host.kube, host.ns, tag, 600_000);
  } finally {
    await stopNode(host, figures, node);
  }
}

async function measure(host: Host, figures: Figures): Promise<void> {
  for (let round = 0; round < ROUNDS; round++)
    for (const program of programs()) await podRound(host, figures, program, round);
  for (let round = 0; round < CERT_ROUNDS; round++)
    for (const program of programs()) await certRound(host, figures, program, round);
  for (let round = 0; round < STEADY_ROUNDS; round++)
    for (const program of programs()) await steadyRound(host, figures, program, round);
}

async function main(): Promise<void> {
  const why = await sideBySideSkipReason();
  if (why !== undefined) {
    console.log(`kubelet-side-by-side: skipped: ${why}`);
    return;
  }
  const kube: Kube = await connectKube(join(ANCHORS, 'admin.kubeconfig'));
  try {
    const down = await controlPlaneReady(kube);
    if (down !== undefined) return console.log(`kubelet-side-by-side: skipped: ${down}`);
    if (!(await waitForConformance()))
      return console.log(
        `kubelet-side-by-side: skipped: a NodeConformance run for ${WAIT_MIN} min`,
      );
    const nodeIp = await defaultIp();
    if (nodeIp === undefined)
      return console.log('kubelet-side-by-side: skipped: no IPv4 address on the default route');
    await runOnHost(kube, nodeIp);
  } finally {
    kube.close();
  }
}

async function runOnHost(kube: Kube, nodeIp: string): Promise<void> {
  const host = await setUpHost(kube, nodeIp);
  const onSignal = (): void =>
    void (current?.stop() ?? Promise.resolve()).finally(() =>
      host.stop().finally(() => process.exit(130)),
    );
  process.once('SIGINT', onSignal).once('SIGTERM', onSignal);
  const figures = new Figures(loadAverage(), await serviceAccountAdmission(kube, host.ns));
  log(`namespace ${host.ns}, containerd ${host.ctd.socket}, node address ${nodeIp}`);
  try {
    await measure(host, figures);
  } catch (err) {
    figures.notes.push(`stopped early: ${err instanceof Error ? err.message : String(err)}`);
    process.exitCode = 1;
  } finally {
    await host.stop();
    printFigures(figures, loadAverage(), COMMAND);
    console.log(`node program logs: ${host.dir}/<node>/<program>.log`);
  }
}

await main();
