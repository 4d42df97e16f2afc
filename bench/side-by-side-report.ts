// The side-by-side benchmark's figures, as collected and as printed: each figure for both
// programs (every run, and the median of the runs), nodeagent / kubelet and the goal, the load
// averages, the machine and the command.
import { cpus, totalmem } from 'node:os';
import { PROGRAMS, type Program } from './side-by-side-node.js';
import { quantile, type PodStart, type Steady } from './side-by-side-pods.js';

type PerProgram<T> = Record<Program, T[]>;
const perProgram = <T>(): PerProgram<T> => ({ kubelet: [], nodeagent: [] });

export interface SteadyRun extends Steady {
  readonly start110Ms: number;
}

export class Figures {
  readonly bootstrap = perProgram<number>();
  readonly pods30 = perProgram<PodStart>();
  readonly steady = perProgram<SteadyRun>();
  readonly loads: string[] = [];
  readonly notes: string[] = [];
  constructor(
    readonly loadAtStart: string,
    readonly tokenVolumes: boolean,
  ) {}
}

const median = (xs: readonly number[]): number =>
  quantile(
    [...xs].sort((a, b) => a - b),
    0.5,
  );
const ms = (x: number): string => (Number.isFinite(x) ? `${x.toFixed(0)} ms` : 'n/a');
const fixed = (x: number, unit: string): string =>
  Number.isFinite(x) ? `${x.toFixed(unit === 'MB' ? 1 : 2)} ${unit}` : 'n/a';

function row(
  what: string,
  goal: number,
  values: PerProgram<number>,
  show: (x: number) => string,
): string {
  const k = median(values.kubelet);
  const a = median(values.nodeagent);
  const ratio = a / k;
  const met = Number.isFinite(ratio) ? (ratio <= goal ? 'met' : 'NOT met') : 'n/a';
  const each = (p: Program): string => values[p].map(show).join(', ');
  const measured = Number.isFinite(ratio) ? `${ratio.toFixed(2)}x` : 'n/a';
  const verdict = Number.isFinite(goal) ? ` (goal at most ${goal}x: ${met})` : '';
  return [
    `${what}:`,
    `  kubelet   ${show(k)} (runs: ${each('kubelet')})`,
    `  nodeagent ${show(a)} (runs: ${each('nodeagent')})`,
    `  nodeagent / kubelet ${measured}${verdict}`,
  ].join('\n');
}

const of = <T>(f: PerProgram<T>, pick: (t: T) => number): PerProgram<number> => ({
  kubelet: f.kubelet.map(pick),
  nodeagent: f.nodeagent.map(pick),
});

type Show = (x: number) => string;
const seconds: Show = (x) => fixed(x, 's');
const mb: Show = (x) => fixed(x, 'MB');
const p50: Show = ms;

function podRows(f: Figures): string[] {
  const pods = (pick: (p: PodStart) => number): PerProgram<number> => of(f.pods30, pick);
  return [
    row(
      '1. 30 pods at once: create to all Running',
      0.8,
      pods((p) => p.allRunningMs),
      ms,
    ),
    row(
      '   per pod create to Running, p50',
      0.8,
      pods((p) => quantile(p.runningMs, 0.5)),
      p50,
    ),
    row(
      '   per pod create to Running, p99',
      0.8,
      pods((p) => quantile(p.runningMs, 0.99)),
      ms,
    ),
    row(
      '   per pod create to Ready, p50',
      0.8,
      pods((p) => quantile(p.readyMs, 0.5)),
      p50,
    ),
    row(
      '   per pod create to Ready, p99',
      0.8,
      pods((p) => quantile(p.readyMs, 0.99)),
      ms,
    ),
  ];
}

function steadyRows(f: Figures): string[] {
  const steady = (pick: (s: SteadyRun) => number): PerProgram<number> => of(f.steady, pick);
  return [
    row(
      '2. 110 pods running: CPU per minute',
      1,
      steady((s) => s.cpuSecondsPerMinute),
      seconds,
    ),
    row(
      '   RSS (median of 1 s samples)',
      1,
      steady((s) => s.rssMedianMb),
      mb,
    ),
    row(
      '   RSS (max of the minute)',
      1,
      steady((s) => s.rssMaxMb),
      mb,
    ),
    row(
      '   (no goal) 110 pods: create to all Running',
      Infinity,
      steady((s) => s.start110Ms),
      ms,
    ),
  ];
}

export function printFigures(f: Figures, loadAtEnd: string, command: string): void {
  const cpu = cpus()[0]?.model ?? '?';
  const volumes = f.tokenVolumes ? 'yes (default admission)' : 'NO (ServiceAccount admission off)';
  const lines = [
    '',
    `== nodeagent side by side with the reference kubelet (${PROGRAMS.join(', ')} taking turns)`,
    `machine: ${cpus().length} x ${cpu}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB; ` +
      `load average at start ${f.loadAtStart}, at end ${loadAtEnd}`,
    `projected service-account token volumes in the pods: ${volumes}`,
    "both programs' environment: a systemd unit's (PATH, LANG), not this shell's",
    ...podRows(f),
    ...steadyRows(f),
    row('3. launch to client certificate on disk (bootstrap token)', 0.5, f.bootstrap, ms),
    'load per run:',
    ...f.loads.map((l) => `  ${l}`),
    ...(f.notes.length > 0 ? ['notes:', ...f.notes.map((n) => `  ${n}`)] : []),
    `command: ${command}`,
  ];
  console.log(lines.join('\n'));
}
