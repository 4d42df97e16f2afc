// /logs/ with enableSystemLogQuery (NodeLogQuery): a request with query parameters is a node log
// query, as the reference's logServer: a parse error is 400, a path besides /logs/ or a
// validation error 406, services go to the journal, one file to the file server; without a
// known parameter the file server answers as before.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Clock } from '../../../../common/util/clock.js';
import { httpError } from '../respond.js';
import { serveJournal } from './journal.js';
import { aggregate, parseNodeLogQuery, validateNodeLogQuery } from './query.js';

export interface NodeLogQueryOptions {
  journalctl: string;
  logDir: string;
  clock: Clock;
}

/** Answers the query, or returns the /logs/ path the file server is to serve. */
export async function serveNodeLogQuery(
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  path: string,
  o: NodeLogQueryOptions,
): Promise<string | undefined> {
  const parsed = parseNodeLogQuery(url.searchParams);
  if (parsed.errors.length > 0) {
    httpError(res, 400, aggregate(parsed.errors));
    return undefined;
  }
  const q = parsed.query;
  if (q === undefined) return path;
  if (path !== '/logs/' && path !== '/logs//') {
    httpError(res, 406, 'path not allowed in query mode');
    return undefined;
  }
  const errors = await validateNodeLogQuery(q, o.logDir);
  if (errors.length > 0) {
    httpError(res, 406, aggregate(errors));
    return undefined;
  }
  if (q.services.length > 0) {
    await serveJournal(req, res, q, o);
    return undefined;
  }
  return `/logs/${(q.files[0] ?? '').replace(/\\/g, '/').replace(/^\/+/, '')}`;
}
