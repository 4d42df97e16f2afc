// A create-like request's body as an object: its media type checked, read within the size limit,
// decoded from protobuf, or from JSON or YAML with fieldValidation applied (Strict refuses,
// Warn adds warnings, unknown fields are pruned). Creates, updates, actions (pods/binding) and
// reviews all read their bodies this way.
import type { IncomingMessage } from 'node:http';
import { WIRE_NAMES } from '../../common/names.js';
import type { Obj } from '../registry/types.js';
import { readBodyBytes, requireObjectMediaType } from './body.js';
import {
  applyFieldValidation,
  decodeObject,
  type BodyDecoder,
  type FieldValidation,
} from './decode-object.js';
import { decodeProtobufObject } from './protobuf.js';

export interface RequestObjectOptions {
  readonly maxBodyBytes: number;
  readonly kind: string;
  readonly apiVersion: string;
  /** The version named in a Strict refusal (`<kind> in version "<version>" cannot be handled`). */
  readonly version: string;
  /** Read only for a JSON or YAML body (a protobuf body has no unknown fields to judge). */
  readonly fieldValidation: () => FieldValidation;
  readonly warnings: string[];
  /** Where a JSON or YAML body is decoded (--worker-threads); default: on this thread. */
  readonly decoder?: BodyDecoder | undefined;
}

export async function readRequestObject(
  req: IncomingMessage,
  o: RequestObjectOptions,
): Promise<Obj> {
  const contentType = requireObjectMediaType(req);
  const bytes = await readBodyBytes(req, o.maxBodyBytes);
  if (contentType === WIRE_NAMES.protobufMediaType)
    return decodeProtobufObject(bytes, o.kind, o.apiVersion);
  const decoded = await decodeObject(
    { body: bytes.toString('utf8'), contentType, kind: o.kind, apiVersion: o.apiVersion },
    o.decoder,
  );
  applyFieldValidation(decoded, o.fieldValidation(), o.kind, o.version, o.warnings);
  return decoded.object;
}
