// undici's Agent and request() without the package's index: the index loads and runs every part
// of undici on import (fetch, WebSocket, EventSource, the cache, mocks, proxies: most of its
// 700 kB), which the agent never uses and which sat on the bootstrap path and in the idle heap.
// The classes and functions are undici's own, imported by path; request() does what the index's
// request() does (undici index.js makeDispatcher) for the (url, options) form the agent calls.
import type { Agent as AgentType, Dispatcher } from 'undici';
import UndiciAgent from 'undici/lib/dispatcher/agent.js';
import requestApi from 'undici/lib/api/api-request.js';
import undiciGlobal from 'undici/lib/global.js';
import undiciUtil from 'undici/lib/core/util.js';
import undiciBuildConnector from 'undici/lib/core/connect.js';
import { settleOnAbort } from './settle-on-abort.js';

export const Agent = UndiciAgent;
export const buildConnector = undiciBuildConnector;
export type Agent = AgentType;

export type RequestOptions = Omit<Dispatcher.RequestOptions, 'origin' | 'path' | 'method'> & {
  method?: Dispatcher.HttpMethod;
  /** The dispatcher of the call; undici's global one when unset. */
  dispatcher?: Dispatcher;
};

/**
 * undici's request(url, options): the URL checked and split into origin and path as it does; the
 * call settles as soon as an AbortSignal given aborts, even before a connection is made
 * (settle-on-abort.ts).
 */
export function request(url: string | URL, opts: RequestOptions): Promise<Dispatcher.ResponseData> {
  const u = undiciUtil.parseURL(url);
  const dispatcher = opts.dispatcher ?? undiciGlobal.getGlobalDispatcher();
  const signal = opts.signal instanceof AbortSignal ? opts.signal : undefined;
  return settleOnAbort(
    requestApi.call(dispatcher, {
      ...opts,
      origin: u.origin,
      path: u.search ? `${u.pathname}${u.search}` : u.pathname,
      method: opts.method ?? (opts.body ? 'PUT' : 'GET'),
    }),
    signal,
  );
}
