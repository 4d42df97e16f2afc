// Shared setup of the plat-apiserver benchmarks: a session on one target (apiserver-target.ts)
// through its public HTTPS API only, keep-alive connections, a namespace of its own created for
// the run (events must live in an existing namespace, as the reference requires) and removed at
// the end with every CSR the run labelled; the rounds runner that measures every target
// alternately; and percentile helpers.

import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Agent, request } from 'undici';
import {
  reach,
  targetSpecs,
  type Endpoint,
  type ReachOptions,
  type Reached,
  type TargetSpec,
} from './apiserver-target.js';
import { busyCoresWanted, startBusyCores } from './busy-cores.js';
import { mainThreadCpuSeconds, untilQuiet } from './proc-usage.js';

export interface Session {
  readonly label: string;
  readonly url: string;
  /** Where and how to connect (for clients in processes of their own). */
  readonly endpoint: Endpoint;
  /** The namespace this run created (events go there). */
  readonly namespace: string;
  /** The value of the `bench-run` label on what this run creates. */
  readonly runId: string;
  /** The CSR API group the server serves (`certificates.k8s.io` on the reference). */
  readonly certificatesGroup: string;
  /** One request; returns the status and the body text. A body is sent as JSON (`contentType`: a patch's). */
  call(
    method: string,
    path: string,
    body?: unknown,
    contentType?: string,
  ): Promise<{ status: number; text: string }>;
  /** The server's processes and data directory, as reach() found them. */
  readonly reached: Reached;
  /** The keep-alive connections `call` uses, for calls made with other headers. */
  readonly dispatcher: Agent;
  /** An agent for long-lived streams (one connection per stream). */
  streamAgent(connections: number): Agent;
  /** Authorization header for requests made with streamAgent. */
  readonly headers: Record<string, string>;
  close(): Promise<void>;
}

export function loadavg(): string {
  return readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
}

function connectOptions(e: Endpoint, timeout?: number): Record<string, unknown> {
  return {
    ...(e.ca === undefined ? {} : { ca: e.ca }),
    ...(e.cert === undefined ? {} : { cert: e.cert }),
    ...(e.key === undefined ? {} : { key: e.key }),
    ...(e.servername === undefined ? {} : { servername: e.servername }),
    ...(timeout === undefined ? {} : { timeout }),
  };
}

async function certificatesGroup(call: Session['call']): Promise<string> {
  const r = await call('GET', '/apis');
  if (r.status !== 200) throw new Error(`GET /apis: ${r.status} ${r.text.slice(0, 200)}`);
  const groups = (JSON.parse(r.text) as { groups?: { name: string }[] }).groups ?? [];
  const g = groups.find((x) => x.name.startsWith('certificates.'));
  if (g === undefined) throw new Error('the server serves no certificates.* API group');
  return g.name;
}

export async function openSession(
  spec: TargetSpec,
  connections = 8,
  opts: ReachOptions = {},
): Promise<Session> {
  const reached: Reached = await reach(spec, opts);
  const e = reached.endpoint;
  const headers: Record<string, string> =
    e.token === undefined ? {} : { authorization: `Bearer ${e.token}` };
  const agent = new Agent({ connect: connectOptions(e), connections, pipelining: 1 });
  const agents: Agent[] = [agent];
  const call: Session['call'] = async (method, path, body, contentType = 'application/json') => {
    const res = await request(`${e.url}${path}`, {
      method: method as 'GET',
      dispatcher: agent,
      headers: body === undefined ? headers : { ...headers, 'content-type': contentType },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: res.statusCode, text: await res.body.text() };
  };
  const runId = randomBytes(4).toString('hex');
  const namespace = `bench-${runId}`;
  try {
    const ns = await call('POST', '/api/v1/namespaces', {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: namespace },
    });
    if (ns.status !== 201)
      throw new Error(`creating namespace ${namespace}: ${ns.status} ${ns.text.slice(0, 200)}`);
    const group = await certificatesGroup(call);
    return {
      label: spec.label,
      url: e.url,
      endpoint: e,
      namespace,
      runId,
      certificatesGroup: group,
      call,
      reached,
      dispatcher: agent,
      headers,
      streamAgent: (n) => {
        const a = new Agent({
          connect: connectOptions(e, 120_000),
          connections: n,
          pipelining: 0,
          headersTimeout: 120_000,
          bodyTimeout: 0,
        });
        agents.push(a);
        return a;
      },
      close: async () => {
        if (spec.kind === 'external') await cleanUp(call, group, namespace, runId);
        await Promise.allSettled(agents.map((a) => a.close()));
        await reached.stop();
      },
    };
  } catch (err) {
    await Promise.allSettled(agents.map((a) => a.close()));
    await reached.stop();
    throw err;
  }
}

