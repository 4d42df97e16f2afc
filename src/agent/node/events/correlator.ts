// The reference's event correlator, in three steps per event:
// 1. spam filter: a token bucket per source+object+type+reason, as the reference's getSpamKey
//    (burst 25, one more every 5 minutes); an event without a token is dropped, so a probe failing
//    for minutes cannot silence the pod's Killing;
// 2. aggregation: more than 10 events that differ only in message within 10 minutes are folded
//    into one whose message says "(combined from similar events): ...";
// 3. de-duplication: an event identical to one already written raises that one's count and
//    lastTimestamp (a PATCH) instead of creating another.
// Caches are bounded LRUs so a flood of distinct objects cannot grow memory without limit.

import { TokenBucket } from '../../../common/util/token-bucket.js';
import type { Clock } from '../../../common/util/clock.js';
import type { CoreEvent } from './types.js';

export const SPAM_BURST = 25;
export const SPAM_QPS = 1 / 300;
export const AGGREGATE_MAX_EVENTS = 10;
export const AGGREGATE_INTERVAL_MS = 600_000;
const CACHE_SIZE = 4096;

class Lru<V> {
  private readonly map = new Map<string, V>();
  private readonly max: number;
  constructor(options: { max: number }) {
    this.max = options.max;
  }
  get(k: string): V | undefined {
    const v = this.map.get(k);
    if (v !== undefined) {
      this.map.delete(k);
      this.map.set(k, v);
    }
    return v;
  }
  set(k: string, v: V): void {
    this.map.delete(k);
    if (this.map.size >= this.max) {
      const oldest = this.map.keys().next();
      if (oldest.done !== true) this.map.delete(oldest.value);
    }
    this.map.set(k, v);
  }
}

function objectKey(e: CoreEvent): string {
  const o = e.involvedObject;
  return [
    e.source.component,
    e.source.host,
    o.kind,
    o.namespace ?? '',
    o.name,
    o.uid ?? '',
    o.apiVersion ?? '',
  ].join('\u0000');
}

export type Correlation =
  | { action: 'drop' }
  | { action: 'create'; event: CoreEvent }
  | { action: 'patch'; event: CoreEvent; patch: Partial<CoreEvent> };

export class EventCorrelator {
  private readonly spam = new Lru<TokenBucket>({ max: CACHE_SIZE });
  private readonly aggregate = new Lru<{ messages: Set<string>; firstMs: number }>({
    max: CACHE_SIZE,
  });
  private readonly seen = new Lru<{
    name: string;
    count: number;
    firstTimestamp: string;
    resourceVersion?: string;
  }>({ max: CACHE_SIZE });

  private readonly clock: Clock;
  constructor(options: { clock: Clock }) {
    this.clock = options.clock;
  }

  correlate(input: CoreEvent): Correlation {
    const objKey = objectKey(input);
    const spamKey = [objKey, input.type, input.reason].join('\u0000');
    let bucket = this.spam.get(spamKey);
    if (bucket === undefined) {
      bucket = new TokenBucket({ qps: SPAM_QPS, burst: SPAM_BURST, clock: this.clock });
      this.spam.set(spamKey, bucket);
    }
    if (!bucket.tryAcquire()) return { action: 'drop' };

    let event = input;
    const now = this.clock.nowMs();
    const aggKey = [
      objKey,
      input.type,
      input.reason,
      input.reportingComponent,
      input.reportingInstance,
    ].join('\u0000');
    let agg = this.aggregate.get(aggKey);
    if (agg === undefined || now - agg.firstMs > AGGREGATE_INTERVAL_MS) {
      agg = { messages: new Set(), firstMs: now };
      this.aggregate.set(aggKey, agg);
    }
    agg.messages.add(input.message);
    if (agg.messages.size > AGGREGATE_MAX_EVENTS) {
      event = { ...input, message: `(combined from similar events): ${input.message}` };
    }
    // Combined events share one key (the message is left out), so they raise one count.
    const dedupKey = [
      aggKey,
      input.involvedObject.fieldPath ?? '',
      agg.messages.size > AGGREGATE_MAX_EVENTS ? '\u0001combined' : input.message,
    ].join('\u0000');
    const prev = this.seen.get(dedupKey);
    if (prev !== undefined) {
      prev.count++;
      const updated: CoreEvent = {
        ...event,
        metadata: { ...event.metadata, name: prev.name },
        count: prev.count,
        firstTimestamp: prev.firstTimestamp,
      };
      return {
        action: 'patch',
        event: updated,
        patch: { count: prev.count, lastTimestamp: event.lastTimestamp, message: event.message },
      };
    }
    this.seen.set(dedupKey, {
      name: event.metadata.name,
      count: 1,
      firstTimestamp: event.firstTimestamp,
    });
    return { action: 'create', event };
  }
}
