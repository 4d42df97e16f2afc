// Authorization modes: AlwaysAllow, and Webhook (a SubjectAccessReview at the API server with the
// reference's cache: allowed answers kept for the authorized TTL, denied ones for the unauthorized
// TTL; errors are never cached and never allow).

import type { Clock } from '../../../common/util/clock.js';
import { TtlCache } from '../ttl-cache.js';
import {
  AuthUnavailableError,
  type AuthorizationDecision,
  type Authorizer,
  type RequestAttributes,
  type SubjectAccessReviewSpec,
  type SubjectAccessReviewer,
} from '../types.js';
import { sarSpecV1 } from '../../../common/auth/subject-access-review.js';

export class AlwaysAllowAuthorizer implements Authorizer {
  authorize(): Promise<AuthorizationDecision> {
    return Promise.resolve({ allowed: true, reason: '' });
  }
}

export interface WebhookAuthorizerOptions {
  reviewer: SubjectAccessReviewer;
  authorizedTtlMs: number;
  unauthorizedTtlMs: number;
  clock: Clock;
  /** Bound on one review call; the reference caps webhook calls at 30 s. Default 10 s. */
  timeoutMs?: number;
}

export function reviewSpec(a: RequestAttributes): SubjectAccessReviewSpec {
  return sarSpecV1(a);
}

export class WebhookAuthorizer implements Authorizer {
  private readonly cache: TtlCache<AuthorizationDecision>;
  private readonly inflight = new Map<string, Promise<AuthorizationDecision>>();

  constructor(private readonly options: WebhookAuthorizerOptions) {
    this.cache = new TtlCache({ clock: options.clock });
  }

  async authorize(attrs: RequestAttributes): Promise<AuthorizationDecision> {
    const spec = reviewSpec(attrs);
    const key = JSON.stringify(spec);
    const cached = this.cache.get(key);
    if (cached !== undefined) return cached;
    let p = this.inflight.get(key);
    if (p === undefined) {
      p = this.review(spec).finally(() => this.inflight.delete(key));
      this.inflight.set(key, p);
    }
    const decision = await p;
    this.cache.set(key, decision, decision.allowed ? this.options.authorizedTtlMs : this.options.unauthorizedTtlMs);
    return decision;
  }

  private async review(spec: SubjectAccessReviewSpec): Promise<AuthorizationDecision> {
    let status;
    try {
      status = await this.options.reviewer.review(spec, AbortSignal.timeout(this.options.timeoutMs ?? 10_000));
    } catch (err) {
      throw new AuthUnavailableError(`subject access review failed: ${(err as Error).message}`, { cause: err });
    }
    if (status.allowed && status.denied !== true) return { allowed: true, reason: status.reason ?? '' };
    if (!status.allowed && status.denied !== true && status.evaluationError) {
      // No decision and an evaluation error: the reference treats this as an error, not a denial.
      throw new AuthUnavailableError(`subject access review could not be evaluated: ${status.evaluationError}`);
    }
    return { allowed: false, reason: status.reason ?? '' };
  }
}
