// Service account tokens for projected volumes, through the TokenRequest API (POST
// .../namespaces/<ns>/serviceaccounts/<sa>/token) with the agent's own credentials, bound to the
// pod, cached per (service account, audience, expirationSeconds, pod) as the reference's token
// manager does: a cached token is used until 80% of its life has passed (less a jitter of up to
// 10 s) or it is older than 24 h; a failed refresh keeps serving a token that has not expired.
import type { Clock } from '../../common/util/clock.js';
import { isRecord } from '../../common/util/json-shape.js';
import type { RestClient } from '../client/rest-client.js';

/** The reference's maxTTL: a token older than this is refreshed whatever its expiry. */
export const MAX_TOKEN_TTL_MS = 24 * 3600_000;
/** The reference's maxJitter. */
export const MAX_JITTER_MS = 10_000;
/** The API's default expirationSeconds of a projected token (the admission plugin writes 3607). */
export const DEFAULT_EXPIRATION_SECONDS = 3600;

export interface IssuedToken {
  token: string;
  expiresAtMs: number;
  expirationSeconds: number;
}

/**
 * The reference's requiresRefresh: past iat + 24 h - jitter, or past the last 20% of the life
 * (less the jitter). `jitterMs` is drawn per check in [0, 10 s).
 */
export function requiresRefresh(t: IssuedToken, nowMs: number, jitterMs: number): boolean {
  const lifeMs = t.expirationSeconds * 1000;
  const issuedAtMs = t.expiresAtMs - lifeMs;
  if (nowMs > issuedAtMs + MAX_TOKEN_TTL_MS - jitterMs) return true;
  const last20 = Math.trunc((t.expirationSeconds * 20) / 100) * 1000;
  return nowMs > t.expiresAtMs - last20 - jitterMs;
}

export interface TokenRequestSpec {
  namespace: string;
  serviceAccount: string;
  audience: string;
  expirationSeconds: number;
  pod: { name: string; uid: string };
}

export interface TokenManagerOptions {
  rest: RestClient;
  clock: Clock;
  /** The authentication group (the profile's, from names.groups.authentication). */
  authenticationGroup: string;
  /** Jitter in [0, MAX_JITTER_MS); injected so tests fix it. */
  jitterMs?: () => number;
}

function decodeTokenAnswer(answer: unknown, expirationSeconds: number, nowMs: number): IssuedToken {
  const status = isRecord(answer) && isRecord(answer['status']) ? answer['status'] : {};
  const token = status['token'];
  const exp = status['expirationTimestamp'];
  if (typeof token !== 'string' || token === '')
    throw new Error('the TokenRequest answer has no status.token');
  const expiresAtMs = typeof exp === 'string' ? Date.parse(exp) : Number.NaN;
  const spec = isRecord(answer) && isRecord(answer['spec']) ? answer['spec'] : {};
  const granted = spec['expirationSeconds'];
  return {
    token,
    expiresAtMs: Number.isNaN(expiresAtMs) ? nowMs + expirationSeconds * 1000 : expiresAtMs,
    expirationSeconds: typeof granted === 'number' ? granted : expirationSeconds,
  };
}

export class TokenManager {
  private readonly cache = new Map<string, IssuedToken>();

  constructor(private readonly o: TokenManagerOptions) {}

  private key(s: TokenRequestSpec): string {
    return JSON.stringify([
      s.namespace,
      s.serviceAccount,
      s.audience,
      s.expirationSeconds,
      s.pod.uid,
    ]);
  }

  async token(s: TokenRequestSpec): Promise<string> {
    const key = this.key(s);
    const cached = this.cache.get(key);
    const now = this.o.clock.nowMs();
    const jitter = this.o.jitterMs?.() ?? Math.floor(Math.random() * MAX_JITTER_MS);
    if (cached !== undefined && !requiresRefresh(cached, now, jitter)) return cached.token;
    try {
      const issued = await this.request(s);
      this.cache.set(key, issued);
      return issued.token;
    } catch (err) {
      if (cached !== undefined && now < cached.expiresAtMs) return cached.token;
      throw err;
    }
  }

  /** Forgets the tokens of a removed pod. */
  forgetPod(uid: string): void {
    const tail = `,${JSON.stringify(uid)}]`;
    for (const k of [...this.cache.keys()]) if (k.endsWith(tail)) this.cache.delete(k);
  }

  private async request(s: TokenRequestSpec): Promise<IssuedToken> {
    const body = {
      apiVersion: `${this.o.authenticationGroup}/v1`,
      kind: 'TokenRequest',
      spec: {
        ...(s.audience === '' ? {} : { audiences: [s.audience] }),
        expirationSeconds: s.expirationSeconds,
        boundObjectRef: { apiVersion: 'v1', kind: 'Pod', name: s.pod.name, uid: s.pod.uid },
      },
    };
    const path =
      `/api/v1/namespaces/${encodeURIComponent(s.namespace)}/serviceaccounts/` +
      `${encodeURIComponent(s.serviceAccount)}/token`;
    const answer = await this.o.rest.request({ method: 'POST', path, body });
    return decodeTokenAnswer(answer, s.expirationSeconds, this.o.clock.nowMs());
  }
}
