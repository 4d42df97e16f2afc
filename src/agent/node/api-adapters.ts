// The node part's NodeApi and EventSinks over the REST client's typed clients.

import type { ResourceClient } from '../client/resource-client.js';
import type { RestClient } from '../client/rest-client.js';
import { createEventClient, createEventsV1Client } from '../client/typed-clients.js';
import type { ApiObject } from '../client/types.js';
import type { Logger } from '../../common/log/types.js';
import type { Clock } from '../../common/util/clock.js';
import { eventsV1Sink, NegotiatedEventSink } from './events/events-v1-sink.js';
import type { CoreEvent, EventSink } from './events/types.js';
import type { Node, NodeApi } from './types.js';

export function nodeApiFrom(nodes: ResourceClient<ApiObject>, heartbeat: ResourceClient<ApiObject> = nodes): NodeApi {
  return {
    get: async (name, signal) => (await nodes.get(name, signal ? { signal } : {})) as unknown as Node,
    create: async (node, signal) => (await nodes.create({ apiVersion: 'v1', kind: 'Node', ...node } as unknown as ApiObject, signal ? { signal } : {})) as unknown as Node,
    patch: async (name, patch, signal) => (await nodes.patch(name, patch, { type: 'merge', ...(signal ? { signal } : {}) })) as unknown as Node,
    patchStatus: async (name, patch, signal) => (await heartbeat.patch(name, patch, { type: 'merge', subresource: 'status', ...(signal ? { signal } : {}) })) as unknown as Node,
  };
}

export function eventSinkFrom(events: ResourceClient<ApiObject>): EventSink {
  return {
    create: (namespace, event: CoreEvent, signal) => events.create(event as unknown as ApiObject, { namespace, ...(signal ? { signal } : {}) }),
    patch: (namespace, name, patch, signal) => events.patch(name, patch, { type: 'merge', namespace, ...(signal ? { signal } : {}) }),
  };
}

export interface NegotiatedEventSinkOptions {
  readonly rest: RestClient;
  /** The events API group of the profile (events.<domain>). */
  readonly group: string;
  readonly clock: Clock;
  readonly logger: Logger;
}

/** The recorder's sink: events.k8s.io/v1 when the server's discovery lists it, else core/v1. */
export function negotiatedEventSinkFrom(o: NegotiatedEventSinkOptions): NegotiatedEventSink {
  const groupVersion = `${o.group}/v1`;
  const v1 = createEventsV1Client({ client: o.rest, group: o.group, clock: o.clock, logger: o.logger });
  return new NegotiatedEventSink({
    preferred: eventsV1Sink(
      {
        create: (body, opts) => v1.create(body as unknown as ApiObject, opts),
        patch: (name, patch, opts) => v1.patch(name, patch, opts),
      },
      groupVersion,
      () => o.clock.now(),
    ),
    fallback: eventSinkFrom(createEventClient({ client: o.rest, clock: o.clock, logger: o.logger })),
    served: async (signal) => {
      const doc = await o.rest.request<{ resources?: { name?: unknown }[] }>({ path: `/apis/${groupVersion}`, priority: 'event', ...(signal ? { signal } : {}) });
      return (doc.resources ?? []).some((r) => r.name === 'events');
    },
    groupVersion,
    logger: o.logger,
  });
}
