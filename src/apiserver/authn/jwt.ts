// A JWT authenticator for one issuer: OIDC discovery (at the issuer, or `discoveryURL`) over TLS
// trusting `certificateAuthority`, the JWKS fetched and refreshed by jose, and the token's
// signature, iss, aud (MatchAny), exp and nbf verified before the claim rules and mappings run.
import type { IncomingMessage } from 'node:http';
import {
  createRemoteJWKSet,
  customFetch,
  decodeJwt,
  errors as joseErrors,
  jwtVerify,
  type FetchImplementation,
  type JWTVerifyGetKey,
} from 'jose';
import { Agent, fetch as undiciFetch } from 'undici';
import type { JWTAuthenticatorConfig } from '../config/authentication.js';
import type { Logger } from '../../common/log/types.js';
import type { Clock } from '../../common/util/clock.js';
import type { AuthenticationResult, Authenticator } from '../interfaces.js';
import { ClaimProcessor, TokenRejected } from './jwt-claims.js';
import { bearerToken } from '../../common/auth/bearer-token.js';
import { recordOf } from '../../common/util/json-shape.js';

export interface JwtAuthenticatorOptions {
  readonly config: JWTAuthenticatorConfig;
  readonly clock: Clock;
  readonly logger: Logger;
  /** Wait this long after a failed discovery before trying again (default 10 s). */
  readonly retryAfterFailureMs?: number;
  /** Allowed clock skew for exp/nbf in seconds (default 0). */
  readonly clockToleranceSec?: number;
  /** Minimum time between JWKS re-fetches triggered by an unknown key id (default 10 s). */
  readonly jwksCooldownMs?: number;
}

export class JwtAuthenticator implements Authenticator {
  readonly issuerUrl: string;
  private readonly cfg: JWTAuthenticatorConfig;
  private readonly clock: Clock;
  private readonly logger: Logger;
  private readonly claims: ClaimProcessor;
  private readonly dispatcher: Agent;
  private readonly retryAfterFailureMs: number;
  private readonly tolerance: number;
  private readonly jwksCooldownMs: number;
  private jwks: Promise<JWTVerifyGetKey> | undefined;
  private failedAtMs = 0;
  private lastError = '';

  constructor(opts: JwtAuthenticatorOptions) {
    this.cfg = opts.config;
    this.issuerUrl = opts.config.issuer.url;
    this.clock = opts.clock;
    this.logger = opts.logger.child({ component: 'jwt-authenticator', issuer: this.issuerUrl });
    this.claims = new ClaimProcessor(opts.config);
    const ca = opts.config.issuer.certificateAuthority;
    this.dispatcher = new Agent({
      connect: ca === undefined || ca === '' ? {} : { ca },
      connectTimeout: 10_000,
    });
    this.retryAfterFailureMs = opts.retryAfterFailureMs ?? 10_000;
    this.tolerance = opts.clockToleranceSec ?? 0;
    this.jwksCooldownMs = opts.jwksCooldownMs ?? 10_000;
  }

  /** Fetches discovery and the JWKS now (the server calls this at start and logs a failure). */
  async ready(): Promise<void> {
    await this.keySet();
  }

  async close(): Promise<void> {
    await this.dispatcher.close();
  }

  async authenticate(req: IncomingMessage): Promise<AuthenticationResult> {
    const token = bearerToken(req);
    if (token?.split('.').length !== 3) return { kind: 'no-opinion' };
    let iss: unknown;
    try {
      iss = decodeJwt(token).iss;
    } catch {
      return { kind: 'no-opinion' };
    }
    // Only the authenticator whose issuer the token names judges it.
    if (iss !== this.issuerUrl) return { kind: 'no-opinion' };
    return this.verify(token);
  }

  /** Verifies a token already known to name this issuer. */
  async verify(token: string): Promise<AuthenticationResult> {
    let keys: JWTVerifyGetKey;
    try {
      keys = await this.keySet();
    } catch (err) {
      return {
        kind: 'rejected',
        reason:
          `oidc: authenticator for issuer ${JSON.stringify(this.issuerUrl)} is not ` +
          `initialized: ${messageOf(err)}`,
      };
    }
    let payload: Record<string, unknown>;
    try {
      const r = await jwtVerify(token, keys, {
        issuer: this.issuerUrl,
        audience: this.cfg.issuer.audiences,
        currentDate: this.clock.now(),
        clockTolerance: this.tolerance,
        requiredClaims: ['iss', 'aud', 'exp'],
      });
      payload = r.payload;
    } catch (err) {
      return { kind: 'rejected', reason: `oidc: verify token: ${describeJoseError(err)}` };
    }
    try {
      return { kind: 'authenticated', user: this.claims.toUser(payload) };
    } catch (err) {
      if (err instanceof TokenRejected) return { kind: 'rejected', reason: err.message };
      throw err;
    }
  }

