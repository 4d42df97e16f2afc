// The reference's protobuf schema, loaded once (lazily) from the descriptor that
// scripts/gen-proto.mjs compiles out of proto/ (the published generated.proto files).

import protobuf from 'protobufjs';
import { K8S_DESCRIPTOR_JSON } from './k8s-descriptor.generated.js';

let root: protobuf.Root | undefined;

export function k8sRoot(): protobuf.Root {
  if (root === undefined) {
    const r = protobuf.Root.fromJSON(JSON.parse(K8S_DESCRIPTOR_JSON) as protobuf.INamespace);
    r.resolveAll();
    root = r;
  }
  return root;
}

/** The message type of a fully qualified name (`k8s.io.api.core.v1.Pod`); undefined when absent. */
export function messageType(fullName: string): protobuf.Type | undefined {
  const t = k8sRoot().lookup(fullName);
  return t instanceof protobuf.Type ? t : undefined;
}

export const META = 'k8s.io.apimachinery.pkg.apis.meta.v1';
export const RUNTIME = 'k8s.io.apimachinery.pkg.runtime';

export function requiredType(fullName: string): protobuf.Type {
  const t = messageType(fullName);
  if (t === undefined) throw new Error(`the protobuf schema has no message ${fullName}`);
  return t;
}
