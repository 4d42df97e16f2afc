// The agent client's content types (--plat-api-content-type): with a protobuf type, request
// bodies of kinds the reference defines a message for are sent as protobuf (the `k8s\0`
// envelope), responses are asked for as `application/vnd.kubernetes.protobuf, application/json`
// and decoded by their Content-Type, and protobuf watch frames are turned into the JSON lines
// the watch reader takes. A server that answers 415 to a protobuf body (for that kind) or 406 to
// the protobuf Accept is spoken to in JSON from then on; each such fallback is logged once.
// `application/vnd.platform.protobuf` (the spec's default) names the same wire format.

import { Transform, type TransformCallback } from 'node:stream';
import type { Logger } from '../../common/log/types.js';
import { MAX_WATCH_FRAME_BYTES } from '../../common/protobuf/media-types.js';
import { WIRE_NAMES } from '../../common/names.js';
import { recordOf } from '../../common/util/json-shape.js';

// The codec (protobufjs and the reference's messages) is imported only by a client that speaks
// protobuf or is answered in it: the bootstrap's JSON client does without it.
function importCodec() {
  return import('../../common/protobuf/codec.js');
}
let codec: Awaited<ReturnType<typeof importCodec>> | undefined;

/**
 * Loads the codec when `contentType` (an answer's) is protobuf, or `always`; before any use of it.
 */
export async function loadCodecFor(contentType: string, always = false): Promise<void> {
  if (codec === undefined && (always || mediaTypeOf(contentType) === WIRE_NAMES.protobufMediaType))
    codec = await importCodec();
}

function wire(): Awaited<ReturnType<typeof importCodec>> {
  if (codec === undefined)
    throw new Error('the protobuf codec is used before it is loaded (loadCodecFor)');
  return codec;
}

const JSON_TYPE = 'application/json';

/** A protobuf media type of --plat-api-content-type (the reference's name or the platform's). */
export function isProtobufContentType(t: string | undefined): boolean {
  return t !== undefined && /^application\/vnd\.[a-z0-9.-]+\.protobuf$/i.test(t.trim());
}

export interface EncodedBody {
  readonly body: string | Buffer;
  readonly type: string;
  /** The kind sent as protobuf (for the 415 fallback); undefined for JSON. */
  readonly protobufKind: string | undefined;
}

export class ContentTypes {
  private readonly protobuf: boolean;
  private readonly preferred: string | undefined;
  private acceptJsonOnly = false;
  private readonly jsonOnlyKinds = new Set<string>();
  private readonly logger: Logger;
  private bodyConfirmed = false;
  private answerConfirmed = false;

  constructor(o: { readonly contentType: string | undefined; readonly logger: Logger }) {
    this.logger = o.logger;
    this.protobuf = isProtobufContentType(o.contentType);
    this.preferred =
      o.contentType !== undefined &&
      o.contentType !== '' &&
      o.contentType !== JSON_TYPE &&
      !this.protobuf
        ? o.contentType
        : undefined;
  }

  /** Loads the codec when this client speaks protobuf (before its first call). */
  ready(): Promise<void> {
    return loadCodecFor('', this.protobuf);
  }

  /** The Accept header of every call. */
  get accept(): string {
    if (this.protobuf && !this.acceptJsonOnly)
      return `${WIRE_NAMES.protobufMediaType}, ${JSON_TYPE}`;
    return this.preferred === undefined ? JSON_TYPE : `${this.preferred}, ${JSON_TYPE}`;
  }