  private keySet(): Promise<JWTVerifyGetKey> {
    if (this.jwks !== undefined) return this.jwks;
    const sinceFailure = this.clock.nowMs() - this.failedAtMs;
    if (this.failedAtMs !== 0 && sinceFailure < this.retryAfterFailureMs) {
      return Promise.reject(new Error(this.lastError));
    }
    const p = this.discover();
    this.jwks = p;
    p.catch((err: unknown) => {
      this.jwks = undefined;
      this.failedAtMs = this.clock.nowMs();
      this.lastError = messageOf(err);
      this.logger.warn(
        { err: this.lastError },
        'OIDC discovery failed; tokens of this issuer are refused until it succeeds ' +
          '(retrying on the next request)',
      );
    });
    return p;
  }

  private async discover(): Promise<JWTVerifyGetKey> {
    const discoveryUrl =
      this.cfg.issuer.discoveryURL !== undefined && this.cfg.issuer.discoveryURL !== ''
        ? this.cfg.issuer.discoveryURL
        : `${this.issuerUrl.replace(/\/$/, '')}/.well-known/openid-configuration`;
    let doc: Record<string, unknown>;
    try {
      const res = await undiciFetch(discoveryUrl, {
        dispatcher: this.dispatcher,
        signal: AbortSignal.timeout(10_000),
      });
      if (res.status !== 200) throw new Error(`HTTP ${res.status}`);
      const body: unknown = await res.json();
      doc = recordOf(body);
    } catch (err) {
      throw new Error(`fetching discovery document ${discoveryUrl}: ${messageOf(err)}`, {
        cause: err,
      });
    }
    const jwksUri = doc['jwks_uri'];
    if (doc['issuer'] !== this.issuerUrl) {
      throw new Error(
        `discovery document ${discoveryUrl}: issuer ${JSON.stringify(doc['issuer'])} ` +
          `does not match the configured url ${JSON.stringify(this.issuerUrl)}`,
      );
    }
    if (typeof jwksUri !== 'string')
      throw new Error(`discovery document ${discoveryUrl} has no jwks_uri`);
    const dispatcher = this.dispatcher;
    const set = createRemoteJWKSet(new URL(jwksUri), {
      cooldownDuration: this.jwksCooldownMs,
      cacheMaxAge: 10 * 60_000,
      [customFetch]: ((url, init) =>
        // undici's Response is not the global one jose types against; the cast says they are the
        // same shape
        // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion
        undiciFetch(url, {
          method: init.method,
          redirect: init.redirect,
          signal: init.signal,
          headers: Object.fromEntries(init.headers.entries()),
          dispatcher,
        }) as unknown as Promise<Response>) satisfies FetchImplementation,
    });
    await set.reload();
    this.logger.info({ jwksUri }, 'OIDC discovery done');
    return set;
  }
}

function messageOf(err: unknown): string {
  if (err instanceof Error) {
    const cause = err.cause instanceof Error ? `: ${err.cause.message}` : '';
    return err.message.includes(cause.slice(2)) || cause === ''
      ? err.message
      : `${err.message}${cause}`;
  }
  return String(err);
}

function describeJoseError(err: unknown): string {
  if (err instanceof joseErrors.JWTExpired) return 'token is expired';
  if (err instanceof joseErrors.JWTClaimValidationFailed) {
    if (err.claim === 'aud') return 'token audience does not match any of the expected audiences';
    if (err.claim === 'iss') return 'token issuer does not match';
    if (err.claim === 'nbf') return 'token is not valid yet (nbf)';
    return `claim ${JSON.stringify(err.claim)} check failed: ${err.reason}`;
  }
  if (err instanceof joseErrors.JWSSignatureVerificationFailed) return 'failed to verify signature';
  if (err instanceof joseErrors.JWKSNoMatchingKey)
    return 'failed to verify signature: no matching key in the issuer JWKS';
  return messageOf(err);
}
