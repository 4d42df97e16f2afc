// One watch stream: line-delimited JSON WatchEvents over a chunked 200 response, or for a client
// that negotiated protobuf, length-prefixed protobuf WatchEvent frames
// (`application/vnd.kubernetes.protobuf;stream=watch`, src/common/protobuf/codec.ts). The start is
// computed and the store listener registered in one synchronous step, so no change is missed
// or sent twice: the initial state (or the stored changes after the requested revision) and the
// live changes line up by revision. Objects that start or stop matching the selectors turn into
// ADDED/DELETED, as the reference's watch cache does.

import type { ServerResponse } from 'node:http';
import type { Logger } from '../../common/log/types.js';
import type { Clock } from '../../common/util/clock.js';
import { textOf } from '../../common/util/text-of.js';
import { expired, StatusError, type StatusBody } from '../status.js';
import { CompactedError, prefixEnd, type Change, type Store } from '../storage/store.js';
import { objectMatcher, waitForRv, type ListOptions } from '../registry/list.js';
import type { Registry } from '../registry/registry.js';
import { apiVersionOf, type Obj, type ResourceDef } from '../registry/types.js';
import { encodeWatchFrame } from '../../common/protobuf/codec.js';
import { PROTOBUF_WATCH_MEDIA_TYPE } from '../../common/protobuf/media-types.js';
import type { EventType } from './events.js';
import { serveItem, type FrameMaker, type WatchRun } from './items.js';
import { WatchQueue } from './queue.js';
import { watchStart, type WatchStart } from './start.js';
import { armWatchTimers } from './timers.js';
import { subscribeTriggered, triggerOf } from './triggers.js';
import type { FieldSelector } from '../selectors/field.js';
import { writeDrained } from './drain.js';
import { recordOf } from '../../common/util/json-shape.js';

export interface WatchSettings {
  readonly platformDomain: string;
  /** Without timeoutSeconds the stream ends after a random time in [min, 2*min) seconds. */
  readonly minRequestTimeoutSeconds: number;
  readonly bookmarkIntervalMs: number;
  /** Queued events per watcher before a slow watcher is cut off. */
  readonly maxQueue: number;
  readonly logger: Logger;
  /** Drives the request timeout and the bookmark ticks. */
  readonly clock: Clock;
  /**
   * Encodes a live change's protobuf frame elsewhere (--worker-threads: workers/frame-job.ts);
   * undefined from it, or no maker, encodes it here.
   */
  readonly frameMaker?: FrameMaker | undefined;
}

/**
 * Serialized lines (and protobuf frames) shared by all watchers without selector-driven rewrites:
 * one serialization and one UTF-8 encoding per change and content type, however many watch it.
 */
const lineCache = new WeakMap<Change, Buffer | Promise<Buffer>>();
const frameCache = new WeakMap<Change, Buffer | Promise<Buffer>>();

/** A protobuf watch frame of an event (the object's own kind and apiVersion name its message). */
export function watchFrame(type: EventType, object: Obj | StatusBody): Buffer {
  const o = recordOf(object);
  return encodeWatchFrame(type, o, textOf(o['apiVersion'] ?? ''), textOf(o['kind'] ?? ''));
}

export function watchLine(type: EventType, object: Obj | StatusBody): string {
  return `${JSON.stringify({ type, object })}\n`;
}

export async function serveWatch(
  res: ServerResponse,
  registry: Registry,
  def: ResourceDef,
  namespace: string,
  o: ListOptions,
  s: WatchSettings,
  signal: AbortSignal,
  /** Rewrites each event object (server-side printing as a Table); undefined keeps it. */
  render?: (obj: Obj) => Obj,
  /** The client negotiated protobuf (Tables stay JSON: the reference has no Table message). */
  protobuf = false,
): Promise<void> {
  const store = registry.store;
  const prefix = registry.prefix(def, namespace);
  const matches = objectMatcher(def, o);
  const filtered =
    o.labelSelector !== undefined || o.fieldSelector !== undefined || o.shardSelector !== undefined;
  const proto = protobuf && render === undefined;
  const frame = (type: EventType, object: Obj | StatusBody): string | Buffer =>
    proto ? watchFrame(type, object) : watchLine(type, object);

  await waitForRv(registry, o);
  writeWatchHead(res, proto);
  const start = startOrExpire(res, store, prefix, o, frame);
  if (start === undefined) return;
  const { queue, timedOut } = openQueue(res, signal, { store, prefix, def, o, s }, start);
  const write = async (chunk: string | Buffer): Promise<void> => {
    if (!queue.closed) await writeDrained(res, chunk);
  };
  const run: WatchRun = {
    registry,
    def,
    apiVersion: apiVersionOf(def),
    platformDomain: s.platformDomain,
    matches,
    filtered,
    render,
    protobuf: proto,
    frame,
    cache: proto ? frameCache : lineCache,
    frameElsewhere: proto ? s.frameMaker : undefined,
    queue,
    write,
    timedOut,
  };
  await pump(run, res, s.logger);
}

