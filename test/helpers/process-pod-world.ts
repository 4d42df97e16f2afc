// The pod manager and its workers wired in the test's process on the process:// runtime, without
// the rest of an agent: for tests of what pod sync does with real host processes (probes,
// termination, podLogsDir). On the way out, even when the test failed: the manager stopped, the
// probes ended, the pods' processes killed, the root directory removed.
import type { TestContext } from 'node:test';
import { systemClock } from '../../src/common/util/clock.js';
import { silentLogger, type Logger } from '../../src/common/log/types.js';
import { ProcessRuntime } from '../../src/agent/runtime/process/runtime.js';
import { PodLogLinks } from '../../src/agent/runtime/pod-logs/links.js';
import { PodStatusManager } from '../../src/agent/worker/status-manager.js';
import { ProbeManager } from '../../src/agent/worker/probes.js';
import { PodSyncer } from '../../src/agent/worker/pod-sync.js';
import { PodManager } from '../../src/agent/worker/pod-manager.js';
import { tempDir } from '../integration/agent/pods/agent-harness.js';
import { killProcessPods } from '../integration/agent/pods/runtimes.js';

export interface ProcessPodWorldOptions {
  /** Prefix of the temporary root directory's name. */
  readonly prefix: string;
  readonly logger?: Logger;
  /** podLogsDir: the links are made there and stale pod directories removed at housekeeping. */
  readonly podLogsDir?: string;
  readonly housekeepingMs?: number;
}

export interface ProcessPodWorld {
  readonly root: string;
  readonly runtime: ProcessRuntime;
  readonly statuses: PodStatusManager;
  readonly manager: PodManager;
}

export async function processPodWorld(
  t: Pick<TestContext, 'after'>,
  o: ProcessPodWorldOptions,
): Promise<ProcessPodWorld> {
  const root = await tempDir(`${o.prefix}-`);
  const logger = o.logger ?? silentLogger();
  const runtime = new ProcessRuntime({
    rootDir: root.path,
    logger,
    clock: systemClock,
    pollIntervalMs: 200,
  });
  const statuses = new PodStatusManager();
  const late: { m?: PodManager } = {};
  const probes = new ProbeManager({
    runtime,
    clock: systemClock,
    logger,
    onChange: (uid) => late.m?.resync(uid),
  });
  const podLogs =
    o.podLogsDir === undefined ? undefined : new PodLogLinks({ dir: o.podLogsDir, logger });
  const syncer = new PodSyncer({
    runtime,
    images: runtime,
    probes,
    statuses,
    clock: systemClock,
    logger,
    rootDir: root.path,
    ...(podLogs !== undefined ? { podLogs } : {}),
  });
  const manager = new PodManager({
    syncer,
    runtime,
    statuses,
    clock: systemClock,
    logger,
    syncFrequencyMs: 60_000,
    capacity: 10,
    seenAllSources: () => true,
    ...(podLogs !== undefined
      ? { cleanupOrphanPodLogs: (keep: (uid: string) => boolean) => podLogs.removeStale(keep) }
      : {}),
    ...(o.housekeepingMs !== undefined ? { housekeepingMs: o.housekeepingMs } : {}),
  });
  late.m = manager;
  const ac = new AbortController();
  manager.start(ac.signal);
  t.after(async () => {
    ac.abort();
    probes.stopAll();
    await manager.stop();
    await killProcessPods(root.path);
    await runtime.close();
    await root.cleanup();
  });
  return { root: root.path, runtime, statuses, manager };
}
