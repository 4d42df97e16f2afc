// The Node as the API server answers it: the fields the node part reads back (metadata, the
// spec's taints, providerID and podCIDR, and the status's addresses), decoded at the client so a
// malformed answer is an error naming the field, not a crash later. Everything else passes through unchecked and unread. A
// Node the agent writes (types.ts) is one of these.
import { z } from 'zod';

/** A taint as answered: any effect string (a newer server may know effects the agent does not). */
export interface ApiTaint {
  key: string;
  value?: string;
  effect: string;
  timeAdded?: string;
}

/** An address as answered: any type string (a cloud provider may set types the agent never sends). */
export interface ApiNodeAddress {
  type: string;
  address: string;
}

export interface ApiNode {
  apiVersion?: string;
  kind?: string;
  metadata: {
    name: string;
    uid?: string;
    resourceVersion?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    [key: string]: unknown;
  };
  spec?: {
    providerID?: string;
    taints?: ApiTaint[];
    unschedulable?: boolean;
    podCIDR?: string;
    [key: string]: unknown;
  };
  status?: {
    addresses?: ApiNodeAddress[];
    [key: string]: unknown;
  };
}

const optionalString = z.string().exactOptional();
const stringMap = z.record(z.string(), z.string()).exactOptional();

export const ApiNodeSchema: z.ZodType<ApiNode> = z.looseObject({
  apiVersion: optionalString,
  kind: optionalString,
  metadata: z.looseObject({
    name: z.string(),
    uid: optionalString,
    resourceVersion: optionalString,
    labels: stringMap,
    annotations: stringMap,
  }),
  spec: z
    .looseObject({
      providerID: optionalString,
      taints: z
        .array(
          z.looseObject({
            key: z.string(),
            value: optionalString,
            effect: z.string(),
            timeAdded: optionalString,
          }),
        )
        .exactOptional(),
      unschedulable: z.boolean().exactOptional(),
      podCIDR: optionalString,
    })
    .exactOptional(),
  status: z
    .looseObject({
      addresses: z.array(z.looseObject({ type: z.string(), address: z.string() })).exactOptional(),
    })
    .exactOptional(),
});
