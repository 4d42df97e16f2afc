// Reading request bodies: a size limit (413 beyond it), the accepted media types (415 for
// others), and decoding JSON or YAML into an object.

import type { IncomingMessage } from 'node:http';
import { tooLarge, unsupportedMediaType, badRequest } from '../status.js';
import { WIRE_NAMES } from '../../common/names.js';

/** The reference's limit for request bodies: 3 MiB. */
export const DEFAULT_MAX_BODY_BYTES = 3 * 1024 * 1024;

export async function readBody(req: IncomingMessage, limit: number): Promise<string> {
  return (await readBodyBytes(req, limit)).toString('utf8');
}

export async function readBodyBytes(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length'] ?? '0');
  if (Number.isFinite(declared) && declared > limit) {
    req.resume();
    throw tooLarge(limit);
  }
  // Events rather than an async iterator: one request body is usually one chunk, and the
  // iterator's promise machinery cost more than the read itself on the create path.
  if (req.readableEnded) return Buffer.alloc(0);
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const settle = (err: Error | undefined): void => {
      req.off('data', onData).off('end', onEnd).off('error', onError).off('close', onClose);
      if (err === undefined)
        resolve(chunks.length === 1 && chunks[0] !== undefined ? chunks[0] : Buffer.concat(chunks));
      else reject(err);
    };
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size <= limit) return void chunks.push(chunk);
      settle(tooLarge(limit));
      req.resume();
    };
    const onEnd = (): void => settle(undefined);
    const onError = (err: Error): void => settle(err);
    const onClose = (): void =>
      settle(Object.assign(new Error('Premature close'), { code: 'ERR_STREAM_PREMATURE_CLOSE' }));
    req.on('data', onData).once('end', onEnd).once('error', onError).once('close', onClose);
  });
}

/** The media type without parameters, lower-cased; absent means JSON (as the reference). */
export function mediaType(req: IncomingMessage): string {
  const ct = req.headers['content-type'];
  if (ct === undefined || ct.trim() === '') return 'application/json';
  return (ct.split(';')[0] ?? '').trim().toLowerCase();
}

const bodyTypes = ['application/json', 'application/yaml', WIRE_NAMES.protobufMediaType];

/** Checks the content type of a create/update body. */
export function requireObjectMediaType(
  req: IncomingMessage,
): 'application/json' | 'application/yaml' | typeof WIRE_NAMES.protobufMediaType {
  const mt = mediaType(req);
  if (mt === 'application/json' || mt === WIRE_NAMES.protobufMediaType) return mt;
  if (mt === 'application/yaml' || mt === 'application/x-yaml' || mt === 'text/yaml')
    return 'application/yaml';
  throw unsupportedMediaType(req.headers['content-type'] ?? '', bodyTypes);
}

export function notAnObject(kind: string, detail: string): Error {
  return badRequest(`the object provided is unrecognized (must be of type ${kind}): ${detail}`);
}
