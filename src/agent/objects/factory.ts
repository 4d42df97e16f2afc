// The object manager configMapAndSecretChangeDetectionStrategy names (Watch, Cache, Get), over
// the agent's API client; without an API server, none (pods that refer to objects cannot run).
import type { Clock } from '../../common/util/clock.js';
import type { Logger } from '../../common/log/types.js';
import type { RestClient } from '../client/rest-client.js';
import { CachingObjectManager, GettingObjectManager } from './cache-manager.js';
import { apiObjectReader } from './reader.js';
import type { PodObjects } from './types.js';
import { WatchingObjectManager } from './watch-manager.js';

export function podObjectManager(o: {
  strategy: string;
  rest: RestClient;
  clock: Clock;
  logger: Logger;
}): PodObjects {
  const reader = apiObjectReader(o);
  switch (o.strategy) {
    case 'Get':
      return new GettingObjectManager({ reader });
    case 'Cache':
      return new CachingObjectManager({ reader, clock: o.clock });
    default:
      return new WatchingObjectManager({ reader, clock: o.clock, logger: o.logger });
  }
}
