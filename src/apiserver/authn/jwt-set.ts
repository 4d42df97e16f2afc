// The JWT authenticators of an AuthenticationConfiguration as one Authenticator: a token is
// judged only by the authenticator of the issuer it names. Successful authentications are cached
// for a short time (the reference's token success cache, 10 s by default), never past the
// token's own `exp`; failures are not cached. One verification is in flight per token (the common
// TtlCache).
import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { decodeJwt } from 'jose';
import type { Clock } from '../../common/util/clock.js';
import { TtlCache, type Loaded } from '../../common/util/ttl-cache.js';
import type { AuthenticationResult, Authenticator } from '../interfaces.js';
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

interface Verification {
  readonly authenticator: JwtAuthenticator;
  readonly token: string;
  /** The token's exp claim in ms, when it has one. */
  readonly expMs: number | undefined;
}

export class JwtAuthenticatorSet implements Authenticator {
  private readonly byIssuer: Map<string, JwtAuthenticator>;
  private readonly clock: Clock;
  private readonly ttlMs: number;
  /**
   * sha256(token) → the successful answer, until the TTL or the token's exp, whichever is first.
   */
  private readonly cache: TtlCache<AuthenticationResult, Verification>;
  /** Full verifications done (cache misses), for tests and metrics. */
  verifications = 0;

  constructor(opts: JwtAuthenticatorSetOptions) {
    this.byIssuer = new Map(opts.authenticators.map((a) => [a.issuerUrl, a]));
    this.clock = opts.clock;
    this.ttlMs = opts.successCacheTtlMs ?? DEFAULT_TOKEN_SUCCESS_CACHE_TTL_MS;
    this.cache = new TtlCache({
      clock: opts.clock,
      max: CACHE_SIZE,
      load: (_id, v) => this.verify(v),
    });
  }

  private async verify(v: Verification): Promise<Loaded<AuthenticationResult>> {
    this.verifications++;
    const r = await v.authenticator.verify(v.token);
    const now = this.clock.nowMs();
    const untilMs = Math.min(now + this.ttlMs, v.expMs ?? now);
    return { value: r, ttlMs: r.kind === 'authenticated' ? untilMs - now : 0 };
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
    const v: Verification = {
      authenticator: a,
      token,
      expMs: typeof claims.exp === 'number' ? claims.exp * 1000 : undefined,
    };
    if (this.ttlMs <= 0) return (await this.verify(v)).value;
    return this.cache.get(createHash('sha256').update(token).digest('base64'), v);
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
