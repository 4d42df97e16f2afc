// A Webhook authorizer of an AuthorizationConfiguration: match conditions (CEL over the v1
// SubjectAccessReview) decide whether it is asked; the answer is cached for authorizedTTL or
// unauthorizedTTL; failures follow failurePolicy (NoOpinion: on to the next authorizer; Deny).
import { Agent, request } from 'undici';
import { compileCel, type CompiledCel } from '../config/cel.js';
import type { WebhookConfig } from '../config/authorization.js';
import { tryDurationMs } from '../../common/util/values/duration.js';
import type { Logger } from '../../common/log/types.js';
import type { ConnectionConfig } from '../../common/platconfig/platconfig.js';
import type { Clock } from '../../common/util/clock.js';
import type { AuthorizationDecision, Authorizer, RequestAttributes } from '../interfaces.js';
import { parseSarStatus, type SarStatus } from './webhook-sar.js';
import {
  sarRequestBody,
  sarSpecV1,
  type SarRequestBody,
} from '../../common/auth/subject-access-review.js';
import { TtlCache } from '../../common/util/ttl-cache.js';
import { userMessage } from '../../common/util/errors.js';

export interface WebhookAuthorizerOptions {
  readonly name: string;
  readonly config: WebhookConfig;
  readonly connection: ConnectionConfig;
  readonly platformDomain: string;
  readonly clock: Clock;
  readonly logger: Logger;
  /** Most cached answers kept (oldest evicted first). */
  readonly cacheSize?: number;
}

export class WebhookAuthorizer implements Authorizer {
  readonly name: string;
  private readonly cfg: WebhookConfig;
  private readonly conn: ConnectionConfig;
  private readonly domain: string;
  private readonly logger: Logger;
  private readonly version: 'v1' | 'v1beta1';
  private readonly dispatcher: Agent;
  private readonly conditions: readonly CompiledCel[];
  private readonly authorizedTtlMs: number;
  private readonly unauthorizedTtlMs: number;
  private readonly timeoutMs: number;
  /**
   * Answers by review spec, one call in flight per spec, kept for the authorized/unauthorized TTL.
   */
  private readonly cache: TtlCache<SarStatus, SarRequestBody>;
  /** Calls made to the webhook (for tests and metrics). */
  calls = 0;

  constructor(opts: WebhookAuthorizerOptions) {
    this.name = opts.name;
    this.cfg = opts.config;
    this.conn = opts.connection;
    this.domain = opts.platformDomain;
    this.logger = opts.logger.child({ component: 'webhook-authorizer', authorizer: opts.name });
    this.version = opts.config.subjectAccessReviewVersion === 'v1beta1' ? 'v1beta1' : 'v1';
    this.authorizedTtlMs = tryDurationMs(opts.config.authorizedTTL) ?? 300_000;
    this.unauthorizedTtlMs = tryDurationMs(opts.config.unauthorizedTTL) ?? 30_000;
    this.timeoutMs = tryDurationMs(opts.config.timeout) ?? 30_000;
    this.cache = new TtlCache({
      clock: opts.clock,
      max: opts.cacheSize ?? 10_000,
      load: (_key, body) => this.load(body),
    });
    this.conditions = opts.config.matchConditions.map((m) => {
      const r = compileCel(m.expression, 'request', 'bool');
      if (!r.ok)
        throw new Error(
          `authorizer ${opts.name}: match condition ${JSON.stringify(m.expression)}: ${r.message}`,
        );
      return r.compiled;
    });
    const c = opts.connection;
    this.dispatcher = new Agent({
      connect: {
        ...(c.caPem === undefined ? {} : { ca: c.caPem }),
        ...(c.certPem === undefined ? {} : { cert: c.certPem }),
        ...(c.keyPem === undefined ? {} : { key: c.keyPem }),
        ...(c.tlsServerName === undefined ? {} : { servername: c.tlsServerName }),
        rejectUnauthorized: !c.insecureSkipTlsVerify,
      },
    });
  }

