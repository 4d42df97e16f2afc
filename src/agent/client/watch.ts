// Watch streams: line-delimited JSON watch events, read as an async iterator that survives
// disconnects (it resumes from the last resourceVersion it saw, bookmarks included) and a 410
// Gone (it lists again and yields a RELIST event with the fresh list).
import type { Readable } from 'node:stream';
import {
  ApiError,
  isGone,
  isTooLargeResourceVersion,
  userMessage,
} from '../../common/util/errors.js';
import type { Clock } from '../../common/util/clock.js';
import { BackoffSequence } from '../../common/util/backoff.js';
import { closeUnread } from '../../common/util/close-unread.js';
import type { Logger } from '../../common/log/types.js';
import { isStatus, type ApiObject, type ObjectList, type WatchEvent } from './types.js';
import { isRecord } from '../../common/util/json-shape.js';
import { apiSchemas } from './answer-decoder.js';

/** Splits a byte stream into parsed JSON lines. */
export async function* readJsonLines(
  body: Readable | AsyncIterable<Uint8Array | string>,
): AsyncGenerator {
  const decoder = new TextDecoder();
  let buf = '';
  for await (const chunk of body as AsyncIterable<Uint8Array | string>) {
    buf += typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true });
    let nl: number;
    while ((nl = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, nl).trim();
      buf = buf.slice(nl + 1);
      if (line) {
        const value: unknown = JSON.parse(line);
        yield value;
      }
    }
  }
  buf += decoder.decode();
  if (buf.trim()) {
    const value: unknown = JSON.parse(buf.trim());
    yield value;
  }
}

export interface WatchSource<T extends ApiObject> {
  /** Lists (for the initial state and after a 410). */
  list(signal: AbortSignal): Promise<ObjectList<T>>;
  /** Opens one watch stream from `resourceVersion`. */
  open(resourceVersion: string | undefined, signal: AbortSignal): Promise<Readable>;
  /**
   * Decodes one watched object into T; throws (with a message naming the fields) when it is not
   * one.
   */
  decode(object: unknown): Promise<T>;
}

export interface ResilientWatchOptions {
  /** Start here; when unset the watch starts from a list (yielded as RELIST). */
  resourceVersion?: string;
  signal?: AbortSignal;
  clock: Clock;
  logger: Logger;
  /** Delay before reopening after a disconnect; doubles up to maxReconnectDelayMs. */
  reconnectDelayMs?: number;
  maxReconnectDelayMs?: number;
}

/** Where the watch is: the resourceVersion to resume from, and whether it must list first. */
interface WatchCursor {
  rv: string | undefined;
  needList: boolean;
}

/** What one watch loop needs besides the cursor. */
interface WatchLoop<T extends ApiObject> {
  readonly source: WatchSource<T>;
  readonly options: ResilientWatchOptions;
  readonly backoff: BackoffSequence;
  readonly signal: AbortSignal;
  readonly cursor: WatchCursor;
}

/**
 * One line of a watch stream: `{type, object}` (api-schemas.ts's WatchLineSchema, for its error).
 */
function isWatchLine(raw: unknown): raw is { type: string; object?: unknown } {
  return isRecord(raw) && typeof raw.type === 'string';
}

const OBJECT_EVENTS = new Set(['ADDED', 'MODIFIED', 'DELETED', 'BOOKMARK']);
type ObjectEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK';

function isObjectEventType(type: string): type is ObjectEventType {
  return OBJECT_EVENTS.has(type);
}

/**
 * Opens a stream from the cursor; undefined when the loop should go round again (relist, retry,
 * stop).
 */
async function openStream<T extends ApiObject>(loop: WatchLoop<T>): Promise<Readable | undefined> {
  const { cursor, options, signal } = loop;
  try {
    return await loop.source.open(cursor.rv, signal);
  } catch (err) {
    if (signal.aborted) return undefined;
    if (isGone(err) || isTooLargeResourceVersion(err)) {
      options.logger.info(
        { resourceVersion: cursor.rv, err: userMessage(err) },
        isGone(err)
          ? 'watch resourceVersion is too old; listing again'
          : 'the API server has not reached the watch resourceVersion (restarted?); ' +
              'listing again from the latest',
      );
      cursor.needList = true;
      return undefined;
    }
    if (err instanceof ApiError && err.status < 500 && err.status !== 429) throw err;
    options.logger.debug(
      { err: userMessage(err), delayMs: loop.backoff.peekMs() },
      'watch could not be opened; retrying',
    );
    await loop.backoff.sleep(signal);
    return undefined;
  }
}

/**
 * An ERROR event: 'expired' for a 410 or a resourceVersion the server has not reached (list
 * again), else the ApiError that ends the watch.
 */
