// What the node simulator prints: each run (setup, the steady window's latencies by kind and by
// class, the server's CPU, RSS and data growth, the simulator's own CPU, the consistency check),
// then the growth from the smallest size to the largest per server and, with two servers, this
// build against the other at each size.

import type { TargetSpec } from './apiserver-target.js';
import { quantiles, type PhaseRecord } from './node-sim-calls.js';
import { percentile } from './apiserver-harness.js';

export interface RunResult {
  readonly label: string;
  readonly nodes: number;
  readonly pods: number;
  readonly load: string;
  readonly registerS: number;
  readonly podsS: number;
  readonly setupRecord: PhaseRecord;
  readonly setupCpuS: number;
  readonly record: PhaseRecord;
  readonly cpuCores: number;
  readonly simCores: number;
  readonly rss: { readonly median: number; readonly max: number };
  readonly dataMb: number;
  readonly watchRestarts: number;
  /** Requests sent again after the server closed their connection. */
  readonly resent: number;
  readonly problems: readonly string[];
}

function kinds(record: PhaseRecord): string[] {
  return [...record.byKind.entries()].map(([k, r]) => `    ${k}: ${quantiles(r.ms)}`);
}

/** The first few problems of each kind (a kind: the words after the object's name, numbers masked). */
function problemLines(problems: readonly string[]): string[] {
  const byKind = new Map<string, string[]>();
  for (const p of problems) {
    const kind = p
      .replace(/^\S+ ?\S*?: /, '')
      .replace(/[0-9a-f]{8,}|\d+/g, '#')
      .slice(0, 60);
    byKind.set(kind, [...(byKind.get(kind) ?? []), p]);
  }
  return [...byKind.values()].flatMap((ps) =>
    [...ps.slice(0, 3), ...(ps.length > 3 ? [`... and ${ps.length - 3} more like it`] : [])].map(
      (p) => `    ${p}`,
    ),
  );
}

export function printRun(r: RunResult, windowS: number): void {
  const writes = r.setupRecord.ofClass('mutating').length;
  console.log(
    `[node-sim] ${r.nodes} nodes, ${r.pods} pods, ${r.label}, load ${r.load}:\n` +
      `  setup: ${r.nodes} nodes and leases registered in ${r.registerS.toFixed(1)} s; ` +
      `${r.pods} pods created, bound and Running in ${r.podsS.toFixed(1)} s ` +
      `(${writes} writes in the setup; server CPU ${r.setupCpuS.toFixed(1)} s)`,
  );
  console.log(kinds(r.setupRecord).join('\n'));
  console.log(
    `  steady window (${windowS} s): mutating ${quantiles(r.record.ofClass('mutating'))}; ` +
      `read ${quantiles(r.record.ofClass('read'))}`,
  );
  console.log(kinds(r.record).join('\n'));
  console.log(
    `  server: CPU ${r.cpuCores.toFixed(3)} cores; RSS median ${r.rss.median.toFixed(0)} MB, ` +
      `max ${r.rss.max.toFixed(0)} MB; data directory +${r.dataMb.toFixed(1)} MB. ` +
      `Simulator CPU ${r.simCores.toFixed(3)} cores; watch restarts ${r.watchRestarts}; ` +
      `requests sent again on a closed connection ${r.resent}`,
  );
  const head = problemLines(r.problems);
  console.log(
    r.problems.length === 0
      ? `  check: every acknowledged write is served and all ${r.nodes} watches are consistent`
      : `  check: ${r.problems.length} problems:\n${head.join('\n')}`,
  );
}

function p99(r: RunResult, cls: 'mutating' | 'read'): number {
  return percentile(r.record.ofClass(cls), 0.99);
}

function row(r: RunResult): string {
  return (
    `  ${r.label}: ${r.nodes} nodes | mutating p99 ${p99(r, 'mutating').toFixed(1)} ms | ` +
    `read p99 ${p99(r, 'read').toFixed(1)} ms | CPU ${r.cpuCores.toFixed(3)} cores | ` +
    `RSS ${r.rss.median.toFixed(0)} MB | data +${r.dataMb.toFixed(1)} MB | setup ${r.podsS.toFixed(0)} s`
  );
}

export function printSideBySide(results: readonly RunResult[], specs: readonly TargetSpec[]): void {
  console.log('[node-sim] by size:');
  for (const spec of specs)
    for (const r of results.filter((x) => x.label === spec.label)) console.log(row(r));
  const [mine, other] = specs;
  if (mine === undefined || other === undefined) return;
  console.log(`[node-sim] ${mine.label} / ${other.label}, per size:`);
  for (const a of results.filter((x) => x.label === mine.label)) {
    const b = results.find((x) => x.label === other.label && x.nodes === a.nodes);
    if (b === undefined) continue;
    const ratio = (x: number, y: number): string => (y === 0 ? 'n/a' : `${(x / y).toFixed(2)}x`);
    console.log(
      `  ${a.nodes} nodes: CPU ${ratio(a.cpuCores, b.cpuCores)}, mutating p99 ` +
        `${ratio(p99(a, 'mutating'), p99(b, 'mutating'))}, read p99 ` +
        `${ratio(p99(a, 'read'), p99(b, 'read'))}, RSS ${ratio(a.rss.median, b.rss.median)}, ` +
        `setup ${ratio(a.podsS, b.podsS)}`,
    );
  }
}
