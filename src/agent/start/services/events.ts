// The event recorder (to the API server, or to the log when there is none), the client
// certificate's expiry events, and the pod events from status and runtime changes.
import { DEFAULT_HOST_PATHS, activeSwaps, detectCgroupVersion } from '../../cli/host-checks.js';
import { hostTmpfsNoswap } from '../../volume/mounts.js';
import type { Logger } from '../../../common/log/types.js';
import { createEventClient } from '../../client/typed-clients.js';
import { gateLookup } from '../../config/validate.js';
import { eventSinkFrom, negotiatedEventSinkFrom } from '../../node/api-adapters.js';
import { ClientCertificateWatch } from '../../node/events/client-certificate.js';
import { EventRecorder } from '../../node/events/recorder.js';
import type { EventSink, ObjectReference } from '../../node/events/types.js';
import { reportPods } from '../../node/pod-reporting.js';
import { podRef } from '../../node/events/pod-events.js';
import type { ServicesContext } from './context.js';

/**
 * Without an API server, events go to the log only (debug level, as the reference logs them at -v).
 */
function logSink(logger: Logger): EventSink {
  return {
    create: (_ns, e) => {
      logger.debug(
        {
          object: `${e.involvedObject.kind}/${e.involvedObject.name}`,
          type: e.type,
          reason: e.reason,
        },
        e.message,
      );
      return Promise.resolve();
    },
    patch: () => Promise.resolve(),
  };
}

export function nodeReference(nodeName: string): ObjectReference {
  return { kind: 'Node', name: nodeName, uid: nodeName };
}

/**
 * Events to the API server: core/v1 with `source`, as the reference's kubelet writes them; with the
 * PlatletEventsV1Recorder gate, events.k8s.io/v1 when discovery lists it and this user may write
 * it (the newer recorder), falling back to core/v1 (said once).
 */
function apiSink(ctx: ServicesContext): EventSink | undefined {
  const { rest, clock, logger, names, config } = ctx;
  if (rest === undefined) return undefined;
  if (gateLookup(config.featureGates)('PlatletEventsV1Recorder'))
    return negotiatedEventSinkFrom({
      rest,
      group: names.groups.events,
      clock,
      logger: logger.child({ part: 'events' }),
    });
  return eventSinkFrom(createEventClient({ client: rest, clock, logger }));
}

/** The reference's warning on a cgroup v1 host, once at start, on the node. */
async function warnOfCgroupV1(recorder: EventRecorder, nodeName: string): Promise<void> {
  if ((await detectCgroupVersion(DEFAULT_HOST_PATHS.cgroupRoot)) !== 'v1') return;
  recorder.event(
    nodeReference(nodeName),
    'Warning',
    'CgroupV1',
    'cgroup v1 support is in maintenance mode, please migrate to cgroup v2',
  );
}

/** The reference's warning when swap is on and tmpfs cannot keep memory-backed volumes off it. */
async function warnOfSwappableVolumes(recorder: EventRecorder, nodeName: string): Promise<void> {
  if ((await activeSwaps(DEFAULT_HOST_PATHS.swaps).catch(() => [])).length === 0) return;
  if (await hostTmpfsNoswap()) return;
  recorder.event(
    nodeReference(nodeName),
    'Warning',
    'PossibleMemoryBackedVolumesOnDisk',
    'The tmpfs noswap option is not supported. Memory-backed volumes (e.g. secrets, emptyDirs, ' +
      'etc.) might be swapped to disk and should no longer be considered secure.',
  );
}

/** Starts the recorder and what reports through it. */
export function startEvents(ctx: ServicesContext): EventRecorder {
  const { agent, config, clock, logger, rest, metrics, signal, names, nodeName } = ctx;
  const recorder = new EventRecorder({
    sink: apiSink(ctx) ?? logSink(logger),
    clock,
    logger: logger.child({ part: 'events' }),
    host: nodeName,
    component: names.agentEventComponent,
    qps: config.eventRecordQPS,
    burst: config.eventBurst,
    onDrop: (reason) => metrics.eventsDropped.inc({ reason }),
  });
  recorder.start(signal);
  recorder.event(nodeReference(nodeName), 'Normal', 'Starting', 'Starting nodeagent.');
  void warnOfCgroupV1(recorder, nodeName);
  void warnOfSwappableVolumes(recorder, nodeName);
  if (rest !== undefined) {
    const clientCert = new ClientCertificateWatch({
      rest,
      clock,
      logger,
      nodeName,
      events: recorder,
    });
    ctx.ttl.client = () => clientCert.ttlSeconds();
    ctx.loops.push(clientCert.run(signal));
  }
  reportPods({
    statuses: agent.statuses,
    events: recorder,
    podStartDuration: metrics.podStartDuration,
    clock,
    processStartMs: clock.nowMs() - process.uptime() * 1000,
  });
  agent.volumes.setEvents({
    failedMount: (pod, message) => {
      recorder.event(podRef(pod), 'Warning', 'FailedMount', message);
    },
  });
  return recorder;
}
