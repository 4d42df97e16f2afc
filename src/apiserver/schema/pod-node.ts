// Pod and Node, typed in full from the reference's definitions: spec and status are the
// reference's PodSpec, PodStatus, NodeSpec and NodeStatus with every type they use
// (core.generated.ts, generated from its /openapi/v3 by scripts/reference-core-schema.mjs), so
// decoding reports unknown fields inside them (fieldValidation) and the OpenAPI documents and
// `kubectl explain` show every field. Quantity and IntOrString values are kept as sent.
import { NodeSpec, NodeStatus, PodSpec, PodStatus } from './core.generated.js';
import { topLevel } from './meta.js';
import type { Schema } from './types.js';

export const pod: Schema = topLevel('v1.Pod', { spec: PodSpec, status: PodStatus });

export const node: Schema = topLevel('v1.Node', { spec: NodeSpec, status: NodeStatus });