  async close(): Promise<void> {
    await this.dispatcher.close();
  }

  async authorize(attrs: RequestAttributes): Promise<AuthorizationDecision> {
    const spec = sarSpecV1(attrs);
    const match = this.matches(spec);
    if (match === 'skip') return { decision: 'no-opinion' };
    if (match !== 'call') return this.onFailure(match);
    let status: SarStatus;
    try {
      status = await this.cache.get(
        JSON.stringify(spec),
        sarRequestBody(spec, `authorization.${this.domain}`, this.version),
      );
    } catch (err) {
      const why = err instanceof Error ? err.message : String(err);
      this.logger.warn(
        { err: why, failurePolicy: this.cfg.failurePolicy },
        'authorization webhook failed',
      );
      return this.onFailure(`authorization webhook ${this.name} failed: ${why}`);
    }
    return decisionOf(status);
  }

  /** Asks the webhook; the answer is kept for its TTL when the configuration caches its kind. */
  private async load(body: SarRequestBody): Promise<{ value: SarStatus; ttlMs: number }> {
    const status = await this.ask(body);
    const cacheIt = status.allowed
      ? this.cfg.cacheAuthorizedRequests
      : this.cfg.cacheUnauthorizedRequests;
    return {
      value: status,
      ttlMs: cacheIt ? (status.allowed ? this.authorizedTtlMs : this.unauthorizedTtlMs) : 0,
    };
  }

  /**
   * 'call', 'skip', or else the error text when a condition failed to evaluate and none was false.
   */
  private matches(spec: ReturnType<typeof sarSpecV1>): string {
    let error: string | undefined;
    for (const c of this.conditions) {
      let v: unknown;
      try {
        v = c.evaluate(spec);
      } catch (err) {
        error ??=
          `authorization webhook ${this.name}: match condition ` +
          `${JSON.stringify(c.expression)} failed: ` +
          (err instanceof Error ? (err.message.split('\n')[0] ?? '') : String(err));
        continue;
      }
      if (v === false) return 'skip';
      if (v !== true)
        error ??=
          `authorization webhook ${this.name}: match condition ` +
          `${JSON.stringify(c.expression)} did not evaluate to a bool`;
    }
    return error ?? 'call';
  }

  private onFailure(reason: string): AuthorizationDecision {
    return this.cfg.failurePolicy === 'Deny'
      ? { decision: 'deny', reason }
      : { decision: 'no-opinion', reason };
  }

  private async ask(body: SarRequestBody): Promise<SarStatus> {
    this.calls++;
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      accept: 'application/json',
    };
    if (this.conn.token !== undefined) headers.authorization = `Bearer ${this.conn.token}`;
    const res = await request(this.conn.server, {
      method: 'POST',
      headers,
      body: JSON.stringify(body),
      dispatcher: this.dispatcher,
      signal: AbortSignal.timeout(this.timeoutMs),
    }).catch((err: unknown) => {
      const timedOut =
        err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError');
      throw new Error(timedOut ? `no answer within ${this.cfg.timeout}` : userMessage(err));
    });
    const text = await res.body.text();
    if (res.statusCode < 200 || res.statusCode > 299)
      throw new Error(`HTTP ${res.statusCode} from ${this.conn.server}`);
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new Error('the response is not JSON');
    }
    return parseSarStatus(parsed, this.version, this.domain);
  }
}

function decisionOf(s: SarStatus): AuthorizationDecision {
  const reason =
    s.reason !== '' ? s.reason : s.evaluationError !== '' ? s.evaluationError : undefined;
  if (s.allowed)
    return reason === undefined ? { decision: 'allow' } : { decision: 'allow', reason };
  if (s.denied) return reason === undefined ? { decision: 'deny' } : { decision: 'deny', reason };
  return reason === undefined ? { decision: 'no-opinion' } : { decision: 'no-opinion', reason };
}
