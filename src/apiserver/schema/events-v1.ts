// The known fields of events.k8s.io/v1 Event (the reference's k8s.io/api/events/v1 types): the
// same stored object as core/v1 Event under other names (see registry/resources/events-v1.ts).
import { objectReference, topLevel } from './meta.js';
import { int32, microTime, obj, str, time } from './types.js';

const EVENTS_PKG = 'io.k8s.api.events.v1';

export const eventsV1Event = topLevel(
  'v1.Event',
  {
    eventTime: microTime,
    series: obj(
      'v1.EventSeries',
      { count: int32, lastObservedTime: microTime },
      { pkg: EVENTS_PKG, required: ['count', 'lastObservedTime'] },
    ),
    reportingController: str,
    reportingInstance: str,
    action: str,
    reason: str,
    regarding: objectReference,
    related: objectReference,
    note: str,
    type: str,
    deprecatedSource: obj('v1.EventSource', { component: str, host: str }),
    deprecatedFirstTimestamp: time,
    deprecatedLastTimestamp: time,
    deprecatedCount: int32,
  },
  { pkg: EVENTS_PKG, required: ['eventTime'] },
);

/** Whether an object's apiVersion is events.<domain>/v1 (its kind `Event` then has this schema). */
export function isEventsV1(apiVersion: unknown): boolean {
  return typeof apiVersion === 'string' && /^events\.[^/]+\/v1$/.test(apiVersion);
}
