// The token cleaner, as the reference's tokencleaner controller: deletes bootstrap token Secrets
// in the system namespace once they expire (with the Secret's UID as precondition, so a
// re-created token is not removed). It sweeps at start, on every change of a Secret there, and
// when the next token expires; time goes through the injected clock.

import type { Clock } from '../../common/util/clock.js';
import type { Logger } from '../../common/log/types.js';
import { StatusError } from '../status.js';
import type { Registry } from '../registry/registry.js';
import type { ResourceDef } from '../registry/types.js';
import { prefixEnd, StoreReadError } from '../storage/store.js';
import { bootstrapTokenSecretType, expired, expiresAtMs, SYSTEM_NAMESPACE } from './token.js';
import type { UserInfo } from '../../common/auth/user.js';
import { REFERENCE_NAMES } from '../../common/names.js';
import { recordOf } from '../../common/util/json-shape.js';

export interface TokenCleanerOptions {
  readonly registry: Registry;
  readonly secretDef: ResourceDef;
  readonly platformDomain: string;
  /** Where the token Secrets live: the profile's system namespace (the reference's kube-system). */
  readonly namespace?: string;
  readonly clock: Clock;
  readonly logger: Logger;
}

const CLEANER_USER: UserInfo = {
  username: `system:serviceaccount:${REFERENCE_NAMES.namespaces.system}:token-cleaner`,
  groups: ['system:serviceaccounts', 'system:masters'],
};
/** Sweep at least this often, whatever the next expiry (a safety net against a missed change). */
const MAX_SLEEP_MS = 10 * 60_000;

/** Deletes expired tokens; returns when the next one expires (ms since the epoch), if any. */
export async function sweepExpiredTokens(o: TokenCleanerOptions): Promise<number | undefined> {
  const { registry } = o;
  const from = registry.prefix(o.secretDef, o.namespace ?? SYSTEM_NAMESPACE);
  const type = bootstrapTokenSecretType(o.platformDomain);
  let next: number | undefined;
  for (const row of registry.store.rangeRaw(
    from,
    prefixEnd(from),
    registry.store.currentRevision(),
  )) {
    let secret: Record<string, unknown>;
    try {
      secret = await registry.store.decode(row.key, row.rv, row.value);
    } catch (err) {
      if (err instanceof StoreReadError) continue;
      throw err;
    }
    if (secret['type'] !== type) continue;
    const meta = recordOf(secret['metadata']);
    const name = typeof meta['name'] === 'string' ? meta['name'] : '';
    if (!expired(secret, o.clock.now())) {
      const at = expiresAtMs(secret);
      if (at !== undefined) next = next === undefined ? at : Math.min(next, at);
      continue;
    }
    try {
      await registry.delete(o.secretDef, o.namespace ?? SYSTEM_NAMESPACE, name, {
        user: CLEANER_USER,
        dryRun: false,
        gracePeriodSeconds: undefined,
        preconditions: { uid: typeof meta['uid'] === 'string' ? meta['uid'] : '' },
        propagationPolicy: undefined,
        orphanDependents: undefined,
        ignoreStoreReadError: false,
      });
      o.logger.info(
        { secret: `${o.namespace ?? SYSTEM_NAMESPACE}/${name}` },
        'deleted expired bootstrap token',
      );
    } catch (err) {
      // Gone meanwhile, or re-created under the same name (another UID): nothing to do.
      if (!(err instanceof StatusError) || (err.status !== 404 && err.status !== 409)) throw err;
    }
  }
  return next;
}

export async function runTokenCleaner(o: TokenCleanerOptions, signal: AbortSignal): Promise<void> {
  const prefix = o.registry.prefix(o.secretDef, o.namespace ?? SYSTEM_NAMESPACE);
  let wake: AbortController = new AbortController();
  const unsubscribe = o.registry.store.subscribe((c) => {
    if (c.key.startsWith(prefix)) wake.abort();
  });
  const onStop = (): void => wake.abort();
  signal.addEventListener('abort', onStop, { once: true });
  try {
    while (!signal.aborted) {
      wake = new AbortController();
      let next: number | undefined;
      try {
        next = await sweepExpiredTokens(o);
      } catch (err) {
        o.logger.error({ err }, 'token cleaner sweep failed; retrying in a minute');
        next = o.clock.nowMs() + 60_000;
      }
      const ms =
        next === undefined
          ? MAX_SLEEP_MS
          : Math.min(MAX_SLEEP_MS, Math.max(0, next - o.clock.nowMs()) + 1);
      // the signal may abort during the sweep's awaits
      // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition
      if (signal.aborted) break;
      await o.clock.sleep(ms, wake.signal).catch(() => undefined);
    }
  } finally {
    unsubscribe();
    signal.removeEventListener('abort', onStop);
  }
}
