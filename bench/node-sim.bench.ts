// A node simulator (as kwok simulates kubelets): BENCH_SIM_NODES simulated nodes (default
// 100,1000: one run per size) driven from this one process, each registering, watching its pods,
// renewing its Lease every 10 s, reading its Node every 10 s and reporting status every 5
// minutes, with BENCH_SIM_PODS pods each (default 30) created through the API, bound to it and
// written Running by it (node-sim-fleet.ts). After the setup, a steady window of
// BENCH_SIM_WINDOW_S seconds (default 60) is measured: p50/p99 of mutating and read calls, the
// server's CPU (cores used, from /proc), its RSS (median and maximum) and its data directory's
// growth, with the simulator's own CPU beside them. An operator's paged pod list (500 a page)
// runs every 2 s as the other read. The run ends with a consistency check (node-sim-check.ts);
// a problem fails the run. BENCH_SIM_WATCH=labels watches by a label instead (no server indexes
// it, so every pod change reaches every node's watch). BENCH_BUSY_CORES=N keeps N cores busy with other processes.
//
// The server is this build's plat-apiserver, started with --data-dir (every write durable, as
// etcd's), all its controllers and the reference's names (--platform-profile=kubernetes, as on a
// kubeadm-built cluster), or an external one (apiserver-target.ts): against the
// reference, e.g. BENCH_KUBECONFIG=/opt/anchors/admin.kubeconfig BENCH_WITH_BUILD=1
// BENCH_SERVER_PIDS=<kube-apiserver>,<etcd> BENCH_SERVER_DATA_DIR=<etcd's data dir>, both are
// measured at each size, alternately, and the ratios printed.

import { loadavg, openSession, positiveInt, type Session } from './apiserver-harness.js';
import { targetSpecs, type TargetSpec } from './apiserver-target.js';
import { busyCoresWanted, startBusyCores } from './busy-cores.js';
import { checkRun } from './node-sim-check.js';
import { PhaseRecord, SimClient } from './node-sim-calls.js';
import { Fleet } from './node-sim-fleet.js';
import { createAndBind } from './node-sim-pods.js';
import { printRun, printSideBySide, type RunResult } from './node-sim-report.js';
import { dirBytes, UsageSampler } from './node-sim-usage.js';

const SIZES = (process.env['BENCH_SIM_NODES'] ?? '100,1000')
  .split(',')
  .map((x) => positiveInt('BENCH_SIM_NODES', x));
const PER_NODE = positiveInt('BENCH_SIM_PODS', process.env['BENCH_SIM_PODS'] ?? '30');
const WINDOW_S = positiveInt('BENCH_SIM_WINDOW_S', process.env['BENCH_SIM_WINDOW_S'] ?? '60');
const CONNECTIONS = 64;
const SETUP_CONCURRENCY = 32;
const SETUP_TIMEOUT_MS = 30 * 60_000;