function watchError(object: unknown): ApiError | 'expired' {
  if (!isStatus(object))
    return new ApiError('watch: watch error', {
      status: 500,
      reason: 'Unknown',
      details: undefined,
    });
  const code = object.code ?? 500;
  if (code === 410) return 'expired';
  const failure = new ApiError(`watch: ${object.message ?? 'watch error'}`, {
    status: code,
    reason: object.reason ?? 'Unknown',
    details: object.details,
  });
  return isTooLargeResourceVersion(failure) ? 'expired' : failure;
}

/** A line as an object event, or undefined (logged) when it is not one the consumer can take. */
async function objectEvent<T extends ApiObject>(
  loop: WatchLoop<T>,
  type: string,
  object: unknown,
): Promise<WatchEvent<T> | undefined> {
  if (!isObjectEventType(type)) {
    loop.options.logger.info({ type }, 'watch event of an unknown type skipped');
    return undefined;
  }
  try {
    return { type, object: await loop.source.decode(object) };
  } catch (err) {
    loop.options.logger.warn(
      { type, err: userMessage(err) },
      'watch event skipped: its object cannot be decoded',
    );
    return undefined;
  }
}

/** Reads one stream to its end, yielding its events; resolves whether it carried any. */
async function* readStream<T extends ApiObject>(
  loop: WatchLoop<T>,
  stream: Readable,
): AsyncGenerator<WatchEvent<T>, boolean> {
  const { cursor, options } = loop;
  let sawEvent = false;
  try {
    // Leaving the loop does not destroy the stream (that would destroy it with an error): the
    // finally below closes it quietly.
    for await (const raw of readJsonLines(
      stream.iterator({ destroyOnReturn: false }) as AsyncIterable<Uint8Array | string>,
    )) {
      if (!isWatchLine(raw)) {
        options.logger.warn(
          { err: (await apiSchemas()).watchLineProblem(raw) },
          'watch line skipped: it is not a watch event',
        );
        continue;
      }
      if (raw.type === 'ERROR') {
        const failure = watchError(raw.object);
        if (failure instanceof ApiError) throw failure;
        options.logger.info({ resourceVersion: cursor.rv }, 'watch expired (410); listing again');
        cursor.needList = true;
        break;
      }
      const event = await objectEvent(loop, raw.type, raw.object);
      if (event === undefined) continue;
      const next = event.object.metadata?.resourceVersion;
      if (next) cursor.rv = next;
      sawEvent = true;
      loop.backoff.reset();
      yield event;
    }
  } catch (err) {
    if (loop.signal.aborted || err instanceof ApiError) throw err;
    options.logger.debug({ err: userMessage(err) }, 'watch stream broke; resuming');
  } finally {
    closeUnread(stream);
  }
  return sawEvent;
}

/**
 * Watch that keeps going until the consumer stops iterating or the signal aborts. Errors other
 * than disconnects and 410 (e.g. 403) end the iteration with the ApiError. An event whose
 * object is not of the watched kind is skipped with a warning naming the fields at fault.
 */
export async function* resilientWatch<T extends ApiObject>(
  source: WatchSource<T>,
  options: ResilientWatchOptions,
): AsyncGenerator<WatchEvent<T>> {
  const ac = new AbortController();
  const onAbort = (): void => ac.abort(options.signal?.reason);
  options.signal?.addEventListener('abort', onAbort, { once: true });
  const backoff = new BackoffSequence({
    clock: options.clock,
    policy: {
      initialMs: options.reconnectDelayMs ?? 500,
      maxMs: options.maxReconnectDelayMs ?? 30_000,
    },
  });
  const cursor: WatchCursor = {
    rv: options.resourceVersion,
    needList: options.resourceVersion === undefined,
  };
  const loop: WatchLoop<T> = { source, options, backoff, signal: ac.signal, cursor };
  try {
    while (!ac.signal.aborted) {
      if (cursor.needList) {
        const list = await source.list(ac.signal);
        cursor.rv = list.metadata?.resourceVersion;
        cursor.needList = false;
        yield { type: 'RELIST', object: list };
      }
      const stream = await openStream(loop);
      if (stream === undefined) continue;
      let sawEvent: boolean;
      try {
        sawEvent = yield* readStream(loop, stream);
      } catch (err) {
        // The signal may abort while the stream is read.
        // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition
        if (ac.signal.aborted) return;
        throw err;
      }
      // The signal may abort while the stream is read.
      // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition
      if (ac.signal.aborted) return;
      // A clean end (server timeout) resumes at once; a stream that ended with nothing backs off.
      // ReadStream sets needList on a 410.
      // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition
      if (!sawEvent && !cursor.needList) await backoff.sleep(ac.signal).catch(() => undefined);
    }
  } finally {
    options.signal?.removeEventListener('abort', onAbort);
    ac.abort();
  }
}
