// Typed clients for the core resources the agent uses. Each takes the caller's own object type
// and its zod schema (the pod part owns the Pod type, the node part the Node type), so this folder
// does not depend on theirs, and every answer is decoded into that type:
//   const nodes = createNodeClient({ client: rest, schema: ApiNodeSchema });
// Without a schema the objects are ApiObjects (apiVersion, kind and metadata checked).
import type { z } from 'zod';
import type { Clock } from '../../common/util/clock.js';
import type { Logger } from '../../common/log/types.js';
import type { RestClient } from './rest-client.js';
import { ResourceClient, type ResourceClientOptions } from './resource-client.js';
import type { ApiObject } from './types.js';
import { ApiObjectSchema } from './api-schemas.js';

export interface TypedClientOptions {
  client: RestClient;
  clock?: Clock;
  logger?: Logger;
}

/** The options of one typed client: the caller's schema, and the API group where it is not core. */
type Typed<T extends ApiObject> = TypedClientOptions & { schema: z.ZodType<T> };

type Resource = Pick<
  ResourceClientOptions<ApiObject>,
  'group' | 'resource' | 'kind' | 'namespaced' | 'priority'
>;

function client<T extends ApiObject>(o: Typed<T>, r: Resource): ResourceClient<T> {
  return new ResourceClient<T>({
    client: o.client,
    schema: o.schema,
    version: 'v1',
    ...r,
    ...(o.clock ? { clock: o.clock } : {}),
    ...(o.logger ? { logger: o.logger } : {}),
  });
}

/** The caller's schema, or ApiObject's when it gave none. */
function typed<T extends ApiObject>(
  o: TypedClientOptions & { schema?: z.ZodType<T> },
): Typed<T> | Typed<ApiObject> {
  return o.schema === undefined ? { ...o, schema: ApiObjectSchema } : { ...o, schema: o.schema };
}

/** Nodes (cluster-scoped); ordinary calls count against --plat-api-qps. */
export type NodeClient<T extends ApiObject = ApiObject> = ResourceClient<T>;
export function createNodeClient(o: TypedClientOptions): NodeClient;
export function createNodeClient<T extends ApiObject>(o: Typed<T>): NodeClient<T>;
export function createNodeClient<T extends ApiObject>(
  o: TypedClientOptions & { schema?: z.ZodType<T> },
): NodeClient<T> | NodeClient {
  return client(typed(o), {
    group: '',
    resource: 'nodes',
    kind: 'Node',
    namespaced: false,
    priority: 'default',
  });
}

/**
 * Node heartbeat calls (status updates, leases): same resource, but excluded from
 * --plat-api-qps/--plat-api-burst (they use the heartbeat limiter of the RestClient).
 */
export function createNodeHeartbeatClient(o: TypedClientOptions): NodeClient;
export function createNodeHeartbeatClient<T extends ApiObject>(o: Typed<T>): NodeClient<T>;
export function createNodeHeartbeatClient<T extends ApiObject>(
  o: TypedClientOptions & { schema?: z.ZodType<T> },
): NodeClient<T> | NodeClient {
  return client(typed(o), {
    group: '',
    resource: 'nodes',
    kind: 'Node',
    namespaced: false,
    priority: 'heartbeat',
  });
}

/** Node leases (namespaced, in the coordination group); heartbeat calls like node status. */
export function createLeaseClient<T extends ApiObject>(
  o: Typed<T> & { group: string },
): ResourceClient<T> {
  return client(o, {
    group: o.group,
    resource: 'leases',
    kind: 'Lease',
    namespaced: true,
    priority: 'heartbeat',
  });
}

/** Pods (namespaced). */
export type PodClient<T extends ApiObject = ApiObject> = ResourceClient<T>;
export function createPodClient(o: TypedClientOptions): PodClient;
export function createPodClient<T extends ApiObject>(o: Typed<T>): PodClient<T>;
export function createPodClient<T extends ApiObject>(
  o: TypedClientOptions & { schema?: z.ZodType<T> },
): PodClient<T> | PodClient {
  return client(typed(o), {
    group: '',
    resource: 'pods',
    kind: 'Pod',
    namespaced: true,
    priority: 'default',
  });
}

/** Events (namespaced); excluded from --plat-api-qps (event limiter of the RestClient). */
export type EventClient<T extends ApiObject = ApiObject> = ResourceClient<T>;
export function createEventClient(o: TypedClientOptions): EventClient {
  return client(typed(o), {
    group: '',
    resource: 'events',
    kind: 'Event',
    namespaced: true,
    priority: 'event',
  });
}

/**
 * events.k8s.io/v1 Events (the newer recorder's group); excluded from --plat-api-qps like core
 * events.
 */
export function createEventsV1Client(o: TypedClientOptions & { group: string }): EventClient {
  return client(typed(o), {
    group: o.group,
    resource: 'events',
    kind: 'Event',
    namespaced: true,
    priority: 'event',
  });
}
