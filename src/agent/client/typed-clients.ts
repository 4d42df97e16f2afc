// Typed clients for the core resources the agent uses. Each takes the caller's own object type
// (the pod part owns the Pod type, the node part the Node type), so this folder does not depend
// on theirs:  const nodes = createNodeClient<Node>({ client: rest });
import type { Clock } from '../../common/util/clock.js';
import type { Logger } from '../../common/log/types.js';
import type { RestClient } from './rest-client.js';
import { ResourceClient } from './resource-client.js';
import type { ApiObject } from './types.js';

export interface TypedClientOptions {
  client: RestClient;
  clock?: Clock;
  logger?: Logger;
}

function core<T extends ApiObject>(o: TypedClientOptions, resource: string, kind: string, namespaced: boolean, priority: 'default' | 'event' | 'heartbeat'): ResourceClient<T> {
  return new ResourceClient<T>({
    client: o.client,
    group: '',
    version: 'v1',
    resource,
    kind,
    namespaced,
    priority,
    ...(o.clock ? { clock: o.clock } : {}),
    ...(o.logger ? { logger: o.logger } : {}),
  });
}

/** Nodes (cluster-scoped); ordinary calls count against --plat-api-qps. */
export type NodeClient<T extends ApiObject = ApiObject> = ResourceClient<T>;
export function createNodeClient<T extends ApiObject = ApiObject>(o: TypedClientOptions): NodeClient<T> {
  return core<T>(o, 'nodes', 'Node', false, 'default');
}

/**
 * Node heartbeat calls (status updates, leases): same resource, but excluded from
 * --plat-api-qps/--plat-api-burst (they use the heartbeat limiter of the RestClient).
 */
export function createNodeHeartbeatClient<T extends ApiObject = ApiObject>(o: TypedClientOptions): NodeClient<T> {
  return core<T>(o, 'nodes', 'Node', false, 'heartbeat');
}

/** Node leases (namespaced, in the coordination group); heartbeat calls like node status. */
export function createLeaseClient<T extends ApiObject = ApiObject>(o: TypedClientOptions & { group: string }): ResourceClient<T> {
  return new ResourceClient<T>({
    client: o.client,
    group: o.group,
    version: 'v1',
    resource: 'leases',
    kind: 'Lease',
    namespaced: true,
    priority: 'heartbeat',
    ...(o.clock ? { clock: o.clock } : {}),
    ...(o.logger ? { logger: o.logger } : {}),
  });
}

/** Pods (namespaced). */
export type PodClient<T extends ApiObject = ApiObject> = ResourceClient<T>;
export function createPodClient<T extends ApiObject = ApiObject>(o: TypedClientOptions): PodClient<T> {
  return core<T>(o, 'pods', 'Pod', true, 'default');
}

/** Events (namespaced); excluded from --plat-api-qps (event limiter of the RestClient). */
export type EventClient<T extends ApiObject = ApiObject> = ResourceClient<T>;
export function createEventClient<T extends ApiObject = ApiObject>(o: TypedClientOptions): EventClient<T> {
  return core<T>(o, 'events', 'Event', true, 'event');
}

/** events.k8s.io/v1 Events (the newer recorder's group); excluded from --plat-api-qps like core events. */
export function createEventsV1Client<T extends ApiObject = ApiObject>(o: TypedClientOptions & { group: string }): EventClient<T> {
  return new ResourceClient<T>({
    client: o.client,
    group: o.group,
    version: 'v1',
    resource: 'events',
    kind: 'Event',
    namespaced: true,
    priority: 'event',
    ...(o.clock ? { clock: o.clock } : {}),
    ...(o.logger ? { logger: o.logger } : {}),
  });
}