  /** The wire form of a request body (patches keep their own type). */
  encode(body: unknown, bodyContentType: string | undefined): EncodedBody {
    if (bodyContentType !== undefined)
      return {
        body: typeof body === 'string' ? body : JSON.stringify(body),
        type: bodyContentType,
        protobufKind: undefined,
      };
    if (typeof body === 'string') return { body, type: JSON_TYPE, protobufKind: undefined };
    const o = recordOf(body);
    const kind = typeof o['kind'] === 'string' ? o['kind'] : '';
    const apiVersion = typeof o['apiVersion'] === 'string' ? o['apiVersion'] : '';
    if (this.protobuf && !this.jsonOnlyKinds.has(kind) && wire().hasProtobuf(apiVersion, kind)) {
      try {
        return {
          body: wire().encodeEnvelope(o, apiVersion, kind),
          type: WIRE_NAMES.protobufMediaType,
          protobufKind: kind,
        };
      } catch (err) {
        this.jsonOnlyKinds.add(kind);
        this.logger.warn(
          { kind, err: err instanceof Error ? err.message : String(err) },
          'sending this kind as JSON: it does not fit the protobuf message',
        );
      }
    }
    return { body: JSON.stringify(body), type: JSON_TYPE, protobufKind: undefined };
  }

  /**
   * After a 415 to a protobuf body or a 406 to the protobuf Accept: true when the call should be
   * sent again in JSON (the fallback is remembered and logged once).
   */
  fallBack(status: number, sent: EncodedBody | undefined, path: string): boolean {
    if (
      status === 415 &&
      sent?.protobufKind !== undefined &&
      !this.jsonOnlyKinds.has(sent.protobufKind)
    ) {
      this.jsonOnlyKinds.add(sent.protobufKind);
      this.logger.warn(
        { kind: sent.protobufKind, path },
        'the API server does not take protobuf bodies of this kind (415); sending it as ' +
          'JSON from now on',
      );
      return true;
    }
    if (status === 406 && this.protobuf && !this.acceptJsonOnly) {
      this.acceptJsonOnly = true;
      this.logger.warn(
        { path },
        'the API server does not answer in protobuf (406); asking for JSON from now on',
      );
      return true;
    }
    return false;
  }

  /** A 2xx answer to a call: the first protobuf body the server took is logged once. */
  accepted(sent: EncodedBody | undefined): void {
    if (this.bodyConfirmed || sent?.protobufKind === undefined) return;
    this.bodyConfirmed = true;
    this.logger.info(
      { kind: sent.protobufKind, contentType: WIRE_NAMES.protobufMediaType },
      'the API server takes protobuf request bodies',
    );
  }

  /** The object of a response body by its Content-Type (protobuf or JSON). */
  decode(contentType: string, bytes: Buffer): unknown {
    if (mediaTypeOf(contentType) !== WIRE_NAMES.protobufMediaType) {
      const value: unknown = JSON.parse(bytes.toString('utf8'));
      return value;
    }
    const o = wire().decodeEnvelope(bytes).object;
    if (!this.answerConfirmed) {
      this.answerConfirmed = true;
      this.logger.info(
        { kind: o['kind'], contentType: WIRE_NAMES.protobufMediaType },
        'the API server answers in protobuf',
      );
    }
    return o;
  }
}

export function mediaTypeOf(contentType: string): string {
  return (contentType.split(';')[0] ?? '').trim().toLowerCase();
}

/** A protobuf watch stream (4-byte big-endian length + WatchEvent) as JSON lines. */
export class WatchFramesToJsonLines extends Transform {
  private buf: Buffer = Buffer.alloc(0);

  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    this.buf = this.buf.length === 0 ? chunk : Buffer.concat([this.buf, chunk]);
    try {
      while (this.buf.length >= 4) {
        const len = this.buf.readUInt32BE(0);
        if (len > MAX_WATCH_FRAME_BYTES)
          throw new Error(
            `a protobuf watch frame of ${len} bytes is over the ${MAX_WATCH_FRAME_BYTES}` +
              `-byte limit`,
          );
        if (this.buf.length < 4 + len) break;
        const ev = wire().decodeWatchEvent(this.buf.subarray(4, 4 + len));
        this.buf = this.buf.subarray(4 + len);
        this.push(`${JSON.stringify(ev)}\n`);
      }
      done();
    } catch (err) {
      done(err instanceof Error ? err : new Error(String(err)));
    }
  }

  override _flush(done: TransformCallback): void {
    done(
      this.buf.length === 0
        ? undefined
        : new Error(
            `the protobuf watch stream ended inside a frame (${this.buf.length} bytes left)`,
          ),
    );
  }
}
