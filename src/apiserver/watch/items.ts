// Serving one queued item of a watch stream: a bookmark, a live change (its serialization shared
// by every watcher that sees it unchanged), or a stored revision (initial state or replay).

import type { StatusBody } from '../status.js';
import type { Change } from '../storage/store.js';
import { encodeWatchFrameOf } from '../../common/protobuf/codec.js';
import { decodeRow, itemMessage } from '../registry/list.js';
import type { Registry } from '../registry/registry.js';
import { servedShape, type Obj, type ResourceDef } from '../registry/types.js';
import { eventFor, type EventType } from './events.js';
import type { WatchItem, WatchQueue } from './queue.js';

/** Makes a change's protobuf frame elsewhere; undefined when it could not (then made here). */
export type FrameMaker = (
  type: EventType,
  object: Obj,
  objectKind: string,
  apiVersion: string,
) => Promise<Buffer | undefined>;

/** What serving one watch stream's items needs. */
export interface WatchRun {
  readonly registry: Registry;
  readonly def: ResourceDef;
  readonly apiVersion: string;
  readonly platformDomain: string;
  readonly matches: (o: Obj) => boolean;
  /** Selectors are given: objects may start or stop matching. */
  readonly filtered: boolean;
  /** Rewrites each event object (server-side printing as a Table); undefined keeps it. */
  readonly render: ((obj: Obj) => Obj) | undefined;
  /** Frames are protobuf (no render). */
  readonly protobuf: boolean;
  readonly frame: (type: EventType, object: Obj | StatusBody) => string | Buffer;
  /**
   * Serialized frames per change, shared by all watchers of the same content type (a promise
   * while a worker thread makes it: every watcher waits for the same one).
   */
  readonly cache: WeakMap<Change, Buffer | Promise<Buffer>>;
  /** Protobuf streams with --worker-threads: a change's frame made on a thread. */
  readonly frameElsewhere: FrameMaker | undefined;
  readonly queue: WatchQueue;
  /** Writes a frame unless the stream has closed, waiting for the socket to drain. */
  readonly write: (chunk: string | Buffer) => Promise<void>;
  /** The request timeout has passed (the next bookmark ends the stream). */
  readonly timedOut: () => boolean;
}

export async function serveItem(run: WatchRun, item: WatchItem): Promise<void> {
  switch (item.kind) {
    case 'bookmark':
      return serveBookmark(run, item.rv, item.initialEnd);
    case 'change':
      return serveChange(run, item.change);
    case 'raw':
      return serveRow(run, item);
  }
}

async function serveBookmark(run: WatchRun, rv: number, initialEnd: boolean): Promise<void> {
  const metadata: Obj = { resourceVersion: String(rv) };
  if (initialEnd)
    metadata['annotations'] = { [`${run.platformDomain}/initial-events-end`]: 'true' };
  await run.write(
    run.frame('BOOKMARK', { kind: run.def.kind, apiVersion: run.apiVersion, metadata }),
  );
  if (run.timedOut() && !initialEnd) run.queue.close();
}

async function serveChange(run: WatchRun, c: Change): Promise<void> {
  // The previous state matters only to selectors (an object that stops matching).
  const prev = run.filtered && c.prev !== undefined ? withKind(run, { ...c.prev }) : undefined;
  const ev = eventFor(c.type, withKind(run, c.object), prev, c.rv, run.matches, run.filtered);
  if (ev === undefined) return;
  // The frame cache is per change, shared by every watcher: a view's frames differ from its
  // storage's.
  if (run.render === undefined && run.def.view === undefined && (!run.filtered || ev.cacheable)) {
    let bytes = run.cache.get(c);
    if (bytes === undefined) {
      bytes = sharedFrame(run, ev.type, ev.object);
      run.cache.set(c, bytes);
    }
    await run.write(bytes instanceof Buffer ? bytes : await bytes);
  } else await run.write(run.frame(ev.type, rendered(run, ev.object)));
}

/** A change's frame for every watcher: made here, or on a worker thread (here if it cannot). */
function sharedFrame(run: WatchRun, type: EventType, object: Obj): Buffer | Promise<Buffer> {
  const here = (): Buffer => {
    const f = run.frame(type, object);
    return typeof f === 'string' ? Buffer.from(f, 'utf8') : f;
  };
  const elsewhere = run.frameElsewhere;
  if (elsewhere === undefined) return here();
  // The object is read now, before any later change could touch it.
  return elsewhere(type, object, run.def.kind, run.apiVersion).then((b) => b ?? here());
}

async function serveRow(run: WatchRun, item: Extract<WatchItem, { kind: 'raw' }>): Promise<void> {
  const { registry, def } = run;
  const row = item.row;
  if (item.initial && run.protobuf && !run.filtered) {
    // The initial state in protobuf: the object's message from the list cache, encoded once.
    const m = await itemMessage(registry, def, row);
    if (typeof m !== 'string') {
      await run.write(encodeWatchFrameOf('ADDED', m, run.apiVersion, def.kind));
      return;
    }
  }
  const obj = await decodeRow(registry, def, row.key, row.rv, row.value);
  if (item.initial) {
    if (run.matches(obj)) await run.write(run.frame('ADDED', rendered(run, obj)));
    return;
  }
  let prev: Obj | undefined;
  if (run.filtered && row.type !== 'ADDED') {
    const p = row.type === 'DELETED' ? undefined : registry.store.previousRaw(row.key, row.rv);
    prev =
      p === undefined
        ? row.type === 'DELETED'
          ? obj
          : undefined
        : await decodeRow(registry, def, p.key, p.rv, p.value);
  }
  const ev = eventFor(
    row.type,
    obj,
    row.type === 'DELETED' ? obj : prev,
    row.rv,
    run.matches,
    run.filtered,
  );
  if (ev !== undefined) await run.write(run.frame(ev.type, rendered(run, ev.object)));
}

function rendered(run: WatchRun, obj: Obj): Obj {
  return run.render === undefined ? obj : run.render(obj);
}

/**
 * A stored object as served: the view's shape, or the storage form with its kind and apiVersion.
 */
function withKind(run: WatchRun, obj: Obj): Obj {
  if (run.def.view !== undefined) return servedShape(run.def, obj);
  obj['kind'] = run.def.kind;
  obj['apiVersion'] = run.apiVersion;
  return obj;
}
