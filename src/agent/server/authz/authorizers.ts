// Authorization modes: AlwaysAllow, and Webhook (a SubjectAccessReview at the API server with the
// reference's cache: allowed answers kept for the authorized TTL, denied ones for the unauthorized
// TTL; errors are never cached and never allow).

import type { Clock } from '../../../common/util/clock.js';
import { TtlCache } from '../../../common/util/ttl-cache.js';
import {
  AuthUnavailableError,
  type AuthorizationDecision,
  type Authorizer,
  type RequestAttributes,
  type SubjectAccessReviewSpec,
  type SubjectAccessReviewer,
} from '../types.js';
import { sarSpecV1 } from '../../../common/auth/subject-access-review.js';
import { userMessage } from '../../../common/util/errors.js';

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
  // One review in flight per spec; allowed and denied answers kept for their own TTLs.
  private readonly cache: TtlCache<AuthorizationDecision, SubjectAccessReviewSpec>;

  constructor(private readonly options: WebhookAuthorizerOptions) {
    this.cache = new TtlCache({
      clock: options.clock,
      load: async (_key, spec) => {
        const decision = await this.review(spec);
        return {
          value: decision,
          ttlMs: decision.allowed ? options.authorizedTtlMs : options.unauthorizedTtlMs,
        };
      },
    });
  }

  async authorize(attrs: RequestAttributes): Promise<AuthorizationDecision> {
    const spec = reviewSpec(attrs);
    return this.cache.get(JSON.stringify(spec), spec);
  }

  private async review(spec: SubjectAccessReviewSpec): Promise<AuthorizationDecision> {
    let status;
    try {
      status = await this.options.reviewer.review(
        spec,
        AbortSignal.timeout(this.options.timeoutMs ?? 10_000),
      );
    } catch (err) {
      throw new AuthUnavailableError(`subject access review failed: ${userMessage(err)}`, {
        cause: err,
      });
    }
    if (status.allowed && status.denied !== true)
      return { allowed: true, reason: status.reason ?? '' };
    if (!status.allowed && status.denied !== true && status.evaluationError) {
      // No decision and an evaluation error: the reference treats this as an error, not a denial.
      throw new AuthUnavailableError(
        `subject access review could not be evaluated: ${status.evaluationError}`,
      );
    }
    return { allowed: false, reason: status.reason ?? '' };
  }
}
