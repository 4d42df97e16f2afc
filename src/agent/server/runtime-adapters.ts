// The server's providers over the pod manager and the container runtime: running pods (what the
// runtime reports, grouped by pod), /stats/summary (node CPU and memory from the host, pods and
// containers from the runtime's stats), container logs (tail, follow by polling, timestamps) and
// commands (exec without a terminal).

import { cpus, freemem, totalmem, uptime } from 'node:os';
import type { Writable } from 'node:stream';
import type { Clock } from '../../common/util/clock.js';
import type { Logger } from '../../common/log/types.js';
import { linesAfter, linesSince } from '../runtime/log-lines.js';
import { StatsFailureNote, statsSnapshot } from '../runtime/stats-snapshot.js';
import type {
  ContainerRuntime,
  PodStats,
  RuntimeContainer,
  TimedLogLine,
} from '../runtime/types.js';
import {
  ContainerNotFoundError,
  NoPreviousContainerError,
  type CommandRunner,
  type ContainerLogOptions,
  type ContainerLogs,
  type ContainerRef,
  type PodObject,
  type RunningPodsProvider,
  type StatsProvider,
} from './types.js';

export interface PodLookup {
  pods(): readonly { metadata: { name: string; namespace: string; uid: string } }[];
}

async function findContainer(
  runtime: ContainerRuntime,
  pods: PodLookup,
  ref: ContainerRef,
  previous = false,
): Promise<RuntimeContainer> {
  const pod = pods
    .pods()
    .find(
      (p) =>
        p.metadata.namespace === ref.namespace &&
        p.metadata.name === ref.pod &&
        (ref.uid === undefined || p.metadata.uid === ref.uid),
    );
  if (pod === undefined)
    throw new ContainerNotFoundError(`pod "${ref.pod}" in namespace "${ref.namespace}" not found`);
  const containers = (await runtime.listContainers({ podUid: pod.metadata.uid })).filter(
    (c) => c.kind !== 'sandbox' && c.name === ref.container,
  );
  const sorted = containers.sort((a, b) => b.attempt - a.attempt || b.createdAtMs - a.createdAtMs);
  const latest = sorted[0];
  if (latest === undefined)
    throw new ContainerNotFoundError(`container "${ref.container}" in pod "${ref.pod}" not found`);
  if (!previous) return latest;
  // The instance before the current one, as kept by the runtime until garbage collection.
  const before = sorted[1];
  if (before === undefined || before.state === 'running')
    throw new NoPreviousContainerError(ref.container, ref.pod);
  return before;
}

function writeLines(out: Writable, text: string, timestamps: boolean, clock: Clock): void {
  if (text === '') return;
  if (!timestamps) {
    out.write(text);
    return;
  }
  // The runtime keeps no per-line times here: lines are stamped when the agent reads them.
  const ts = clock.now().toISOString();
  out.write(text.replace(/^(?=.)/gm, `${ts} `));
}

export class RuntimeContainerLogs implements ContainerLogs {
  private saidUntimed = false;

  constructor(
    private readonly o: {
      runtime: ContainerRuntime;
      pods: PodLookup;
      clock: Clock;
      followPollMs?: number;
      logger?: Logger;
    },
  ) {}

  async writeLogs(
    ref: ContainerRef,
    options: ContainerLogOptions,
    out: Writable,
    signal: AbortSignal,
  ): Promise<void> {
    const c = await findContainer(this.o.runtime, this.o.pods, ref, options.previous === true);
    const timedLogs = this.o.runtime.timedLogs?.bind(this.o.runtime);
    if (timedLogs !== undefined) return this.writeTimed(timedLogs, c, options, out, signal);
    if (options.sinceMs !== undefined && !this.saidUntimed) {
      this.saidUntimed = true;
      this.o.logger?.warn(
        { container: ref.container, pod: ref.pod },
        'container logs: sinceSeconds/sinceTime cannot be applied: this runtime records ' +
          'no time per line; the whole log is sent',
      );
    }
    let text = await this.o.runtime.logs(
      c.id,
      options.tailLines !== undefined ? { tailLines: options.tailLines } : {},
    );
    if (options.limitBytes !== undefined)
      text = Buffer.from(text).subarray(0, options.limitBytes).toString();
    writeLines(out, text, options.timestamps, this.o.clock);
    if (!options.follow) return;
    let seen = (await this.o.runtime.logs(c.id)).length;
    while (await this.nextPoll(signal)) {
      const all = await this.o.runtime.logs(c.id);
      if (all.length > seen) writeLines(out, all.slice(seen), options.timestamps, this.o.clock);
      seen = all.length;
      if (!(await this.running(c))) return;
    }
  }

