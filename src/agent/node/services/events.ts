// The event recorder (to the API server, or to the log when there is none), the client
// certificate's expiry events, and the pod events from status and runtime changes.
import type { Logger } from '../../../common/log/types.js';
import { negotiatedEventSinkFrom } from '../api-adapters.js';
import { ClientCertificateWatch } from '../events/client-certificate.js';
import { EventRecorder } from '../events/recorder.js';
import type { EventSink, ObjectReference } from '../events/types.js';
import { reportPods } from '../pod-reporting.js';
import type { ServicesContext } from './context.js';

/** Without an API server, events go to the log only (debug level, as the reference logs them at -v). */
function logSink(logger: Logger): EventSink {
  return {
    create: (_ns, e) => Promise.resolve(void logger.debug({ object: `${e.involvedObject.kind}/${e.involvedObject.name}`, type: e.type, reason: e.reason }, e.message)),
    patch: () => Promise.resolve(),
  };
}

export function nodeReference(nodeName: string): ObjectReference {
  return { kind: 'Node', name: nodeName, uid: nodeName };
}

/** Starts the recorder and what reports through it. */
export function startEvents(ctx: ServicesContext): EventRecorder {
  const { agent, config, clock, logger, rest, metrics, signal, names, nodeName } = ctx;
  const recorder = new EventRecorder({
    // events.k8s.io/v1 when discovery lists it and this user may write it (the newer recorder), else core/v1.
    sink: rest !== undefined ? negotiatedEventSinkFrom({ rest, group: names.groups.events, clock, logger: logger.child({ part: 'events' }) }) : logSink(logger),
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
  if (rest !== undefined) {
    const clientCert = new ClientCertificateWatch({ rest, clock, logger, nodeName, events: recorder });
    ctx.ttl.client = () => clientCert.ttlSeconds();
    ctx.loops.push(clientCert.run(signal));
  }
  reportPods({
    statuses: agent.statuses,
    pods: agent.pods,
    images: agent.runtime.images,
    containerEvents: (listener) => agent.runtime.runtime.onEvent(listener),
    events: recorder,
    podStartDuration: metrics.podStartDuration,
    clock,
    processStartMs: clock.nowMs() - process.uptime() * 1000,
  });
  return recorder;
}
