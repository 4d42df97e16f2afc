// One watch stream: line-delimited JSON WatchEvents over a chunked 200 response, or for a client
// that negotiated protobuf, length-prefixed protobuf WatchEvent frames
// (`application/vnd.kubernetes.protobuf;stream=watch`, src/common/protobuf/codec.ts). The start is
// computed and the store listener registered in one synchronous step, so no change is missed
// or sent twice: the initial state (or the stored changes after the requested revision) and the
// live changes line up by revision. Objects that start or stop matching the selectors turn into
// ADDED/DELETED, as the reference's watch cache does.

import type { ServerResponse } from 'node:http';
import { randomInt } from 'node:crypto';
import type { Logger } from '../../common/log/types.js';
import { afterMs, everyMs, type Clock } from '../../common/util/clock.js';
import { expired, type StatusBody } from '../status.js';
import { CompactedError, prefixEnd, type Change, type RawRevision } from '../storage/store.js';
import { decodeRow, objectMatcher, parseRv, waitForRv, type ListOptions } from '../registry/list.js';
import type { Registry } from '../registry/registry.js';
import { apiVersionOf, metaOf, servedShape, type Obj, type ResourceDef } from '../registry/types.js';
import { encodeWatchFrame, PROTOBUF_WATCH_MEDIA_TYPE } from '../../common/protobuf/codec.js';

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
}

type Item =
  | { readonly kind: 'raw'; readonly row: RawRevision; readonly initial: boolean }
  | { readonly kind: 'change'; readonly change: Change }
  | { readonly kind: 'bookmark'; readonly rv: number; readonly initialEnd: boolean };

type EventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

/**
 * Serialized lines (and protobuf frames) shared by all watchers without selector-driven rewrites:
 * one serialization and one UTF-8 encoding per change and content type, however many watch it.
 */
const lineCache = new WeakMap<Change, Buffer>();
const frameCache = new WeakMap<Change, Buffer>();

