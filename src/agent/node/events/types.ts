// Event shapes (core v1 Event, as the reference's legacy recorder writes them) and the sink the
// recorder writes to (src/agent.ts adapts the REST client's EventClient to it).

export interface ObjectReference {
  kind: string;
  namespace?: string;
  name: string;
  uid?: string;
  apiVersion?: string;
  resourceVersion?: string;
  fieldPath?: string;
}

export type EventType = 'Normal' | 'Warning';

export interface CoreEvent {
  apiVersion: 'v1';
  kind: 'Event';
  metadata: { name: string; namespace: string; resourceVersion?: string };
  involvedObject: ObjectReference;
  reason: string;
  message: string;
  source: { component: string; host: string };
  firstTimestamp: string;
  lastTimestamp: string;
  count: number;
  type: EventType;
  eventTime: null;
  reportingComponent: string;
  reportingInstance: string;
}

export interface EventSink {
  create(namespace: string, event: CoreEvent, signal?: AbortSignal): Promise<unknown>;
  /** A JSON merge patch raising count and lastTimestamp (and the message) of an existing event. */
  patch(
    namespace: string,
    name: string,
    patch: Partial<CoreEvent>,
    signal?: AbortSignal,
  ): Promise<unknown>;
}