  /**
   * With the runtime's own time for each line, as the reference's ReadLogs: the tail, then the
   * lines before `since` dropped; `timestamps` prints each line's recorded time; limitBytes
   * counts what is written.
   */
  private async writeTimed(
    timedLogs: NonNullable<ContainerRuntime['timedLogs']>,
    c: RuntimeContainer,
    options: ContainerLogOptions,
    out: Writable,
    signal: AbortSignal,
  ): Promise<void> {
    let left = options.limitBytes ?? Infinity;
    const write = (lines: readonly TimedLogLine[]): boolean => {
      for (const l of lines) {
        const b = Buffer.from(options.timestamps ? `${l.time} ${l.text}` : l.text);
        out.write(b.length > left ? b.subarray(0, left) : b);
        left -= Math.min(left, b.length);
        if (left === 0) return false;
      }
      return true;
    };
    if (!options.follow) {
      const since = options.sinceMs !== undefined ? { sinceMs: options.sinceMs } : {};
      const tail = options.tailLines !== undefined ? { tailLines: options.tailLines } : {};
      write(await timedLogs(c.id, { ...since, ...tail }));
      return;
    }
    // a follow's first lines and the baseline it follows from are one read: a line written
    // between two reads would be in neither what was sent nor what is new
    let seen = await timedLogs(c.id);
    const tailed =
      options.tailLines === undefined
        ? seen
        : seen.slice(Math.max(0, seen.length - options.tailLines));
    if (!write(linesSince(tailed, options.sinceMs))) return;
    while (await this.nextPoll(signal)) {
      const all = await timedLogs(c.id);
      if (!write(linesSince(linesAfter(seen, all), options.sinceMs))) return;
      seen = all;
      if (!(await this.running(c))) return;
    }
  }

  /** Waits one follow period; false once the reader has gone. */
  private async nextPoll(signal: AbortSignal): Promise<boolean> {
    if (signal.aborted) return false;
    await this.o.clock.sleep(this.o.followPollMs ?? 1000, signal).catch(() => undefined);
    return !signal.aborted;
  }

  private async running(c: RuntimeContainer): Promise<boolean> {
    return (
      (await this.o.runtime.listContainers({ podUid: c.podUid })).find((x) => x.id === c.id)
        ?.state === 'running'
    );
  }
}

export class RuntimeCommandRunner implements CommandRunner {
  constructor(private readonly o: { runtime: ContainerRuntime; pods: PodLookup }) {}

  async run(
    ref: ContainerRef,
    command: readonly string[],
    options: { timeoutMs: number },
  ): Promise<{ stdout: Buffer; stderr: Buffer; exitCode: number }> {
    const c = await findContainer(this.o.runtime, this.o.pods, ref);
    if (c.state !== 'running')
      throw new ContainerNotFoundError(
        `container "${ref.container}" in pod "${ref.pod}" is not running`,
      );
    const r = await this.o.runtime.exec(c.id, command, options.timeoutMs);
    return { stdout: Buffer.from(r.output), stderr: Buffer.alloc(0), exitCode: r.exitCode };
  }
}

export class RuntimeRunningPods implements RunningPodsProvider {
  constructor(private readonly o: { runtime: ContainerRuntime }) {}

  async runningPods(): Promise<readonly PodObject[]> {
    const byPod = new Map<
      string,
      {
        namespace: string;
        name: string;
        uid: string;
        containers: { name: string; image: string }[];
      }
    >();
    for (const c of await this.o.runtime.listContainers()) {
      if (c.state !== 'running') continue;
      const p = byPod.get(c.podUid) ?? {
        namespace: c.podNamespace,
        name: c.podName,
        uid: c.podUid,
        containers: [],
      };
      if (c.kind !== 'sandbox') p.containers.push({ name: c.name, image: c.image });
      byPod.set(c.podUid, p);
    }
    return [...byPod.values()].map((p) => ({
      metadata: { name: p.name, namespace: p.namespace, uid: p.uid, creationTimestamp: null },
      spec: { containers: p.containers },
      status: {},
    }));
  }
}

export interface RuntimeStatsOptions {
  runtime: ContainerRuntime;
  nodeName: string;
  clock: Clock;
  /** The pod's status.startTime as the agent reported it (when the agent took the pod on). */
  podStartTime?: (uid: string) => string | undefined;
  /** Seconds since the host booted (the node's startTime is its boot time, as the reference's). */
  hostUptimeSeconds?: () => number;
  /** The pod's volume stats of the last --volume-stats-agg-period pass (pods[].volume). */
  volumes?: (uid: string) => readonly unknown[] | undefined;
  /** Where a failed stats read is said. */
  logger?: Logger;
}