/** A protobuf watch frame of an event (the object's own kind and apiVersion name its message). */
export function watchFrame(type: EventType, object: Obj | StatusBody): Buffer {
  const o = object as Obj;
  return encodeWatchFrame(type, o, String(o['apiVersion'] ?? ''), String(o['kind'] ?? ''));
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
  const end = prefixEnd(prefix);
  const matches = objectMatcher(def, o);
  const filtered = o.labelSelector !== undefined || o.fieldSelector !== undefined || o.shardSelector !== undefined;
  const apiVersion = apiVersionOf(def);
  const proto = protobuf && render === undefined;
  const frame = (type: EventType, object: Obj | StatusBody): string | Buffer => (proto ? watchFrame(type, object) : watchLine(type, object));
  const cache: WeakMap<Change, Buffer> = proto ? frameCache : lineCache;

  await waitForRv(registry, o);
  res.writeHead(200, { 'Content-Type': proto ? PROTOBUF_WATCH_MEDIA_TYPE : 'application/json', 'Cache-Control': 'no-cache, private', 'Transfer-Encoding': 'chunked' });
  res.flushHeaders();

  const queue: Item[] = [];
  let wake: (() => void) | undefined;
  let closed = false;
  const rvParam = o.resourceVersion === undefined ? undefined : parseRv(o.resourceVersion);
  const current = store.currentRevision();
  const initial = o.sendInitialEvents === true || (o.sendInitialEvents === undefined && (rvParam === undefined || rvParam === 0));
  const startRev = initial ? current : (rvParam ?? current);
  try {
    if (initial) {
      for (const row of store.rangeRaw(prefix, end, current)) queue.push({ kind: 'raw', row, initial: true });
      if (o.sendInitialEvents === true) queue.push({ kind: 'bookmark', rv: current, initialEnd: true });
    } else if (startRev < current) {
      for (const row of store.changesRaw(startRev, current, prefix, end)) queue.push({ kind: 'raw', row, initial: false });
    }
  } catch (err) {
    if (err instanceof CompactedError) {
      res.end(frame('ERROR', expired(err.message).toStatus()));
      return;
    }
    throw err;
  }
  const push = (item: Item): void => {
    queue.push(item);
    const w = wake;
    wake = undefined;
    w?.();
  };
  const unsubscribe = store.subscribe((change) => {
    if (change.rv <= startRev || !change.key.startsWith(prefix)) return;
    if (queue.length >= s.maxQueue) {
      s.logger.warn({ resource: def.resource, queued: queue.length }, 'closing a watch that does not keep up; the client will resume from its last resourceVersion');
      close();
      return;
    }
    push({ kind: 'change', change });
  });

  const timeoutMs =
    o.timeoutSeconds !== undefined && o.timeoutSeconds > 0
      ? o.timeoutSeconds * 1000
      : (s.minRequestTimeoutSeconds + randomInt(Math.max(1, s.minRequestTimeoutSeconds))) * 1000;
  let timedOut = false;
  const cancelTimeout = afterMs(s.clock, timeoutMs, () => {
    timedOut = true;
    if (o.allowWatchBookmarks) push({ kind: 'bookmark', rv: store.currentRevision(), initialEnd: false });
    else close();
  });
  const stopBookmarks = o.allowWatchBookmarks
    ? everyMs(s.clock, s.bookmarkIntervalMs, () => {
        if (queue.length === 0) push({ kind: 'bookmark', rv: store.currentRevision(), initialEnd: false });
      })
    : undefined;

  function close(): void {
    if (closed) return;
    closed = true;
    unsubscribe();
    cancelTimeout();
    stopBookmarks?.();
    const w = wake;
    wake = undefined;
    w?.();
  }
  signal.addEventListener('abort', close, { once: true });
  res.on('close', close);

  const write = async (line: string | Buffer): Promise<void> => {
    if (closed) return;
    if (!res.write(line)) {
      await new Promise<void>((resolve) => {
        const done = (): void => {
          res.off('drain', done);
          res.off('close', done);
          resolve();
        };
        res.on('drain', done);
        res.on('close', done);
      });
    }
  };

  const withKind = (obj: Obj): Obj => {
    if (def.view !== undefined) return servedShape(def, obj);
    obj['kind'] = def.kind;
    obj['apiVersion'] = apiVersion;
    return obj;
  };

  try {
    while (!closed) {
      const item = queue.shift();
      if (item === undefined) {
        await new Promise<void>((resolve) => (wake = resolve));
        continue;
      }
      if (item.kind === 'bookmark') {
        const metadata: Obj = { resourceVersion: String(item.rv) };
        if (item.initialEnd) metadata['annotations'] = { [`${s.platformDomain}/initial-events-end`]: 'true' };
        await write(frame('BOOKMARK', { kind: def.kind, apiVersion, metadata }));
        if (timedOut && !item.initialEnd) close();
        continue;
      }
      if (item.kind === 'change') {
        const c = item.change;
        // The previous state matters only to selectors (an object that stops matching).
        const prev = filtered && c.prev !== undefined ? withKind({ ...c.prev }) : undefined;
        const ev = eventFor(c.type, withKind(c.object), prev, c.rv, matches, filtered);
        if (ev === undefined) continue;
        // The frame cache is per change, shared by every watcher: a view's frames differ from its storage's.
        if (render === undefined && def.view === undefined && (!filtered || ev.cacheable)) {
          let bytes = cache.get(c);
          if (bytes === undefined) {
            const f = frame(ev.type, ev.object);
            bytes = typeof f === 'string' ? Buffer.from(f, 'utf8') : f;
            cache.set(c, bytes);
          }
          await write(bytes);
        } else await write(frame(ev.type, render === undefined ? ev.object : render(ev.object)));
        continue;
      }
      const row = item.row;
      const obj = await decodeRow(registry, def, row.key, row.rv, row.value);
      if (item.initial) {
        if (matches(obj)) await write(frame('ADDED', render === undefined ? obj : render(obj)));
        continue;
      }
      let prev: Obj | undefined;
      if (filtered && row.type !== 'ADDED') {
        const p = row.type === 'DELETED' ? undefined : store.previousRaw(row.key, row.rv);
        prev = p === undefined ? (row.type === 'DELETED' ? obj : undefined) : await decodeRow(registry, def, p.key, p.rv, p.value);
      }
      const ev = eventFor(row.type, obj, row.type === 'DELETED' ? obj : prev, row.rv, matches, filtered);
      if (ev !== undefined) await write(frame(ev.type, render === undefined ? ev.object : render(ev.object)));
    }
  } catch (err) {
    s.logger.warn({ err, resource: def.resource }, 'watch stream ended by an error');
    if (!res.writableEnded && !res.destroyed) {
      const status = err instanceof Error && 'toStatus' in err && typeof err.toStatus === 'function' ? (err.toStatus as () => StatusBody)() : undefined;
      if (status !== undefined) res.write(frame('ERROR', status));
    }
  } finally {
    close();
    if (!res.writableEnded) res.end();
  }
}

/** The event a watcher with these selectors gets for one change (undefined: none). */
function eventFor(
  type: 'ADDED' | 'MODIFIED' | 'DELETED',
  cur: Obj,
  prev: Obj | undefined,
  rv: number,
  matches: (o: Obj) => boolean,
  filtered: boolean,
): { type: EventType; object: Obj; cacheable: boolean } | undefined {
  if (!filtered) return { type, object: cur, cacheable: true };
  if (type === 'ADDED') return matches(cur) ? { type, object: cur, cacheable: true } : undefined;
  if (type === 'DELETED') return matches(cur) ? { type, object: cur, cacheable: true } : undefined;
  const curOk = matches(cur);
  const prevOk = prev !== undefined && matches(prev);
  if (curOk && prevOk) return { type: 'MODIFIED', object: cur, cacheable: true };
  if (curOk) return { type: 'ADDED', object: cur, cacheable: false };
  if (prevOk && prev !== undefined) {
    const gone = { ...prev, metadata: { ...metaOf(prev), resourceVersion: String(rv) } };
    return { type: 'DELETED', object: gone, cacheable: false };
  }
  return undefined;
}
