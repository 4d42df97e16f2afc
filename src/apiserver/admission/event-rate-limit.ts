// EventRateLimit: token buckets (qps, burst) per limit type — Server (one bucket), Namespace,
// User and SourceAndObject (one per key, kept in an LRU of cacheSize) — over Event writes. A
// write that finds any bucket empty gets 429 "limit reached on type <T> for key <K>", as the
// reference.
import {
  EVENT_RATE_LIMIT_DEFAULT_CACHE_SIZE,
  EVENT_RATE_LIMIT_TYPES,
  type EventRateLimitConfiguration,
  type EventRateLimitType,
} from '../config/admission.js';
import type { Clock } from '../../common/util/clock.js';
import { ApiError } from '../../common/util/errors.js';
import type { AdmissionPlugin, AdmissionRequest } from '../interfaces.js';
import { TokenBucket } from '../../common/util/token-bucket.js';
import { recordOf, isOneOf } from '../../common/util/json-shape.js';

class Enforcer {
  private readonly buckets = new Map<string, TokenBucket>();
  readonly type: EventRateLimitType;
  private readonly qps: number;
  private readonly burst: number;
  private readonly cacheSize: number;
  private readonly clock: Clock;
  constructor(o: {
    type: EventRateLimitType;
    qps: number;
    burst: number;
    cacheSize: number;
    clock: Clock;
  }) {
    this.type = o.type;
    this.qps = o.qps;
    this.burst = o.burst;
    this.cacheSize = o.cacheSize;
    this.clock = o.clock;
  }

  /** Undefined when accepted, else the reason. */
  accept(r: AdmissionRequest): string | undefined {
    const key = keyOf(this.type, r);
    let b = this.buckets.get(key);
    if (b === undefined) {
      b = new TokenBucket({ qps: this.qps, burst: this.burst, clock: this.clock });
      this.buckets.set(key, b);
      const max = this.type === 'Server' ? 1 : this.cacheSize;
      while (this.buckets.size > max) {
        const oldest = this.buckets.keys().next().value;
        if (oldest === undefined) break;
        this.buckets.delete(oldest);
      }
    } else {
      // Most recently used last.
      this.buckets.delete(key);
      this.buckets.set(key, b);
    }
    return b.tryAcquire() ? undefined : `limit reached on type ${this.type} for key ${key}`;
  }
}

function str(o: unknown, k: string): string {
  const v = recordOf(o)[k];
  return typeof v === 'string' ? v : '';
}

function keyOf(type: EventRateLimitType, r: AdmissionRequest): string {
  switch (type) {
    case 'Server':
      return '';
    case 'Namespace':
      return r.namespace;
    case 'User':
      return r.user.username;
    case 'SourceAndObject': {
      const e = r.object;
      const src = e?.['source'];
      const io = e?.['involvedObject'];
      return [
        str(src, 'component'),
        str(src, 'host'),
        str(io, 'kind'),
        str(io, 'namespace'),
        str(io, 'name'),
        str(io, 'uid'),
        str(io, 'apiVersion'),
      ].join('');
    }
  }
}

/** A limit's type; the configuration was validated on load, so anything else is a bug. */
function limitType(t: string): EventRateLimitType {
  if (!isOneOf(EVENT_RATE_LIMIT_TYPES, t))
    throw new Error(`EventRateLimit: unsupported limit type ${JSON.stringify(t)}`);
  return t;
}

export class EventRateLimit implements AdmissionPlugin {
  readonly name = 'EventRateLimit';
  private readonly enforcers: readonly Enforcer[];

  constructor(opts: { config: EventRateLimitConfiguration; clock: Clock }) {
    this.enforcers = opts.config.limits.map(
      (l) =>
        new Enforcer({
          type: limitType(l.type),
          qps: l.qps,
          burst: l.burst,
          cacheSize:
            l.cacheSize === undefined || l.cacheSize === 0
              ? EVENT_RATE_LIMIT_DEFAULT_CACHE_SIZE
              : l.cacheSize,
          clock: opts.clock,
        }),
    );
  }

  admit(r: AdmissionRequest): Promise<void> {
    if (r.resource !== 'events' || r.apiGroup !== '' || r.dryRun) return Promise.resolve();
    const errors: string[] = [];
    for (const e of this.enforcers) {
      const why = e.accept(r);
      if (why !== undefined) errors.push(why);
    }
    if (errors.length === 0) return Promise.resolve();
    const message = errors.length === 1 ? (errors[0] ?? '') : `[${errors.join(', ')}]`;
    return Promise.reject(
      new ApiError(`Too many requests: ${message}`, {
        status: 429,
        reason: 'TooManyRequests',
        details: { kind: 'events' },
      }),
    );
  }
}
