import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManualClock } from '../../../helpers/manual-clock.js';
import { recordingLogger } from '../../../helpers/recording-logger.js';
import { PodStatusManager } from '../../../../src/agent/worker/status-manager.js';
import { ProbeManager } from '../../../../src/agent/worker/probes.js';
import { PodSyncer, type PodCgroupLifecycle } from '../../../../src/agent/worker/pod-sync.js';
import { PodManager } from '../../../../src/agent/worker/pod-manager.js';
import type { Pod } from '../../../../src/agent/pod/types.js';
import { FakeRuntime } from './fake-runtime.js';

/**
 * A root directory of the test's own (the syncer makes each container's termination message file
 * under it), removed when the test process exits.
 */
const scratchRoots: string[] = [];
export function scratchRoot(): string {
  const dir = mkdtempSync(join(tmpdir(), 'worker-root-'));
  if (scratchRoots.length === 0)
    process.once('exit', () => {
      for (const d of scratchRoots) rmSync(d, { recursive: true, force: true });
    });
  scratchRoots.push(dir);
  return dir;
}

export function makeWorld(
  opts: {
    capacity?: number;
    seenAllSources?: () => boolean;
    podCgroups?: PodCgroupLifecycle;
    cleanupOrphanCgroups?: (keep: (uid: string) => boolean) => Promise<void>;
    cleanupOrphanPodDirs?: (keep: (uid: string) => boolean) => Promise<void>;
    runtimeHandler?: (runtimeClassName: string | undefined) => Promise<string>;
  } = {},
) {
  const clock = new ManualClock();
  const logger = recordingLogger();
  const runtime = new FakeRuntime(clock);
  const statuses = new PodStatusManager();
  const holder: { manager?: PodManager } = {};
  const probes = new ProbeManager({
    runtime,
    clock,
    logger,
    onChange: (uid) => holder.manager?.resync(uid),
  });
  const syncer = new PodSyncer({
    runtime,
    images: runtime,
    probes,
    statuses,
    clock,
    logger,
    rootDir: scratchRoot(),
    ...(opts.podCgroups !== undefined ? { podCgroups: opts.podCgroups } : {}),
    ...(opts.runtimeHandler !== undefined ? { runtimeHandler: opts.runtimeHandler } : {}),
  });
  const manager = new PodManager({
    syncer,
    runtime,
    statuses,
    clock,
    logger,
    syncFrequencyMs: 60_000,
    capacity: opts.capacity ?? 110,
    seenAllSources: opts.seenAllSources ?? (() => true),
    ...(opts.cleanupOrphanCgroups !== undefined
      ? { cleanupOrphanCgroups: opts.cleanupOrphanCgroups }
      : {}),
    ...(opts.cleanupOrphanPodDirs !== undefined
      ? { cleanupOrphanPodDirs: opts.cleanupOrphanPodDirs }
      : {}),
  });
  holder.manager = manager;
  const settle = async (): Promise<void> => {
    for (let i = 0; i < 3; i++) {
      await new Promise((r) => setImmediate(r));
      await manager.workers.idle();
    }
  };
  const advance = async (ms: number): Promise<void> => {
    clock.advance(ms);
    await settle();
  };
  return { clock, logger, runtime, statuses, syncer, manager, settle, advance };
}

export function pod(
  uid: string,
  spec: Partial<Pod['spec']> & Pick<Pod['spec'], 'containers'>,
): Pod {
  return {
    metadata: { name: `pod-${uid}`, namespace: 'default', uid },
    spec: { terminationGracePeriodSeconds: 5, ...spec },
  };
}
