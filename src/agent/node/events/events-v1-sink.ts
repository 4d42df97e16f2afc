// Writing the recorder's events through events.k8s.io/v1, as the reference's newer recorder
// (k8s.io/client-go/tools/events) does, and choosing that group when the API server's discovery
// serves it, with the core/v1 sink as the fallback (said once in the log).
//
// Shape: eventTime (MicroTime), reportingController/reportingInstance, action, reason,
// regarding, note, type; no deprecated* fields. A repeat is a merge patch of `series` (count,
// lastObservedTime): note and the other fields are immutable through this group. Calls from
// the legacy interface (event(obj, type, reason, message)) carry the action "NoKind", as the
// reference's EventRecorderAdapter does.

import type { Logger } from '../../../common/log/types.js';
import { ApiError, findCause, isNotFound, userMessage } from '../../../common/util/errors.js';
import type { CoreEvent, EventSink } from './types.js';

/** The reference's limit of an events.k8s.io note (longer ones are refused with 422). */
export const NOTE_LIMIT = 1024;
export const ADAPTER_ACTION = 'NoKind';

/** The client calls the sink makes (a ResourceClient of events.k8s.io/v1 events fits). */
export interface EventsV1Api {
  create(
    body: Record<string, unknown>,
    opts: { namespace: string; signal?: AbortSignal },
  ): Promise<unknown>;
  patch(
    name: string,
    patch: Record<string, unknown>,
    opts: { type: 'merge'; namespace: string; signal?: AbortSignal },
  ): Promise<unknown>;
}

/** A `2026-01-01T00:00:00Z` (or with milliseconds) timestamp as a MicroTime. */
export function microTime(ts: string): string {
  const m = /^(.*T\d\d:\d\d:\d\d)(?:\.(\d{1,9}))?Z$/.exec(ts);
  if (m === null) return ts;
  return `${m[1] ?? ''}.${(m[2] ?? '').padEnd(6, '0').slice(0, 6)}Z`;
}

/** The recorder's core event as the events.k8s.io/v1 object the newer recorder creates. */
export function toEventsV1(e: CoreEvent, apiVersion: string): Record<string, unknown> {
  const note =
    e.message.length > NOTE_LIMIT ? `${e.message.slice(0, NOTE_LIMIT - 3)}...` : e.message;
  return {
    apiVersion,
    kind: 'Event',
    metadata: { name: e.metadata.name, namespace: e.metadata.namespace },
    eventTime: microTime(e.firstTimestamp),
    reportingController: e.reportingComponent,
    reportingInstance: e.reportingInstance,
    action: ADAPTER_ACTION,
    reason: e.reason,
    regarding: { ...e.involvedObject },
    note,
    type: e.type,
  };
}

/** The series patch of a repeat (the recorder's core patch carries count and lastTimestamp). */
export function seriesPatch(p: Partial<CoreEvent>, nowIso: string): Record<string, unknown> {
  return {
    series: {
      count: Math.max(2, p.count ?? 2),
      lastObservedTime: microTime(p.lastTimestamp ?? nowIso),
    },
  };
}

export function eventsV1Sink(api: EventsV1Api, apiVersion: string, now: () => Date): EventSink {
  return {
    create: (namespace, event, signal) =>
      api.create(toEventsV1(event, apiVersion), { namespace, ...(signal ? { signal } : {}) }),
    patch: (namespace, name, patch, signal) =>
      api.patch(name, seriesPatch(patch, now().toISOString()), {
        type: 'merge',
        namespace,
        ...(signal ? { signal } : {}),
      }),
  };
}

export interface NegotiatedSinkOptions {
  /** events.k8s.io/v1 */
  readonly preferred: EventSink;
  /** core/v1 */
  readonly fallback: EventSink;
  /** Whether the server's discovery lists events in the group (rejects when it cannot be read). */
  served(signal?: AbortSignal): Promise<boolean>;
  /** The group version, for the log line. */
  readonly groupVersion: string;
  readonly logger: Logger;
}

/**
 * Writes through events.k8s.io/v1 when the server serves it, else through core/v1. The choice
 * is made on the first write and kept; a discovery that cannot be read (server unreachable) is
 * asked again on the next write, core/v1 taking this one. A 403 from events.k8s.io moves to
 * core/v1 for good and writes the event there: the reference's system:node role grants events
 * in the core group only.
 */
export class NegotiatedEventSink implements EventSink {
  private chosen: EventSink | undefined;
  private logged = false;
  private readonly o: NegotiatedSinkOptions;

  constructor(o: NegotiatedSinkOptions) {
    this.o = o;
  }

  /** The sink in use ('undecided' before the first write). */
  get mode(): 'events.k8s.io' | 'core' | 'undecided' {
    return this.chosen === undefined
      ? 'undecided'
      : this.chosen === this.o.preferred
        ? 'events.k8s.io'
        : 'core';
  }

  private async sink(signal?: AbortSignal): Promise<EventSink> {
    if (this.chosen !== undefined) return this.chosen;
    try {
      const served = await this.o.served(signal);
      this.chosen = served ? this.o.preferred : this.o.fallback;
      if (served)
        this.o.logger.info(
          { groupVersion: this.o.groupVersion },
          'recording events through the events API group',
        );
      else
        this.logOnce(
          `the API server does not serve ${this.o.groupVersion} events; recording ` +
            `events through core/v1`,
        );
      return this.chosen;
    } catch (err) {
      if (isNotFound(err)) {
        this.chosen = this.o.fallback;
        this.logOnce(
          `the API server does not serve ${this.o.groupVersion}; recording events through core/v1`,
        );
        return this.chosen;
      }
      this.logOnce(
        `cannot read the API server's discovery of ${this.o.groupVersion} (` +
          `${userMessage(err)}); recording events through core/v1 until it can be read`,
      );
      return this.o.fallback;
    }
  }

  private logOnce(message: string): void {
    if (this.logged) return;
    this.logged = true;
    this.o.logger.info({ groupVersion: this.o.groupVersion }, message);
  }

  async create(namespace: string, event: CoreEvent, signal?: AbortSignal): Promise<unknown> {
    return this.through(signal, (s) => s.create(namespace, event, signal));
  }

  async patch(
    namespace: string,
    name: string,
    patch: Partial<CoreEvent>,
    signal?: AbortSignal,
  ): Promise<unknown> {
    return this.through(signal, (s) => s.patch(namespace, name, patch, signal));
  }

  private async through(
    signal: AbortSignal | undefined,
    call: (s: EventSink) => Promise<unknown>,
  ): Promise<unknown> {
    const sink = await this.sink(signal);
    try {
      return await call(sink);
    } catch (err) {
      const forbidden = findCause(
        err,
        (e): e is ApiError => e instanceof ApiError && e.status === 403,
      );
      if (sink !== this.o.preferred || forbidden === undefined) throw err;
      this.chosen = this.o.fallback;
      this.logOnce(
        `this user may not write ${this.o.groupVersion} events (${forbidden.message}); ` +
          `recording events through core/v1`,
      );
      return call(this.o.fallback);
    }
  }
}