const iso = (ms: number): string => new Date(ms).toISOString();

interface PodEntry {
  podRef: { name: string; namespace: string; uid: string };
  containers: unknown[];
  cpu: number;
  mem: number;
}

/** A pod's network as /stats/summary has it: the default interface inline, then every one. */
function networkOf(time: string, n: PodStats['network']): Record<string, unknown> | undefined {
  if (n === undefined) return undefined;
  return { time, ...(n.defaultInterface ?? {}), interfaces: n.interfaces };
}

/** The pod's CPU and memory: the runtime's measure of the pod, else its containers' sums. */
function podUsage(time: string, p: PodEntry, own: PodStats | undefined): Record<string, unknown> {
  const network = networkOf(time, own?.network);
  return {
    cpu: {
      time,
      usageNanoCores: own?.cpuUsageNanoCores ?? p.cpu,
      ...(own?.cpuUsageCoreNanoSeconds !== undefined
        ? { usageCoreNanoSeconds: own.cpuUsageCoreNanoSeconds }
        : {}),
    },
    memory: {
      time,
      workingSetBytes: own?.memoryWorkingSetBytes ?? p.mem,
      ...(own?.memoryRssBytes !== undefined ? { rssBytes: own.memoryRssBytes } : {}),
    },
    ...(network !== undefined ? { network } : {}),
  };
}

export class RuntimeStats implements StatsProvider {
  private readonly note: StatsFailureNote | undefined;

  constructor(private readonly o: RuntimeStatsOptions) {
    this.note = o.logger && new StatsFailureNote(o.logger, '/stats/summary');
  }

  async summary(): Promise<unknown> {
    const time = this.o.clock.now().toISOString();
    const all = await this.o.runtime.listContainers();
    const stats = await statsSnapshot(this.o.runtime, all, this.note);
    const pods = new Map<string, PodEntry>();
    for (const c of all) {
      if (c.kind === 'sandbox' || c.state !== 'running') continue;
      const s = stats.container(c.id);
      const p = pods.get(c.podUid) ?? {
        podRef: { name: c.podName, namespace: c.podNamespace, uid: c.podUid },
        containers: [],
        cpu: 0,
        mem: 0,
      };
      p.containers.push({
        name: c.name,
        startTime: iso(c.startedAtMs ?? c.createdAtMs),
        cpu: {
          time,
          usageNanoCores: s?.cpuUsageNanoCores,
          usageCoreNanoSeconds: s?.cpuUsageCoreNanoSeconds,
        },
        memory: { time, workingSetBytes: s?.memoryWorkingSetBytes, rssBytes: s?.memoryRssBytes },
      });
      p.cpu += s?.cpuUsageNanoCores ?? 0;
      p.mem += s?.memoryWorkingSetBytes ?? 0;
      pods.set(c.podUid, p);
    }
    return {
      node: this.nodeStats(time),
      pods: [...pods.values()].map((p) => {
        const volume = this.o.volumes?.(p.podRef.uid);
        return {
          podRef: p.podRef,
          startTime: this.podStartTime(p.podRef.uid, all),
          containers: p.containers,
          ...podUsage(time, p, stats.pod(p.podRef.uid)),
          ...(volume !== undefined && volume.length > 0 ? { volume } : {}),
        };
      }),
    };
  }

  /** The node's CPU and memory from the host. */
  private nodeStats(time: string): Record<string, unknown> {
    const bootMs = this.o.clock.nowMs() - (this.o.hostUptimeSeconds ?? uptime)() * 1000;
    return {
      nodeName: this.o.nodeName,
      startTime: iso(Math.floor(bootMs / 1000) * 1000),
      cpu: {
        time,
        usageCoreNanoSeconds: cpus().reduce(
          (acc, c) => acc + (c.times.user + c.times.sys + c.times.irq + c.times.nice) * 1_000_000,
          0,
        ),
      },
      memory: { time, availableBytes: freemem(), workingSetBytes: totalmem() - freemem() },
    };
  }

  /** The status the agent reported, else when the pod's sandbox (or its first container) began. */
  private podStartTime(uid: string, all: readonly RuntimeContainer[]): string {
    const reported = this.o.podStartTime?.(uid);
    if (reported !== undefined) return reported;
    const own = all.filter((c) => c.podUid === uid);
    const sandbox = own.find((c) => c.kind === 'sandbox');
    const first = sandbox ? [sandbox] : own;
    return iso(Math.min(...first.map((c) => c.createdAtMs)));
  }
}