/** Removes what the run created on a server that outlives it (the events go with the namespace). */
async function cleanUp(
  call: Session['call'],
  group: string,
  namespace: string,
  runId: string,
): Promise<void> {
  const csrs = await call(
    'DELETE',
    `/apis/${group}/v1/certificatesigningrequests?labelSelector=${encodeURIComponent(`bench-run=${runId}`)}`,
  );
  const ns = await call('DELETE', `/api/v1/namespaces/${namespace}`);
  if (csrs.status !== 200 || ns.status !== 200)
    console.error(`cleaning up: deleting CSRs ${csrs.status}, namespace ${namespace} ${ns.status}`);
}

/** One figure of one round: a value, its same-run baseline, and how the ratio reads. */
export interface Figure {
  readonly name: string;
  readonly value: number;
  readonly unit: string;
  readonly text: string;
}

/**
 * Measures every target BENCH_ROUNDS times (default 3 when comparing builds, else 1), the targets
 * alternating within each round (in reverse order every other round), and prints each round's
 * figures with the load average, then the median of each figure per target and this build's
 * median against the compared build's.
 * A benchmark's `warmUp` runs untimed at the start of each turn, before the quiet wait, unless
 * BENCH_WARM_UP=0 (each turn then starts on a server this build has just started, cold).
 * BENCH_BUSY_CORES=N keeps N cores busy with other processes throughout (busy-cores.ts). When
 * targets take turns, each turn starts once the machine has been quiet for 3 s (at most a quarter
 * of a core beside the busy ones; at most 60 s of waiting).
 */
export async function runRounds(
  title: string,
  connections: number,
  measure: (s: Session) => Promise<Figure[]>,
  warmUp?: (s: Session) => Promise<void>,
): Promise<void> {
  const specs = await targetSpecs();
  const busy = busyCoresWanted();
  if (busy > 0) console.log(`[${title}] ${busy} other processes keep a core busy each`);
  const stopBusy = startBusyCores(busy);
  try {
    const warm = warmUp !== undefined && process.env['BENCH_WARM_UP'] !== '0' ? warmUp : undefined;
    await measureRounds(title, connections, { measure, warmUp: warm }, specs, busy);
  } finally {
    stopBusy();
  }
}

/** A benchmark's turn: its untimed warm-up, if any, then what it measures. */
interface Turn {
  readonly measure: (s: Session) => Promise<Figure[]>;
  readonly warmUp: ((s: Session) => Promise<void>) | undefined;
}

async function measureRounds(
  title: string,
  connections: number,
  turn: Turn,
  specs: readonly TargetSpec[],
  busy: number,
): Promise<void> {
  const rounds = positiveInt(
    'BENCH_ROUNDS',
    process.env['BENCH_ROUNDS'] ?? (specs.length > 1 ? '3' : '1'),
  );
  const results = new Map<string, Figure[][]>();
  for (let r = 0; r < rounds; r++) {
    // ABBA: the order alternates by round, so a load that rises or falls during a round does not
    // favour the build that always goes first.
    for (const spec of r % 2 === 0 ? specs : [...specs].reverse()) {
      const s = await openSession(spec, connections);
      try {
        // Each turn's server is warmed first: this build is started afresh for each turn, while
        // a server of the reference's has been running all along; and the benchmark's own client
        // is cold in the first turn of a run.
        if (turn.warmUp !== undefined) await turn.warmUp(s);
        // Turns on a quiet machine: a server still busy with the last turn's writes (etcd and the
        // reference's controllers go on after its answers) would slow the next server's turn.
        if (specs.length > 1) await untilQuiet(`[${title}] `, busy + 0.25, 3, 60);
        const figures = await turn.measure(s);
        console.log(`[${title}] round ${r + 1}/${rounds}, ${spec.label}, load ${loadavg()}:`);
        for (const f of figures) console.log(`  ${f.text}`);
        results.set(spec.label, [...(results.get(spec.label) ?? []), figures]);
      } finally {
        await s.close();
      }
    }
  }
  summarize(title, specs, results);
}

