// plat-apiserver's configuration: the parsed and checked flags (flags.ts) with what every stage
// after them shares, the naming profile computed once, the clock and the logger, and the parts
// an embedder plugs in without flags.
import { namesFor, type Names } from '../../common/names.js';
import type { Logger } from '../../common/log/types.js';
import { systemClock, type Clock } from '../../common/util/clock.js';
import type { ApiServerFlags } from '../flags.js';
import type { ApiServerPlugins } from '../plugins.js';

export interface ApiServerConfig {
  readonly flags: ApiServerFlags;
  /** The naming profile (--platform-profile, --platform-domain): every part reads this one. */
  readonly names: Names;
  /**
   * Parts plugged in without flags (tests, benchmarks, embedding): its authenticators and
   * admission plugins come after the configured ones; its authorizers replace the configured chain.
   */
  readonly extra: ApiServerPlugins;
  readonly clock: Clock;
  readonly logger: Logger;
}

export function apiServerConfig(
  flags: ApiServerFlags,
  logger: Logger,
  clock: Clock = systemClock,
  extra: ApiServerPlugins = {},
): ApiServerConfig {
  return {
    flags,
    names: namesFor(flags.platformProfile, flags.platformDomain),
    extra,
    clock,
    logger,
  };
}
