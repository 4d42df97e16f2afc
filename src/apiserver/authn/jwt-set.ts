// The JWT authenticators of an AuthenticationConfiguration as one Authenticator: a token is
// judged only by the authenticator of the issuer it names. Successful authentications are cached
// for a short time (the reference's token success cache, 10 s by default), never past the
// token's own `exp`; failures are not cached.
import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { decodeJwt } from 'jose';
import type { Clock } from '../../common/util/clock.js';
import type { AuthenticationResult, Authenticator } from '../interfaces.js';
import type { UserInfo } from '../../common/auth/user.js';
import type { JwtAuthenticator } from './jwt.js';
import { bearerToken } from '../../common/auth/bearer-token.js';

export const DEFAULT_TOKEN_SUCCESS_CACHE_TTL_MS = 10_000;
const CACHE_SIZE = 4096;

export interface JwtAuthenticatorSetOptions {
  readonly authenticators: readonly JwtAuthenticator[];
  readonly clock: Clock;
  /** 0 disables the cache. */
  readonly successCacheTtlMs?: number;
}

export class JwtAuthenticatorSet implements Authenticator {
  private readonly byIssuer: Map<string, JwtAuthenticator>;
  private readonly clock: Clock;
  private readonly ttlMs: number;
  /** sha256(token) → user, until `untilMs`; insertion order approximates age for eviction. */
  private readonly cache = new Map<string, { user: UserInfo; untilMs: number }>();
  /** Full verifications done (cache misses), for tests and metrics. */
  verifications = 0;

  constructor(opts: JwtAuthenticatorSetOptions) {
    this.byIssuer = new Map(opts.authenticators.map((a) => [a.issuerUrl, a]));
    this.clock = opts.clock;
    this.ttlMs = opts.successCacheTtlMs ?? DEFAULT_TOKEN_SUCCESS_CACHE_TTL_MS;
  }

  async authenticate(req: IncomingMessage): Promise<AuthenticationResult> {
    const token = bearerToken(req);
    if (token?.split('.').length !== 3) return { kind: 'no-opinion' };
    let claims: { iss?: unknown; exp?: unknown };
    try {
      claims = decodeJwt(token);
    } catch {
      return { kind: 'no-opinion' };
    }
    const a = typeof claims.iss === 'string' ? this.byIssuer.get(claims.iss) : undefined;
    if (a === undefined) return { kind: 'no-opinion' };
    const now = this.clock.nowMs();
    const id = this.ttlMs > 0 ? createHash('sha256').update(token).digest('base64') : '';
    if (this.ttlMs > 0) {
      const hit = this.cache.get(id);
      if (hit !== undefined && hit.untilMs > now) return { kind: 'authenticated', user: hit.user };
      if (hit !== undefined) this.cache.delete(id);
    }
    this.verifications++;
    const r = await a.verify(token);
    if (r.kind === 'authenticated' && this.ttlMs > 0) {
      const expMs = typeof claims.exp === 'number' ? claims.exp * 1000 : now;
      const untilMs = Math.min(now + this.ttlMs, expMs);
      if (untilMs > now) {
        this.cache.set(id, { user: r.user, untilMs });
        while (this.cache.size > CACHE_SIZE) {
          const oldest = this.cache.keys().next().value;
          if (oldest === undefined) break;
          this.cache.delete(oldest);
        }
      }
    }
    return r;
  }

  async ready(): Promise<string[]> {
    const problems: string[] = [];
    for (const a of this.byIssuer.values()) {
      try {
        await a.ready();
      } catch (err) {
        problems.push(`issuer ${a.issuerUrl}: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
    return problems;
  }

  async close(): Promise<void> {
    for (const a of this.byIssuer.values()) await a.close();
  }
}
