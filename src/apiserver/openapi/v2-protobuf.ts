// /openapi/v2 as protobuf: our v2 JSON document converted to gnostic's openapi.v2.Document
// (v2-gnostic.ts) and encoded with protobufjs through openapiv2-descriptor.generated.ts (compiled
// from gnostic's OpenAPIv2.proto by scripts/gen-proto.mjs).

import protobuf from 'protobufjs';
import { OPENAPIV2_DESCRIPTOR_JSON } from '../../common/protobuf/openapiv2-descriptor.generated.js';
import { toGnosticDocument } from './v2-gnostic.js';

let documentType: protobuf.Type | undefined;

/** gnostic's openapi.v2.Document type. */
export function openApiV2DocumentType(): protobuf.Type {
  // Our own generated descriptor (scripts/gen-proto.mjs), not input: its shape is protobufjs's
  // JSON.
  documentType ??= protobuf.Root.fromJSON(
    JSON.parse(OPENAPIV2_DESCRIPTOR_JSON) as protobuf.INamespace,
  ).lookupType('openapi.v2.Document');
  return documentType;
}

export interface EncodedV2 {
  readonly bytes: Buffer;
  /** Keys of the JSON document gnostic's model has no field for, left out of the bytes. */
  readonly dropped: readonly string[];
}

/** The protobuf bytes of a Swagger 2.0 JSON document. */
export function encodeV2Document(doc: Record<string, unknown>): EncodedV2 {
  const { message, dropped } = toGnosticDocument(doc);
  const t = openApiV2DocumentType();
  return {
    bytes: Buffer.from(t.encode(t.fromObject(message)).finish()),
    dropped: [...dropped].sort(),
  };
}
