// Watch streams: line-delimited JSON watch events, read as an async iterator that survives
// disconnects (it resumes from the last resourceVersion it saw, bookmarks included) and a 410
// Gone (it lists again and yields a RELIST event with the fresh list).
import type { Readable } from 'node:stream';
import { ApiError, isGone } from '../../common/util/errors.js';
import type { Clock } from '../../common/util/clock.js';
import { BackoffSequence } from '../../common/util/backoff.js';
import type { Logger } from '../../common/log/types.js';
import { isStatus, type ApiObject, type ObjectList, type WatchEvent } from './types.js';

/** Splits a byte stream into parsed JSON lines. */
export async function* readJsonLines(body: Readable | AsyncIterable<Uint8Array | string>): AsyncGenerator<unknown> {
  const decoder = new TextDecoder();
  let buf = '';
  for await (const chunk of body as AsyncIterable<Uint8Array | string>) {
    buf += typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true });
    let nl: number;
    while ((nl = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, nl).trim();
      buf = buf.slice(nl + 1);
      if (line) yield JSON.parse(line) as unknown;
    }
  }
  buf += decoder.decode();
  if (buf.trim()) yield JSON.parse(buf.trim()) as unknown;
}

export interface WatchSource<T extends ApiObject> {
  /** Lists (for the initial state and after a 410). */
  list(signal: AbortSignal): Promise<ObjectList<T>>;
  /** Opens one watch stream from `resourceVersion`. */
  open(resourceVersion: string | undefined, signal: AbortSignal): Promise<Readable>;
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

/**
 * Watch that keeps going until the consumer stops iterating or the signal aborts. Errors other
 * than disconnects and 410 (e.g. 403) end the iteration with the ApiError.
 */
export async function* resilientWatch<T extends ApiObject>(source: WatchSource<T>, options: ResilientWatchOptions): AsyncGenerator<WatchEvent<T>> {
  const ac = new AbortController();
  const onAbort = (): void => ac.abort(options.signal?.reason);
  options.signal?.addEventListener('abort', onAbort, { once: true });
  const backoff = new BackoffSequence({ clock: options.clock, policy: { initialMs: options.reconnectDelayMs ?? 500, maxMs: options.maxReconnectDelayMs ?? 30_000 } });
  let rv = options.resourceVersion;
  let needList = rv === undefined;
  try {
    while (!ac.signal.aborted) {
      if (needList) {
        const list = await source.list(ac.signal);
        rv = list.metadata?.resourceVersion;
        needList = false;
        yield { type: 'RELIST', object: list };
      }
      let stream: Readable;
      try {
        stream = await source.open(rv, ac.signal);
      } catch (err) {
        if (ac.signal.aborted) return;
        if (isGone(err)) {
          options.logger.info({ resourceVersion: rv }, 'watch resourceVersion is too old; listing again');
          needList = true;
          continue;
        }
        if (err instanceof ApiError && err.status < 500 && err.status !== 429) throw err;
        options.logger.debug({ err: (err as Error).message, delayMs: backoff.peekMs() }, 'watch could not be opened; retrying');
        await backoff.sleep(ac.signal);
        continue;
      }
      let sawEvent = false;
      try {
        for await (const raw of readJsonLines(stream)) {
          const ev = raw as { type?: string; object?: unknown };
          if (ev.type === 'ERROR') {
            const st = ev.object;
            const code = isStatus(st) ? (st.code ?? 500) : 500;
            if (code === 410) {
              options.logger.info({ resourceVersion: rv }, 'watch expired (410); listing again');
              needList = true;
              break;
            }
            const message = isStatus(st) ? (st.message ?? 'watch error') : 'watch error';
            throw new ApiError(`watch: ${message}`, { status: code, reason: isStatus(st) ? (st.reason ?? 'Unknown') : 'Unknown', details: isStatus(st) ? st.details : undefined });
          }
          const obj = ev.object as T | undefined;
          if (!obj || (ev.type !== 'ADDED' && ev.type !== 'MODIFIED' && ev.type !== 'DELETED' && ev.type !== 'BOOKMARK')) continue;
          const next = obj.metadata?.resourceVersion;
          if (next) rv = next;
          sawEvent = true;
          backoff.reset();
          yield { type: ev.type, object: obj };
        }
      } catch (err) {
        if (ac.signal.aborted) return;
        if (err instanceof ApiError) throw err;
        options.logger.debug({ err: (err as Error).message }, 'watch stream broke; resuming');
      } finally {
        stream.destroy();
      }
      if (ac.signal.aborted) return;
      // A clean end (server timeout) resumes at once; a stream that ended with nothing backs off.
      if (!sawEvent && !needList) {
        await backoff.sleep(ac.signal).catch(() => undefined);
      }
    }
  } finally {
    options.signal?.removeEventListener('abort', onAbort);
    ac.abort();
  }
}
