// pods/log as the reference's LogREST: the options validated, the container and node resolved,
// the agent's /containerLogs streamed to the client as text/plain. A pod without a node answers
// an empty log; an agent refusal is mapped as GenericHttpResponseChecker maps it.

import type { ServerResponse } from 'node:http';
import { StatusError, badRequest, internalError } from '../status.js';
import {
  agentUrl,
  AgentDialError,
  dialAgent,
  readBody,
  type AgentTarget,
  type AgentTls,
} from './agent-dial.js';
import { UnknownStatusError } from './errors.js';
import { goQuote } from '../../common/util/go-quote.js';

const MAX_ERROR_BODY = 50_000;

/** The reference's NewGenericServerResponse for a kubelet answer outside 200-206. */
export function agentLogRefusal(code: number, body: string, podName: string): StatusError {
  if (code === 500) return internalError(body);
  if (code === 400) return badRequest(body);
  const table: Record<number, [string, string]> = {
    403: ['Forbidden', body],
    404: ['NotFound', 'the server could not find the requested resource'],
    503: ['ServiceUnavailable', 'the server is currently unable to handle the request'],
  };
  const [reason, message] =
    table[code] ??
    (code > 500
      ? [
          'InternalError',
          `an error on the server (${JSON.stringify(body)}) has prevented the request ` +
            `from succeeding`,
        ]
      : [
          '',
          `the server responded with the status code ${code} but did not return more information`,
        ]);
  return new StatusError(code, reason, `${message} ( pods/log ${podName})`, {
    name: podName,
    kind: 'pods/log',
  });
}

export async function streamLog(o: {
  res: ServerResponse;
  target: AgentTarget;
  tls: AgentTls;
  insecure: boolean;
  podName: string;
  signal: AbortSignal;
}): Promise<void> {
  let answer;
  try {
    answer = await dialAgent({
      target: o.target,
      tls: o.tls,
      insecure: o.insecure,
      method: 'GET',
      headers: {},
      signal: o.signal,
    });
  } catch (err) {
    if (err instanceof AgentDialError)
      throw new UnknownStatusError(`Get ${goQuote(agentUrl(o.target))}: ${err.message}`);
    throw err;
  }
  if (answer.kind !== 'response') {
    answer.socket.destroy();
    throw new UnknownStatusError('the agent upgraded a log request');
  }
  const from = answer.response;
  const code = from.statusCode ?? 0;
  if (code < 200 || code > 206)
    throw agentLogRefusal(code, (await readBody(from, MAX_ERROR_BODY)).toString('utf8'), o.podName);
  o.res.writeHead(200, { 'content-type': 'text/plain', 'cache-control': 'no-cache, private' });
  o.res.flushHeaders();
  await new Promise<void>((resolve) => {
    from.pipe(o.res);
    from.once('end', () => resolve());
    from.once('error', () => {
      o.res.destroy();
      resolve();
    });
    o.res.once('close', () => {
      from.destroy();
      resolve();
    });
  });
}