async function until(what: string, fleet: Fleet, done: () => boolean): Promise<void> {
  const deadline = Date.now() + SETUP_TIMEOUT_MS;
  while (!done()) {
    fleet.check();
    if (Date.now() > deadline) throw new Error(`${what}: not done in ${SETUP_TIMEOUT_MS / 1000} s`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** An operator's `kubectl get pods --chunk-size=500` first page, every 2 s until stopped. */
function startLister(client: SimClient, ns: string): () => Promise<void> {
  let stopped = false;
  const loop = (async (): Promise<void> => {
    while (!stopped) {
      await client.call('pods list page', 'read', {
        method: 'GET',
        path: `/api/v1/namespaces/${ns}/pods?limit=500`,
      });
      await new Promise((r) => setTimeout(r, 2000));
    }
  })();
  loop.catch(() => undefined); // handled: the stop below throws it
  return async () => {
    stopped = true;
    await loop;
  };
}

async function setUp(s: Session, fleet: Fleet, client: SimClient, nodes: number) {
  const t0 = performance.now();
  await fleet.register(SETUP_CONCURRENCY);
  const registerS = (performance.now() - t0) / 1000;
  await fleet.watch(s.streamAgent(2 * nodes + 8), SETUP_CONCURRENCY);
  fleet.startHeartbeats();
  const t1 = performance.now();
  await createAndBind(client, fleet.nodes, s.namespace, s.runId, PER_NODE, SETUP_CONCURRENCY);
  await until('all pods Running', fleet, () => fleet.running() === nodes * PER_NODE);
  return { registerS, podsS: (performance.now() - t1) / 1000 };
}

async function window(fleet: Fleet, client: SimClient, ns: string, usage: UsageSampler) {
  client.record = new PhaseRecord();
  const stopLister = startLister(client, ns);
  const cpu0 = usage.cpu();
  const sim0 = process.cpuUsage();
  const from = Date.now();
  while (Date.now() - from < WINDOW_S * 1000) {
    fleet.check();
    await new Promise((r) => setTimeout(r, 500));
  }
  const seconds = (Date.now() - from) / 1000;
  const simUs = process.cpuUsage(sim0);
  const cpuCores = (usage.cpu() - cpu0) / seconds;
  await stopLister();
  return {
    record: client.record,
    cpuCores,
    simCores: (simUs.user + simUs.system) / 1e6 / seconds,
    rss: usage.rssIn(from, Date.now()),
  };
}

/**
 * Removes what the run made from a server that outlives it (the namespace goes with close()):
 * the pods one by one with no grace period (no kubelet will confirm their end; the reference's
 * deletecollection deletes them one at a time and outlives its 60 s request timeout), then the
 * leases and the nodes.
 */
async function cleanUp(s: Session, client: SimClient): Promise<void> {
  const sel = `labelSelector=${encodeURIComponent(`bench-run=${s.runId}`)}`;
  const grace = { apiVersion: 'v1', kind: 'DeleteOptions', gracePeriodSeconds: 0 };
  const pods = `/api/v1/namespaces/${s.namespace}/pods`;
  const page = await client.call('cleanup', 'read', { method: 'GET', path: `${pods}?${sel}` });
  const names = ((page.json['items'] ?? []) as { metadata: { name: string } }[]).map(
    (p) => p.metadata.name,
  );
  let next = 0;
  const worker = async (): Promise<void> => {
    for (let i = next++; i < names.length; i = next++) {
      const path = `${pods}/${names[i] ?? ''}`;
      await client.call('cleanup', 'mutating', { method: 'DELETE', path, body: grace }, [200, 404]);
    }
  };
  await Promise.all(Array.from({ length: 32 }, worker));
  for (const path of [
    `/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases?${sel}`,
    `/api/v1/nodes?${sel}`,
  ])
    await client.call('cleanup', 'mutating', { method: 'DELETE', path });
}

async function runOne(spec: TargetSpec, nodes: number): Promise<RunResult> {
  const s = await openSession(spec, CONNECTIONS, {
    dataDir: true,
    controllers: '*',
    args: ['--platform-profile=kubernetes'],
  });
  const usage = new UsageSampler(s.reached.pids);
  const client = new SimClient(s, CONNECTIONS);
  const fleet = new Fleet(s, client, nodes);
  try {
    const data0 = await dirBytes(s.reached.dataDir);
    const cpu0 = usage.cpu();
    const setup = await setUp(s, fleet, client, nodes);
    const setupRecord = client.record;
    const setupCpuS = usage.cpu() - cpu0;
    const w = await window(fleet, client, s.namespace, usage);
    await fleet.quiesce();
    client.record = new PhaseRecord(); // the check's own lists are not the window's reads
    const problems = await checkRun(fleet, client, s.namespace, s.runId, PER_NODE, 60_000);
    const restarts = fleet.nodes.reduce(
      (sum, n) => sum + (n.watch?.counts.restarts ?? 0) + (n.services?.restarts ?? 0),
      0,
    );
    return {
      label: spec.label,
      nodes,
      pods: nodes * PER_NODE,
      load: loadavg(),
      ...setup,
      setupRecord,
      setupCpuS,
      ...w,
      dataMb: ((await dirBytes(s.reached.dataDir)) - data0) / 1e6,
      watchRestarts: restarts,
      resent: client.resent,
      problems,
    };
  } finally {
    fleet.stop();
    usage.stop();
    if (spec.kind === 'external')
      await cleanUp(s, client).catch((err: unknown) =>
        console.error(`cleaning up ${s.url}: ${err instanceof Error ? err.message : String(err)}`),
      );
    await s.close();
  }
}

const specs = await targetSpecs();
const results: RunResult[] = [];
const busy = busyCoresWanted();
if (busy > 0) console.log(`[node-sim] ${busy} other processes keep a core busy each`);
const stopBusy = startBusyCores(busy);
try {
  for (const [i, nodes] of SIZES.entries()) {
    for (const spec of i % 2 === 0 ? specs : [...specs].reverse()) {
      const r = await runOne(spec, nodes);
      printRun(r, WINDOW_S);
      results.push(r);
    }
  }
} finally {
  stopBusy();
}
printSideBySide(results, specs);
if (results.some((r) => r.problems.length > 0)) process.exitCode = 1;
