// The simulator's calls in protobuf, as an agent (and the reference's kubelet) sends its
// heartbeats: `Accept: application/vnd.kubernetes.protobuf, application/json`, a body of a kind
// the reference has a message for sent enveloped (`k8s\0`), the answer decoded by its
// Content-Type. The server thus parses and answers what it does for a real node, not JSON.

import { request } from 'undici';
import { WIRE_NAMES } from '../src/common/names.js';
import { decodeEnvelope, encodeEnvelope } from '../src/common/protobuf/codec.js';
import { isRecord } from '../src/common/util/json-shape.js';
import type { Session } from './apiserver-harness.js';

const PROTOBUF = WIRE_NAMES.protobufMediaType;
/** The Accept header of an agent's (and the kubelet's) calls. */
export const PROTOBUF_ACCEPT = `${PROTOBUF}, application/json`;

export interface WireAnswer {
  readonly status: number;
  /** The answer's object (decoded from either form); {} when it is neither. */
  readonly json: Record<string, unknown>;
  /** The answer as text, for messages (a protobuf answer says its kind). */
  readonly text: string;
}

/** A JSON answer's object; {} when the text is not a JSON object. */
export function jsonObjectOf(text: string): Record<string, unknown> {
  try {
    const v: unknown = JSON.parse(text);
    return isRecord(v) ? v : {};
  } catch {
    return {};
  }
}

/** The object of a JSON or protobuf answer. */
function decodeAnswer(
  type: string,
  bytes: Buffer,
): { json: Record<string, unknown>; text: string } {
  if (type.startsWith(PROTOBUF)) {
    const d = decodeEnvelope(bytes);
    return { json: d.object, text: `(protobuf ${d.kind})` };
  }
  const text = bytes.toString('utf8');
  return { json: jsonObjectOf(text), text };
}

/**
 * One call in protobuf on the session's keep-alive connections; `body` (an object with
 * apiVersion and kind) enveloped.
 */
export async function callProtobuf(
  session: Session,
  method: string,
  path: string,
  body?: Record<string, unknown>,
): Promise<WireAnswer> {
  const headers: Record<string, string> = { ...session.headers, accept: PROTOBUF_ACCEPT };
  let payload: Buffer | undefined;
  if (body !== undefined) {
    payload = encodeEnvelope(body, String(body['apiVersion']), String(body['kind']));
    headers['content-type'] = PROTOBUF;
  }
  const res = await request(`${session.url}${path}`, {
    method: method as 'GET',
    dispatcher: session.dispatcher,
    headers,
    ...(payload === undefined ? {} : { body: payload }),
  });
  const bytes = Buffer.from(await res.body.arrayBuffer());
  const type = String(res.headers['content-type'] ?? '');
  return { status: res.statusCode, ...decodeAnswer(type, bytes) };
}