function summarize(
  title: string,
  specs: readonly TargetSpec[],
  results: Map<string, Figure[][]>,
): void {
  const medians = specs.map((spec) => medianFigures(results.get(spec.label) ?? []));
  console.log(`[${title}] medians over the rounds:`);
  specs.forEach((spec, i) => {
    for (const f of medians[i] ?? [])
      console.log(`  ${spec.label}: ${f.name} ${fmt(f.value)} ${f.unit}`);
  });
  const [mine, other] = specs.map((spec) => results.get(spec.label) ?? []);
  if (mine === undefined || other === undefined) return;
  // Paired within each round (the two builds ran back to back), then the median of the rounds.
  for (const f of mine[0] ?? []) {
    const ratios = mine.flatMap((round, r) => {
      const a = round.find((x) => x.name === f.name)?.value;
      const b = other[r]?.find((x) => x.name === f.name)?.value;
      return a === undefined || b === undefined || b === 0 ? [] : [a / b];
    });
    const each = ratios.map((x) => x.toFixed(2)).join(', ');
    console.log(
      `  this build / compared, per round: ${f.name} median ${percentile(ratios, 0.5).toFixed(2)}x (${each})`,
    );
  }
}

function medianFigures(rounds: readonly Figure[][]): Figure[] {
  const first = rounds[0] ?? [];
  return first.map((f) => ({
    ...f,
    value: percentile(
      rounds.map((r) => r.find((x) => x.name === f.name)?.value ?? 0),
      0.5,
    ),
  }));
}

function fmt(x: number): string {
  return x >= 100 ? x.toFixed(0) : x.toFixed(x >= 1 ? 2 : 4);
}

/** A count from the environment: a positive integer, or an error naming the variable. */
export function positiveInt(name: string, text: string): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1 || n > 1_000_000)
    throw new Error(`${name}=${text}: expected a whole number from 1 to 1000000`);
  return n;
}

/** GETs of the namespace, one at a time, until `done` settles; their latencies in ms. */
export async function readsDuring(s: Session, done: Promise<unknown>): Promise<number[]> {
  let over = false;
  const stop = (): void => void (over = true);
  // Its failure is the creates' own, reported where they are awaited.
  void done.then(stop, stop);
  const took: number[] = [];
  while (!over) {
    const t = performance.now();
    const r = await s.call('GET', `/api/v1/namespaces/${s.namespace}`);
    if (r.status !== 200) throw new Error(`read: ${r.status} ${r.text.slice(0, 300)}`);
    took.push(performance.now() - t);
  }
  return took;
}

/**
 * The pid of a plat-apiserver this run started (whose first thread is its event loop); undefined
 * for an external server, whose threads mean something else.
 */
function startedServerPid(s: Session): number | undefined {
  return s.reached.adminPlatconfig === undefined ? undefined : s.reached.pids[0];
}

/**
 * What `f` returns, and the CPU ms the first thread of a server this run started (plat-apiserver's
 * event loop) spent meanwhile; 0 for an external server.
 */
export async function firstThreadCpuMs<T>(s: Session, f: () => Promise<T>): Promise<[T, number]> {
  const pid = startedServerPid(s);
  const before = pid === undefined ? 0 : mainThreadCpuSeconds(pid);
  const out = await f();
  return [out, pid === undefined ? 0 : (mainThreadCpuSeconds(pid) - before) * 1000];
}

export function percentile(xs: readonly number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(p * s.length))] ?? 0;
}

export function ms(x: number): string {
  return `${x.toFixed(2)} ms`;
}

/** Durations (milliseconds) of `n` sequential calls of `fn`. */
export async function latencies(n: number, fn: (i: number) => Promise<void>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await fn(i);
    out.push(performance.now() - t);
  }
  return out;
}

/** Runs `fn(i)` for i in [0, n) on `concurrency` workers. */
export async function concurrently(
  n: number,
  concurrency: number,
  fn: (i: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (let i = next++; i < n; i = next++) await fn(i);
    }),
  );
}

/** A core/v1 Event about a Pod in the same namespace (the reference requires that namespace to match). */
export function event(name: string, ns = 'default'): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name, namespace: ns },
    involvedObject: { kind: 'Pod', name: 'p', namespace: ns },
    reason: 'Bench',
    message: 'benchmark event',
    type: 'Normal',
    source: { component: 'bench' },
  };
}
