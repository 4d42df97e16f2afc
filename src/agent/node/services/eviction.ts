// The eviction manager: host signals against the configured thresholds, evicting pods under
// pressure.
import { durationMs } from '../../config/duration-field.js';
import { EvictionManager } from '../../eviction/manager.js';
import { HostSignalObserver } from '../../eviction/observer.js';
import { RuntimeEvictablePods } from '../../eviction/pod-adapter.js';
import type { Threshold } from '../../eviction/thresholds.js';
import type { EventRecorder } from '../events/recorder.js';
import type { ServicesContext } from './context.js';

export function startEviction(ctx: ServicesContext, thresholds: Threshold[], recorder: EventRecorder): EvictionManager {
  const { agent, config, flags, clock, logger, names, nodeName } = ctx;
  const eviction = new EvictionManager({
    thresholds,
    observer: new HostSignalObserver({ rootDir: flags.rootDir, imageFs: () => agent.runtime.images.imageFsInfo() }),
    pods: new RuntimeEvictablePods({ pods: agent.pods, statuses: agent.statuses, runtime: agent.runtime.runtime, names }),
    clock,
    logger: logger.child({ part: 'eviction' }),
    pressureTransitionPeriodMs: durationMs(config.evictionPressureTransitionPeriod, 'evictionPressureTransitionPeriod', '--eviction-pressure-transition-period'),
    maxPodGracePeriodSeconds: config.evictionMaxPodGracePeriod,
    events: recorder,
    nodeName,
  });
  ctx.loops.push(eviction.run(ctx.signal));
  return eviction;
}
