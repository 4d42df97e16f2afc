// The node part's NodeApi and EventSink over the REST client's typed clients.

import type { ResourceClient } from '../client/resource-client.js';
import type { ApiObject } from '../client/types.js';
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