function writeWatchHead(res: ServerResponse, proto: boolean): void {
  res.writeHead(200, {
    'Content-Type': proto ? PROTOBUF_WATCH_MEDIA_TYPE : 'application/json',
    'Cache-Control': 'no-cache, private',
    'Transfer-Encoding': 'chunked',
  });
  res.flushHeaders();
}

/** What a watch reads from: the store's keys under `prefix`, as `o` asks. */
interface WatchSource {
  readonly store: Store;
  readonly prefix: string;
  readonly def: ResourceDef;
  readonly o: ListOptions;
  readonly s: WatchSettings;
}

/**
 * The watch's queue: the start's items, then the live changes; its timers armed; closed when
 * the client goes or the request is aborted.
 */
function openQueue(
  res: ServerResponse,
  signal: AbortSignal,
  w: WatchSource,
  start: WatchStart,
): { queue: WatchQueue; timedOut: WatchRun['timedOut'] } {
  const queue = new WatchQueue({ initial: start.items });
  queue.onClose(
    subscribeChanges(queue, w.store, start.startRev, w.prefix, w.s, w.def, w.o.fieldSelector),
  );
  const timedOut = armWatchTimers(w.o, {
    ...w.s,
    queue,
    currentRevision: () => w.store.currentRevision(),
  });
  const close = (): void => queue.close();
  signal.addEventListener('abort', close, { once: true });
  res.on('close', close);
  return { queue, timedOut };
}

/** Serves the queue's items until it closes; an error ends the stream with its Status. */
async function pump(run: WatchRun, res: ServerResponse, logger: Logger): Promise<void> {
  try {
    for (let item = await run.queue.next(); item !== undefined; item = await run.queue.next())
      await serveItem(run, item);
  } catch (err) {
    logger.warn({ err, resource: run.def.resource }, 'watch stream ended by an error');
    if (!res.writableEnded && !res.destroyed) {
      if (err instanceof StatusError) res.write(run.frame('ERROR', err.toStatus()));
    }
  } finally {
    run.queue.close();
    if (!res.writableEnded) res.end();
  }
}

/**
 * Where the watch starts; undefined after answering 410 Expired when that revision is compacted.
 */
function startOrExpire(
  res: ServerResponse,
  store: Store,
  prefix: string,
  o: ListOptions,
  frame: (type: EventType, object: Obj | StatusBody) => string | Buffer,
): WatchStart | undefined {
  try {
    return watchStart(store, prefix, prefixEnd(prefix), o);
  } catch (err) {
    if (err instanceof CompactedError) {
      res.end(frame('ERROR', expired(err.message).toStatus()));
      return undefined;
    }
    throw err;
  }
}

/**
 * Queues the live changes under `prefix` after `startRev`; a watcher that falls behind is closed.
 * A field selector that pins an indexed field subscribes through its trigger (triggers.ts), so
 * only changes of objects with that value reach the queue. Returns the unsubscribe.
 */
function subscribeChanges(
  queue: WatchQueue,
  store: Store,
  startRev: number,
  prefix: string,
  s: WatchSettings,
  def: ResourceDef,
  fieldSelector: FieldSelector | undefined,
): () => void {
  const listener = (change: Change): void => {
    if (change.rv <= startRev || !change.key.startsWith(prefix)) return;
    if (queue.length >= s.maxQueue) {
      s.logger.warn(
        { resource: def.resource, queued: queue.length },
        'closing a watch that does not keep up; the client will resume from its last ' +
          'resourceVersion',
      );
      queue.close();
      return;
    }
    queue.push({ kind: 'change', change });
  };
  const trigger = triggerOf(def, fieldSelector);
  return trigger === undefined
    ? store.subscribe(listener)
    : subscribeTriggered(store, def, prefix, trigger, listener);
}
