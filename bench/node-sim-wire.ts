// The simulator's calls in protobuf, as an agent (and the reference's kubelet) sends its
// heartbeats: `Accept: application/vnd.kubernetes.protobuf, application/json`, a body of a kind
// the reference has a message for sent enveloped (`k8s\0`), the answer decoded by its
// Content-Type. The server thus parses and answers what it does for a real node, not JSON.

import { request, type Dispatcher } from 'undici';
import { decodeEnvelope, encodeEnvelope } from '../src/common/protobuf/codec.js';
import type { Session } from './apiserver-harness.js';

const PROTOBUF = 'application/vnd.kubernetes.protobuf';

export interface WireAnswer {
  readonly status: number;
  /** The answer's object (decoded from either form); {} when it is neither. */
  readonly json: Record<string, unknown>;
  /** The answer as text, for messages (a protobuf answer says its kind). */
  readonly text: string;
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
  try {
    const v: unknown = JSON.parse(text);
    const json =
      typeof v === 'object' && v !== null && !Array.isArray(v)
        ? (v as Record<string, unknown>)
        : {};
    return { json, text };
  } catch {
    return { json: {}, text };
  }
}

/** One call in protobuf on `dispatcher`; `body` (an object with apiVersion and kind) enveloped. */
export async function callProtobuf(
  session: Session,
  dispatcher: Dispatcher,
  method: string,
  path: string,
  body?: Record<string, unknown>,
): Promise<WireAnswer> {
  const headers: Record<string, string> = {
    ...session.headers,
    accept: `${PROTOBUF}, application/json`,
  };
  let payload: Buffer | undefined;
  if (body !== undefined) {
    payload = encodeEnvelope(body, String(body['apiVersion']), String(body['kind']));
    headers['content-type'] = PROTOBUF;
  }
  const res = await request(`${session.url}${path}`, {
    method: method as 'GET',
    dispatcher,
    headers,
    ...(payload === undefined ? {} : { body: payload }),
  });
  const bytes = Buffer.from(await res.body.arrayBuffer());
  const type = String(res.headers['content-type'] ?? '');
  return { status: res.statusCode, ...decodeAnswer(type, bytes) };
}
