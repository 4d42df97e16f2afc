// The ConfigMaps and Secrets pods refer to, as the agent's parts read them: the interface the
// volume and environment parts consume (owned here, where its one implementation per
// configMapAndSecretChangeDetectionStrategy lives), the object shapes, and the not-found error.
import { z } from 'zod';
import { NodeAgentError } from '../../common/util/errors.js';
import type { Pod } from '../pod/types.js';
import { ObjectMetaSchema } from '../client/api-schemas.js';

export type ObjectKind = 'ConfigMap' | 'Secret';

/** A ConfigMap or Secret as read from the API server: data as bytes, keyed as the object's. */
export interface PodObject {
  kind: ObjectKind;
  namespace: string;
  name: string;
  /** ConfigMap data and binaryData, Secret data (base64-decoded); each key once. */
  data: ReadonlyMap<string, Buffer>;
  /** ConfigMap data keys (text) apart from binaryData keys; Secret: every key. */
  textKeys: ReadonlySet<string>;
  immutable: boolean;
  resourceVersion: string;
  /**
   * A Secret's type (`kubernetes.io/dockerconfigjson`...); absent for a ConfigMap or none given.
   */
  type?: string;
}

/**
 * What a pod's parts ask of the manager. `get` answers the object (fresh as the strategy keeps
 * it) or throws: ObjectNotFoundError when it does not exist, another error when it could not be
 * read. A pod is registered before its objects are asked for and unregistered when it is
 * removed; the manager watches or caches only the objects of registered pods.
 */
export interface PodObjects {
  get(kind: ObjectKind, namespace: string, name: string): Promise<PodObject>;
  registerPod(pod: Pod): void;
  unregisterPod(pod: Pod): void;
  /** Stops every watch. */
  stop(): void;
}

/** The object does not exist; `message` is the reference's for the strategy (see the managers). */
export class ObjectNotFoundError extends NodeAgentError {
  readonly kind: ObjectKind;
  readonly objectName: string;
  constructor(kind: ObjectKind, name: string, message: string) {
    super('Api', message);
    this.kind = kind;
    this.objectName = name;
  }
}

export const CONFIGMAP_SCHEMA = z.looseObject({
  metadata: ObjectMetaSchema.exactOptional(),
  type: z.string().max(253).nullable().exactOptional(),
  data: z.record(z.string(), z.string()).nullable().exactOptional(),
  binaryData: z.record(z.string(), z.string()).nullable().exactOptional(),
  immutable: z.boolean().nullable().exactOptional(),
});

export type RawObject = z.infer<typeof CONFIGMAP_SCHEMA>;

/** The API's object as a PodObject: Secret data and ConfigMap binaryData are base64. */
export function toPodObject(kind: ObjectKind, raw: RawObject, ns: string, name: string): PodObject {
  const data = new Map<string, Buffer>();
  const textKeys = new Set<string>();
  if (kind === 'Secret') {
    for (const [k, v] of Object.entries(raw.data ?? {})) {
      data.set(k, Buffer.from(v, 'base64'));
      textKeys.add(k);
    }
  } else {
    for (const [k, v] of Object.entries(raw.data ?? {})) {
      data.set(k, Buffer.from(v, 'utf8'));
      textKeys.add(k);
    }
    for (const [k, v] of Object.entries(raw.binaryData ?? {}))
      if (!data.has(k)) data.set(k, Buffer.from(v, 'base64'));
  }
  return {
    kind,
    namespace: ns,
    name,
    data,
    textKeys,
    immutable: raw.immutable === true,
    resourceVersion: raw.metadata?.resourceVersion ?? '',
    ...(kind === 'Secret' && typeof raw.type === 'string' ? { type: raw.type } : {}),
  };
}

/** The plural resource of a kind, in the API's paths and its not-found messages. */
export function resourceOf(kind: ObjectKind): 'configmaps' | 'secrets' {
  return kind === 'ConfigMap' ? 'configmaps' : 'secrets';
}

export function objectKey(kind: ObjectKind, namespace: string, name: string): string {
  return `${kind}/${namespace}/${name}`;
}
