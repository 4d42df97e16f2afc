// The side-by-side benchmark's pod figures: N pods created at once through the API server (bound
// to the node by spec.nodeName, so the scheduler takes no part), each pod's time from its create
// request to Running and to Ready as the API server's watch shows them; and the node program's CPU
// and RSS over a steady minute with its pods running.
import { listOf, recordOf } from '../src/common/util/json-shape.js';
import {
  expectStatus,
  itemNames,
  type Kube,
  type PodSeen,
  type PodWatch,
} from './side-by-side-kube.js';
import { cpuSeconds, rssMb } from './proc-usage.js';

export const POD_IMAGE = 'registry.k8s.io/e2e-test-images/busybox:1.36.1-1';

export interface PodStart {
  /** First create request sent to the last pod Running. */
  readonly allRunningMs: number;
  /** Per pod, create request sent to Running (sorted). */
  readonly runningMs: readonly number[];
  /** Per pod, create request sent to Ready=True (sorted). */
  readonly readyMs: readonly number[];
  /** Pods not Ready when the wait ended. */
  readonly missing: number;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? NaN;
}

function podBody(name: string, tag: string, node: string): unknown {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, labels: { 'bench-run': tag } },
    spec: {
      nodeName: node,
      tolerations: [{ operator: 'Exists' }],
      containers: [{ name: 'sleep', image: POD_IMAGE, command: ['sleep', '3600'] }],
    },
  };
}

function isReady(pod: Record<string, unknown>): boolean {
  const conditions = listOf(recordOf(pod['status'])['conditions']).map(recordOf);
  return conditions.some((c) => c['type'] === 'Ready' && c['status'] === 'True');
}

/** Creates `count` pods at once on `node`; resolves when all are Ready or `timeoutMs` passed. */
export async function startPods(
  kube: Kube,
  ns: string,
  node: string,
  tag: string,
  count: number,
  timeoutMs: number,
): Promise<PodStart> {
  const sent = new Map<string, number>();
  const running = new Map<string, number>();
  const ready = new Map<string, number>();
  const failed: string[] = [];
  const onEvent = ({ at, pod }: PodSeen): void => {
    const name = String(recordOf(pod['metadata'])['name'] ?? '');
    if (!sent.has(name)) return;
    const phase = recordOf(pod['status'])['phase'];
    if (phase === 'Running' && !running.has(name)) running.set(name, at);
    if (isReady(pod) && !ready.has(name)) ready.set(name, at);
    if (phase === 'Failed' && !failed.includes(name)) failed.push(name);
  };
  // a watch the server closes is opened again (its list gives what happened meanwhile)
  let watch: PodWatch | undefined;
  let done = false;
  const open = async (): Promise<void> => {
    watch = await kube.watchPods(ns, { onEvent, ended: () => void reopen() });
  };
  const reopen = async (): Promise<void> => {
    if (!done) await open().catch(() => setTimeout(() => void reopen(), 1000));
  };
  await open();
  try {
    const names = Array.from({ length: count }, (_, i) => `${tag}-${i}`);
    for (const n of names) sent.set(n, 0);
    await Promise.all(
      names.map(async (n) => {
        sent.set(n, performance.now());
        const a = await kube.call('POST', `/api/v1/namespaces/${ns}/pods`, podBody(n, tag, node));
        expectStatus(a, `create pod ${ns}/${n}`, 201);
      }),
    );
    const t0 = performance.now();
    while (ready.size < count && failed.length === 0 && performance.now() - t0 < timeoutMs)
      await sleep(100);
    if (failed.length > 0) throw new Error(`pods Failed on ${node}: ${failed.join(', ')}`);
    const first = Math.min(...sent.values());
    const since = (m: Map<string, number>): number[] =>
      [...m].map(([n, at]) => at - (sent.get(n) ?? first)).sort((a, b) => a - b);
    return {
      allRunningMs: running.size === count ? Math.max(...running.values()) - first : NaN,
      runningMs: since(running),
      readyMs: since(ready),
      missing: count - ready.size,
    };
  } finally {
    done = true;
    watch?.stop();
  }
}

/** Deletes the pods of run `tag` (grace 1 s) and waits until the API server has none left. */
export async function deletePods(kube: Kube, ns: string, tag: string, timeoutMs: number) {
  const selector = `labelSelector=${encodeURIComponent(`bench-run=${tag}`)}`;
  expectStatus(
    await kube.call('DELETE', `/api/v1/namespaces/${ns}/pods?${selector}&gracePeriodSeconds=1`),
    `delete the pods of ${tag}`,
    200,
  );
  const t0 = performance.now();
  let left: string[] = [];
  while (performance.now() - t0 < timeoutMs) {
    left = itemNames(await kube.call('GET', `/api/v1/namespaces/${ns}/pods?${selector}`));
    if (left.length === 0) return;
    await sleep(1000);
  }
  throw new Error(`${left.length} pods of ${tag} still there after ${timeoutMs / 1000} s`);
}

export interface Steady {
  readonly cpuSecondsPerMinute: number;
  readonly rssMedianMb: number;
  readonly rssMaxMb: number;
}

/** The process's CPU seconds per minute and RSS (sampled every second) over `ms`. */
export async function steadyWindow(pid: number, ms: number): Promise<Steady> {
  const cpu0 = cpuSeconds(pid);
  const t0 = performance.now();
  const rss: number[] = [];
  while (performance.now() - t0 < ms) {
    rss.push(rssMb(pid));
    await sleep(1000);
  }
  const cpu = cpuSeconds(pid) - cpu0;
  const elapsed = performance.now() - t0;
  rss.sort((a, b) => a - b);
  return {
    cpuSecondsPerMinute: (cpu * 60_000) / elapsed,
    rssMedianMb: quantile(rss, 0.5),
    rssMaxMb: rss[rss.length - 1] ?? NaN,
  };
}
