// Volume usage (--volume-stats-agg-period): each pod's emptyDir directories measured at start and
// every period, for /stats/summary and local storage eviction.
import { durationMs } from '../../config/duration-field.js';
import { emptyDirVolumes } from '../../volume/pod-volumes.js';
import { VolumeStatsCache } from '../../volume/stats-cache.js';
import { measureDirectory } from '../../volume/usage.js';
import type { ServicesContext } from './context.js';

export function startVolumeStats(ctx: ServicesContext): VolumeStatsCache {
  const cache = new VolumeStatsCache({
    clock: ctx.clock,
    logger: ctx.logger.child({ part: 'volume-stats' }),
    periodMs: durationMs(
      ctx.config.volumeStatsAggPeriod,
      'volumeStatsAggPeriod',
      '--volume-stats-agg-period',
    ),
    pods: emptyDirVolumes(() => ctx.agent.pods.desiredPods(), ctx.flags.rootDir),
    measure: measureDirectory,
  });
  ctx.loops.push(cache.run(ctx.signal));
  return cache;
}
