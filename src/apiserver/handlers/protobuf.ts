// Protobuf bodies (`application/vnd.kubernetes.protobuf`) of every kind the reference defines a
// message for, through the codec over the reference's generated.proto (src/common/protobuf):
// request bodies decode to the JSON shape the handlers take; responses of a client that asked for
// protobuf are encoded as the reference encodes them (the `k8s\0` envelope), Status errors too.

import type { Logger } from '../../common/log/types.js';
import {
  decodeEnvelope,
  encodeEnvelope,
  hasProtobuf,
  ProtobufDecodeError,
} from '../../common/protobuf/codec.js';
import { WIRE_NAMES } from '../../common/names.js';
import { recordOf } from '../../common/util/json-shape.js';
import { unsupportedMediaType } from '../status.js';
import { notAnObject } from './body.js';
import { SERVED_MEDIA_TYPES } from './negotiate.js';

/**
 * Decodes a protobuf request body of `kind` into its JSON object (400 when malformed, 415 for a
 * kind without a message).
 */
export function decodeProtobufObject(
  body: Buffer,
  kind: string,
  apiVersion: string,
): Record<string, unknown> {
  if (!hasProtobuf(apiVersion, kind))
    throw unsupportedMediaType(
      WIRE_NAMES.protobufMediaType,
      SERVED_MEDIA_TYPES.filter((t) => t !== WIRE_NAMES.protobufMediaType),
    );
  try {
    return decodeEnvelope(body, { apiVersion, kind }).object;
  } catch (err) {
    // The reference's answer to an undecodable body (transformDecodeError), without the body
    // excerpt.
    throw notAnObject(
      kind,
      err instanceof ProtobufDecodeError
        ? err.message
        : `malformed protobuf: ${err instanceof Error ? err.message : String(err)}`,
    );
  }
}

/** Encodes response bodies for a client that negotiated protobuf (see respond.ts). */
export interface BodyEncoder {
  readonly contentType: string;
  /** The encoded body; undefined to answer JSON instead. */
  encode(body: unknown): Buffer | undefined;
}

/**
 * The protobuf encoder of responses. A body without a protobuf message in the reference (a
 * Table, a discovery document of ours) or one that does not fit its message is answered as JSON,
 * which the reference's protobuf clients also accept; that fallback is logged once per kind.
 */
export class ProtobufResponses implements BodyEncoder {
  readonly contentType = WIRE_NAMES.protobufMediaType;
  private readonly logged = new Set<string>();
  constructor(private readonly o: { readonly logger: Logger }) {}

  encode(body: unknown): Buffer | undefined {
    if (typeof body !== 'object' || body === null) return undefined;
    const b = recordOf(body);
    const kind = typeof b['kind'] === 'string' ? b['kind'] : '';
    const apiVersion = typeof b['apiVersion'] === 'string' ? b['apiVersion'] : '';
    if (!hasProtobuf(apiVersion, kind)) {
      this.fallback(`${apiVersion} ${kind}`, 'the reference has no protobuf message for it');
      return undefined;
    }
    try {
      return encodeEnvelope(b, apiVersion, kind);
    } catch (err) {
      this.fallback(`${apiVersion} ${kind}`, err instanceof Error ? err.message : String(err));
      return undefined;
    }
  }

  private fallback(what: string, why: string): void {
    if (this.logged.has(what) || this.logged.size > 1000) return;
    this.logged.add(what);
    this.o.logger.warn(
      { kind: what, reason: why },
      'answering a protobuf request with JSON for this kind',
    );
  }
}
