// What the stream translator writes on the WebSocket error channel, as the reference's
// StreamTranslatorHandler: the outcome of the SPDY exec it ran against the agent, decoded as
// client-go's v4 error decoder does, turned back into a metav1.Status.

import { listOf, recordOf } from '../../common/util/json-shape.js';
import { userMessage } from '../../common/util/errors.js';

export interface ExecStatus {
  metadata: Record<string, never>;
  status: 'Success' | 'Failure';
  message?: string;
  reason?: string;
  details?: { causes: { reason?: string; message: string }[] };
  code?: number;
}

export const SUCCESS: ExecStatus = { metadata: {}, status: 'Success' };

export function internalErrorStatus(message: string): ExecStatus {
  return {
    metadata: {},
    status: 'Failure',
    message: `Internal error occurred: ${message}`,
    reason: 'InternalError',
    details: { causes: [{ message }] },
    code: 500,
  };
}

function exitStatus(code: number): ExecStatus {
  return {
    metadata: {},
    status: 'Failure',
    message:
      `command terminated with non-zero exit code: command terminated with exit code ` + `${code}`,
    reason: 'NonZeroExitCode',
    details: { causes: [{ reason: 'ExitCode', message: String(code) }] },
  };
}

/** The agent's v4 error stream text to the status the WebSocket client gets. */
export function statusFromV4(text: string): ExecStatus {
  if (text === '') return SUCCESS;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    return internalErrorStatus(
      `error stream protocol error: ${userMessage(err)} in "${text.slice(0, 256)}"`,
    );
  }
  const s = recordOf(parsed);
  if (s['status'] === 'Success') return SUCCESS;
  if (s['status'] !== 'Failure')
    return internalErrorStatus('error stream protocol error: unknown error');
  if (s['reason'] === 'NonZeroExitCode') {
    const causes = listOf(recordOf(s['details'])['causes']).map(recordOf);
    const cause = causes.find((c) => c['reason'] === 'ExitCode');
    if (cause === undefined)
      return internalErrorStatus('error stream protocol error: no ExitCode cause given');
    const rc =
      typeof cause['message'] === 'string' && /^\d{1,3}$/.test(cause['message'])
        ? Number(cause['message'])
        : NaN;
    if (!(rc >= 0 && rc <= 255))
      return internalErrorStatus(
        `error stream protocol error: invalid exit code value ${JSON.stringify(cause['message'])}`,
      );
    return exitStatus(rc);
  }
  return internalErrorStatus(
    typeof s['message'] === 'string' ? s['message'] : 'error stream protocol error: unknown error',
  );
}

/** A refused SPDY upgrade (the agent's body), as client-go's round tripper reports it. */
export function statusFromRefusal(body: string): ExecStatus {
  try {
    const s = recordOf(JSON.parse(body));
    if (s['kind'] === 'Status' && (s['status'] === 'Failure' || s['status'] === 'Success')) {
      const out: ExecStatus = { metadata: {}, status: s['status'] };
      if (typeof s['message'] === 'string') out.message = s['message'];
      if (typeof s['reason'] === 'string') out.reason = s['reason'];
      if (typeof s['code'] === 'number') out.code = s['code'];
      return out;
    }
  } catch {
    // not a Status: the text is the message
  }
  return internalErrorStatus(`unable to upgrade connection: ${body.trim()}`);
}
