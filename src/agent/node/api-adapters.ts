// The node part's NodeApi and EventSinks over the REST client's typed clients.

import { z } from 'zod';
import type { ResourceClient } from '../client/resource-client.js';
import { decodeAnswer } from '../client/api-schemas.js';
import type { RestClient } from '../client/rest-client.js';
import { createEventClient, createEventsV1Client } from '../client/typed-clients.js';
import type { ApiObject } from '../client/types.js';
import type { Logger } from '../../common/log/types.js';
import type { Clock } from '../../common/util/clock.js';
import { eventsV1Sink, NegotiatedEventSink } from './events/events-v1-sink.js';
import type { CoreEvent, EventSink } from './events/types.js';
import type { NodeApi } from './types.js';
import type { ApiNode } from './api-node.js';

/** A group version's discovery document: the resource names are what the recorder reads. */
const APIResourceListSchema = z.looseObject({
  resources: z.array(z.looseObject({ name: z.string() })).exactOptional(),
});

/**
 * The node calls over typed node clients (decoding with ApiNodeSchema); heartbeat takes the status
 * patches.
 */
export function nodeApiFrom(
  nodes: ResourceClient<ApiNode>,
  heartbeat: ResourceClient<ApiNode> = nodes,
): NodeApi {
  return {
    get: (name, signal, opts) =>
      nodes.get(name, {
        ...(signal ? { signal } : {}),
        ...(opts?.cached === true ? { resourceVersion: '0' } : {}),
      }),
    create: (node, signal) => nodes.create(node, signal ? { signal } : {}),
    patch: (name, patch, signal) =>
      nodes.patch(name, patch, { type: 'merge', ...(signal ? { signal } : {}) }),
    patchStatus: (name, patch, signal) =>
      heartbeat.patch(name, patch, {
        type: 'strategic',
        subresource: 'status',
        ...(signal ? { signal } : {}),
      }),
  };
}

export function eventSinkFrom(events: ResourceClient<ApiObject>): EventSink {
  return {
    create: (namespace, event: CoreEvent, signal) =>
      events.create(event, { namespace, ...(signal ? { signal } : {}) }),
    patch: (namespace, name, patch, signal) =>
      events.patch(name, patch, { type: 'merge', namespace, ...(signal ? { signal } : {}) }),
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
  const v1 = createEventsV1Client({
    client: o.rest,
    group: o.group,
    clock: o.clock,
    logger: o.logger,
  });
  return new NegotiatedEventSink({
    preferred: eventsV1Sink(
      {
        create: (body, opts) => v1.create(body, opts),
        patch: (name, patch, opts) => v1.patch(name, patch, opts),
      },
      groupVersion,
      () => o.clock.now(),
    ),
    fallback: eventSinkFrom(
      createEventClient({ client: o.rest, clock: o.clock, logger: o.logger }),
    ),
    served: async (signal) => {
      const path = `/apis/${groupVersion}`;
      const answer = await o.rest.request({
        path,
        priority: 'event',
        ...(signal ? { signal } : {}),
      });
      const doc = decodeAnswer(APIResourceListSchema, answer, `GET ${path}`, 'APIResourceList');
      return (doc.resources ?? []).some((r) => r.name === 'events');
    },
    groupVersion,
    logger: o.logger,
  });
}
