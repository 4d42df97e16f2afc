// The eviction manager: host signals against the configured thresholds, evicting pods under
// pressure.
import { durationMs } from '../../config/duration-field.js';
import { EvictionManager } from '../../eviction/manager.js';
import { startMemcgNotification } from '../../eviction/memcg-notification.js';
import { HostSignalObserver } from '../../eviction/observer.js';
import { RuntimeEvictablePods } from '../../eviction/pod-adapter.js';
import type { Threshold } from '../../eviction/thresholds.js';
import { localStorageLimits, storageUsageFromVolumes } from '../../eviction/local-storage.js';
import type { VolumeStatsCache } from '../../volume/stats-cache.js';
import type { EventRecorder } from '../../node/events/recorder.js';
import type { ServicesContext } from './context.js';

export function startEviction(
  ctx: ServicesContext,
  thresholds: Threshold[],
  recorder: EventRecorder,
  volumeStats: VolumeStatsCache,
): EvictionManager {
  const { agent, config, flags, clock, logger, names, nodeName } = ctx;
  const evictable = new RuntimeEvictablePods({
    pods: agent.pods,
    statuses: agent.statuses,
    runtime: agent.runtime.runtime,
    names,
    logger: logger.child({ part: 'eviction' }),
  });
  // --local-storage-capacity-isolation: pods over their local storage limits, from the volume
  // stats.
  const localStorage = localStorageLimits(config.localStorageCapacityIsolation, {
    candidates: () => evictable.candidates(),
    pod: (uid) => agent.pods.desiredPod(uid),
    usage: (uid) => storageUsageFromVolumes(volumeStats.get(uid)),
  });
  const eviction = new EvictionManager({
    thresholds,
    observer: new HostSignalObserver({
      rootDir: flags.rootDir,
      imageFs: () => agent.runtime.images.imageFsInfo(),
    }),
    pods: evictable,
    ...(localStorage !== undefined ? { localStorage } : {}),
    clock,
    logger: logger.child({ part: 'eviction' }),
    pressureTransitionPeriodMs: durationMs(
      config.evictionPressureTransitionPeriod,
      'evictionPressureTransitionPeriod',
      '--eviction-pressure-transition-period',
    ),
    maxPodGracePeriodSeconds: config.evictionMaxPodGracePeriod,
    events: recorder,
    nodeName,
  });
  ctx.loops.push(eviction.run(ctx.signal));
  // --kernel-memcg-notification: a memory notification runs the next pass at once.
  const root = config.cgroupRoot === '' ? '/' : config.cgroupRoot;
  const suffix = config.cgroupDriver === 'systemd' ? '.slice' : '';
  const podsCgroup = `${root}/${names.product}pods${suffix}`.replace(/\/+/g, '/');
  ctx.loops.push(
    startMemcgNotification({
      enabled: config.kernelMemcgNotification,
      thresholds,
      podsCgroup,
      onNotify: (reason) => eviction.wake(reason),
      logger: logger.child({ part: 'eviction' }),
      signal: ctx.signal,
    }),
  );
  return eviction;
}
