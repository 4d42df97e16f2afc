// runtimeClassName to the runtime handler, as the reference's RuntimeClass manager looks it up:
// the RuntimeClass object (node.<group domain>/v1, cluster-scoped; the Node authorizer and the
// system:node role let a node read them) read with the agent's own identity, its `handler`
// answered; none named or '' answers the default handler ''. A RuntimeClass that does not exist
// fails with the reference's lister message `runtimeclass.<group> "<name>" not found`. Read
// once per sandbox creation (they are rare), not cached: a RuntimeClass made after the pod is
// found at the next try.
import { z } from 'zod';
import type { Clock } from '../../common/util/clock.js';
import type { Logger } from '../../common/log/types.js';
import { ApiError, RuntimeError, userMessage } from '../../common/util/errors.js';
import type { RestClient } from '../client/rest-client.js';
import { ResourceClient } from '../client/resource-client.js';
import { ObjectMetaSchema } from '../client/api-schemas.js';

const RUNTIME_CLASS_SCHEMA = z.looseObject({
  metadata: ObjectMetaSchema.exactOptional(),
  handler: z.string().max(63),
});

/** The RuntimeClass does not exist (the reference's NotFound from its lister). */
export class RuntimeClassNotFoundError extends RuntimeError {
  constructor(group: string, name: string) {
    super(`runtimeclass.${group} "${name}" not found`);
  }
}

/** The handler of a runtimeClassName; throws when it cannot be known. */
export type RuntimeHandlerLookup = (runtimeClassName: string | undefined) => Promise<string>;

export function apiRuntimeHandlers(o: {
  rest: RestClient;
  /** The RuntimeClass API group (names.groups.node). */
  group: string;
  clock: Clock;
  logger: Logger;
}): RuntimeHandlerLookup {
  const client = new ResourceClient({
    client: o.rest,
    schema: RUNTIME_CLASS_SCHEMA,
    group: o.group,
    version: 'v1',
    resource: 'runtimeclasses',
    kind: 'RuntimeClass',
    namespaced: false,
    clock: o.clock,
    logger: o.logger,
  });
  return async (name) => {
    if (name === undefined || name === '') return '';
    try {
      return (await client.get(name)).handler;
    } catch (err) {
      if (err instanceof ApiError && err.status === 404)
        throw new RuntimeClassNotFoundError(o.group, name);
      throw new RuntimeError(`failed to lookup RuntimeClass ${name}: ${userMessage(err)}`, {
        cause: err,
      });
    }
  };
}

/**
 * Without an API server there is no RuntimeClass to read: as the reference's kubelet (no
 * RuntimeClass manager without a client), the default handler runs the pod; said once per name.
 */
export function standaloneRuntimeHandlers(logger: Logger): RuntimeHandlerLookup {
  const said = new Set<string>();
  return (name) => {
    if (name !== undefined && name !== '' && !said.has(name) && said.size < 1000) {
      said.add(name);
      logger.warn(
        { runtimeClassName: name },
        'runtimeClassName is not looked up without an API server (as the reference ' +
          'kubelet): the runtime default handler runs the pod',
      );
    }
    return Promise.resolve('');
  };
}
