// Writing responses: JSON (pretty when asked), Status errors, and Warning headers.

import type { ServerResponse } from 'node:http';
import { internalError, StatusError, type StatusBody } from '../status.js';
import type { BodyEncoder } from './protobuf.js';

export interface ResponseContext {
  readonly pretty: boolean;
  readonly warnings: string[];
  /** The negotiated non-JSON encoding (protobuf); absent: JSON. */
  readonly encoder?: BodyEncoder | undefined;
}

function setWarnings(res: ServerResponse, ctx: ResponseContext): void {
  if (ctx.warnings.length > 0) {
    res.setHeader(
      'Warning',
      ctx.warnings.map((w) => `299 - ${JSON.stringify(w)}`),
    );
  }
}

/** Whether a body is sent as compact JSON (then sendJsonText may send text made ahead). */
export function compactJson(ctx: ResponseContext): boolean {
  return ctx.encoder === undefined && !ctx.pretty;
}

/** Sends JSON text already serialized (only when compactJson(ctx)). */
export function sendJsonText(
  res: ServerResponse,
  code: number,
  text: string,
  ctx: ResponseContext,
): void {
  setWarnings(res, ctx);
  res.writeHead(code, {
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(text),
    'Cache-Control': 'no-cache, private',
  });
  res.end(text);
}

/** Sends a body already encoded in the negotiated non-JSON encoding (ctx.encoder). */
export function sendEncoded(
  res: ServerResponse,
  code: number,
  body: Buffer,
  ctx: ResponseContext & { readonly encoder: BodyEncoder },
): void {
  setWarnings(res, ctx);
  res.writeHead(code, {
    'Content-Type': ctx.encoder.contentType,
    'Content-Length': body.length,
    'Cache-Control': 'no-cache, private',
  });
  res.end(body);
}

export function sendJson(
  res: ServerResponse,
  code: number,
  body: unknown,
  ctx: ResponseContext,
): void {
  setWarnings(res, ctx);
  const encoded = ctx.encoder?.encode(body);
  if (encoded !== undefined && ctx.encoder !== undefined) {
    res.writeHead(code, {
      'Content-Type': ctx.encoder.contentType,
      'Content-Length': encoded.length,
      'Cache-Control': 'no-cache, private',
    });
    res.end(encoded);
    return;
  }
  const text = ctx.pretty ? `${JSON.stringify(body, null, 2)}\n` : JSON.stringify(body);
  res.writeHead(code, {
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(text),
    'Cache-Control': 'no-cache, private',
  });
  res.end(text);
}

export function sendText(res: ServerResponse, code: number, text: string): void {
  res.writeHead(code, {
    'Content-Type': 'text/plain; charset=utf-8',
    'Content-Length': Buffer.byteLength(text),
    'X-Content-Type-Options': 'nosniff',
  });
  res.end(text);
}

/** The Status body of any error: StatusErrors as they are, anything else as a 500. */
export function statusOf(err: unknown): StatusBody {
  if (err instanceof StatusError) return err.toStatus();
  const code =
    typeof err === 'object' &&
    err !== null &&
    'status' in err &&
    typeof err.status === 'number' &&
    'reason' in err &&
    typeof err.reason === 'string'
      ? { status: err.status, reason: err.reason }
      : undefined;
  if (code !== undefined && err instanceof Error) {
    // ApiError from admission plugins and the libraries: keep their code, reason and details.
    const details =
      'details' in err &&
      err.details !== undefined &&
      err.details !== null &&
      typeof err.details === 'object'
        ? err.details
        : undefined;
    return {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: err.message,
      reason: code.reason,
      ...(details === undefined ? {} : { details }),
      code: code.status,
    };
  }
  return internalError(err instanceof Error ? err.message : String(err)).toStatus();
}

export function sendError(res: ServerResponse, err: unknown, ctx: ResponseContext): void {
  const status = statusOf(err);
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const retry = status.details?.retryAfterSeconds;
  if (retry !== undefined) res.setHeader('Retry-After', String(retry));
  sendJson(res, status.code, status, ctx);
}
