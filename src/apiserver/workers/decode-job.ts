// Decoding a request body on a worker thread. The thread runs the whole of decodeBody (the
// bounded parse, the duplicate-key scan, the kind's schema check) and sends back the object as
// JSON text with its unknown and duplicate fields; the main thread then pays only JSON.parse of
// that text, which is native and several times cheaper than the checks it replaces. A body the
// thread refuses comes back as the same DecodeError, limit and YAML conversion words included.

import { InputLimitError } from '../../common/util/errors.js';
import { decodeBody, DecodeError, type DecodeOptions, type DecodeResult } from '../decode.js';
import type { DecodeFailure, DecodeJob, JobResult } from './messages.js';
import type { ThreadPool } from './thread-pool.js';

/** The thread's side: the job's answer. */
export function runDecodeJob(job: DecodeJob): JobResult {
  try {
    const r = decodeBody({
      body: job.body,
      contentType: job.contentType,
      kind: job.objectKind,
      apiVersion: job.apiVersion,
      exactGvk: job.exactGvk,
    });
    const decoded = {
      text: JSON.stringify(r.object),
      unknownFields: r.unknownFields,
      duplicateFields: r.duplicateFields,
    };
    return { ok: true, decoded };
  } catch (err) {
    if (err instanceof DecodeError) return { ok: false, decodeError: failureOf(err) };
    return { ok: false, error: err instanceof Error ? err.message : String(err) };
  }
}

function failureOf(e: DecodeError): DecodeFailure {
  const l = e.limit;
  return {
    message: e.message,
    ...(e.yamlConversion === undefined ? {} : { yamlConversion: e.yamlConversion }),
    ...(l === undefined
      ? {}
      : {
          limit: {
            message: l.message,
            limit: l.limit,
            max: l.max,
            source: l.source,
            offset: l.offset,
            field: l.field,
          },
        }),
  };
}

function decodeErrorOf(f: DecodeFailure): DecodeError {
  const l = f.limit;
  const limit =
    l === undefined
      ? undefined
      : new InputLimitError(l.message, {
          limit: l.limit,
          max: l.max,
          source: l.source,
          offset: l.offset,
          field: l.field,
        });
  return new DecodeError(f.message, limit, f.yamlConversion);
}

/** The main thread's side: decodeBody's result, from the pool when a thread is running. */
export async function decodeOnPool(pool: ThreadPool, o: DecodeOptions): Promise<DecodeResult> {
  const job: DecodeJob = {
    kind: 'decode',
    body: o.body,
    contentType: o.contentType,
    objectKind: o.kind,
    apiVersion: o.apiVersion,
    exactGvk: o.exactGvk === true,
  };
  const result = await pool.tryRun(job);
  if (result === undefined) return decodeBody(o);
  if (!result.ok) {
    if ('decodeError' in result) throw decodeErrorOf(result.decodeError);
    throw new Error(`decoding the body on a worker thread failed: ${result.error}`);
  }
  if (!('decoded' in result)) throw new Error('the worker thread answered a decode with bytes');
  const d = result.decoded;
  return {
    object: JSON.parse(d.text) as Record<string, unknown>,
    unknownFields: d.unknownFields,
    duplicateFields: d.duplicateFields,
  };
}
