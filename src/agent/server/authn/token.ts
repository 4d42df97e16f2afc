// Bearer tokens checked by a TokenReview at the API server, with the reference's cache: both
// authenticated and unauthenticated answers are kept for the cache TTL (keyed by a hash, so the
// token itself is never held as a key or logged); failures to reach the API server are not cached
// and surface as AuthUnavailableError (500), never as a pass.

import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Clock } from '../../../common/util/clock.js';
import { TtlCache } from '../../../common/util/ttl-cache.js';
import {
  AuthUnavailableError,
  type AuthenticationResult,
  type Authenticator,
  type TokenReviewStatus,
  type TokenReviewer,
} from '../types.js';
import { bearerToken } from '../../../common/auth/bearer-token.js';
import { userMessage } from '../../../common/util/errors.js';

export interface TokenWebhookAuthenticatorOptions {
  reviewer: TokenReviewer;
  cacheTtlMs: number;
  clock: Clock;
  /** Bound on one review call; default 10 s. */
  timeoutMs?: number;
}

export class TokenWebhookAuthenticator implements Authenticator {
  // One review in flight per token: a burst of requests with the same token makes one call.
  private readonly cache: TtlCache<TokenReviewStatus, string>;

  constructor(private readonly options: TokenWebhookAuthenticatorOptions) {
    this.cache = new TtlCache({
      clock: options.clock,
      load: async (_key, token) => ({ value: await this.review(token), ttlMs: options.cacheTtlMs }),
    });
  }

  async authenticate(req: IncomingMessage): Promise<AuthenticationResult> {
    const header = req.headers.authorization;
    if (header === undefined) return { kind: 'no-opinion' };
    const token = bearerToken(req);
    if (token === undefined) return { kind: 'rejected', reason: 'malformed Authorization header' };
    const key = createHash('sha256').update(token).digest('hex');
    const status = await this.cache.get(key, token);
    if (!status.authenticated || status.user === undefined || status.user.username === '') {
      return {
        kind: 'rejected',
        reason: `invalid bearer token${status.error ? `: ${status.error}` : ''}`,
      };
    }
    return {
      kind: 'authenticated',
      user: { ...status.user, groups: status.user.groups },
      method: 'token',
    };
  }

  private async review(token: string): Promise<TokenReviewStatus> {
    try {
      return await this.options.reviewer.review(
        token,
        AbortSignal.timeout(this.options.timeoutMs ?? 10_000),
      );
    } catch (err) {
      throw new AuthUnavailableError(`token review failed: ${userMessage(err)}`, {
        cause: err,
      });
    }
  }
}
