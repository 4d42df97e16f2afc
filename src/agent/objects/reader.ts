// ConfigMaps and Secrets read from the API server with the agent's own credentials: one get, or
// a watch of one object (fieldSelector metadata.name=<name>, as the reference's watch-based
// manager opens it, which the Node authorizer allows for objects of pods bound to the node).
import type { Clock } from '../../common/util/clock.js';
import type { Logger } from '../../common/log/types.js';
import { ApiError } from '../../common/util/errors.js';
import type { RestClient } from '../client/rest-client.js';
import { ResourceClient } from '../client/resource-client.js';
import type { WatchEvent } from '../client/types.js';
import {
  CONFIGMAP_SCHEMA,
  ObjectNotFoundError,
  resourceOf,
  toPodObject,
  type ObjectKind,
  type PodObject,
  type RawObject,
} from './types.js';

export interface ObjectReader {
  /**
   * The object now; ObjectNotFoundError (the API's message: `configmaps "x" not found`) when
   * absent.
   */
  get(kind: ObjectKind, namespace: string, name: string, signal?: AbortSignal): Promise<PodObject>;
  /** A watch of the one object: its list first (RELIST), then its changes. */
  watch(
    kind: ObjectKind,
    namespace: string,
    name: string,
    signal: AbortSignal,
  ): AsyncGenerator<WatchEvent<RawObject>>;
}

export function apiObjectReader(o: {
  rest: RestClient;
  clock: Clock;
  logger: Logger;
}): ObjectReader {
  const clients = new Map<ObjectKind, ResourceClient<RawObject>>();
  const client = (kind: ObjectKind): ResourceClient<RawObject> => {
    let c = clients.get(kind);
    if (c === undefined) {
      c = new ResourceClient<RawObject>({
        client: o.rest,
        schema: CONFIGMAP_SCHEMA,
        group: '',
        version: 'v1',
        resource: resourceOf(kind),
        kind,
        namespaced: true,
        clock: o.clock,
        logger: o.logger,
      });
      clients.set(kind, c);
    }
    return c;
  };
  return {
    async get(kind, namespace, name, signal) {
      try {
        const raw = await client(kind).get(name, { namespace, ...(signal ? { signal } : {}) });
        return toPodObject(kind, raw, namespace, name);
      } catch (err) {
        if (err instanceof ApiError && err.status === 404)
          throw new ObjectNotFoundError(kind, name, `${resourceOf(kind)} "${name}" not found`);
        throw err;
      }
    },
    watch(kind, namespace, name, signal) {
      return client(kind).watch({
        namespace,
        fieldSelector: `metadata.name=${name}`,
        signal,
      });
    },
  };
}
