// The files of a configMap, secret, downwardAPI or projected volume, gathered as the reference's
// plugins gather them before anything is mounted: objects through the object manager (a missing
// optional one is empty), service account tokens through the token manager, downward API values
// from the pod. A projected volume's failing sources are reported together.
import {
  ObjectNotFoundError,
  type ObjectKind,
  type PodObject,
  type PodObjects,
} from '../objects/types.js';
import type { KeyToPath, Pod, Volume, VolumeProjection } from '../pod/types.js';
import type { Payload } from './atomic-writer.js';
import { aggregate, downwardApiPayload, type NodeAllocatable } from './downward-api.js';
import { DEFAULT_MODE, objectPayload } from './object-payload.js';
import { DEFAULT_EXPIRATION_SECONDS, type TokenManager } from './token-manager.js';

export interface PayloadContext {
  objects: PodObjects | undefined;
  tokens: TokenManager | undefined;
  allocatable: () => NodeAllocatable;
  /** A clusterTrustBundle projection's PEM bytes. */
  trustAnchors: (src: NonNullable<VolumeProjection['clusterTrustBundle']>) => Promise<Buffer>;
}

async function objectOrEmpty(
  ctx: PayloadContext,
  kind: ObjectKind,
  pod: Pod,
  name: string,
  optional: boolean,
): Promise<PodObject | undefined> {
  if (ctx.objects === undefined)
    throw new Error(
      `cannot read ${kind === 'ConfigMap' ? 'configmap' : 'secret'} "${name}": the ` +
        `agent has no API server (--platconfig)`,
    );
  try {
    return await ctx.objects.get(kind, pod.metadata.namespace, name);
  } catch (err) {
    if (err instanceof ObjectNotFoundError && optional) return undefined;
    throw err;
  }
}

async function fromObject(
  ctx: PayloadContext,
  pod: Pod,
  kind: ObjectKind,
  src: { name: string; items?: KeyToPath[] | undefined; optional?: boolean | undefined },
  defaultMode: number,
): Promise<Payload> {
  const optional = src.optional === true;
  const object = await objectOrEmpty(ctx, kind, pod, src.name, optional);
  return objectPayload({ object, kind, items: src.items, defaultMode, optional });
}

async function tokenPayload(
  ctx: PayloadContext,
  pod: Pod,
  src: NonNullable<VolumeProjection['serviceAccountToken']>,
  mode: number,
): Promise<Payload> {
  if (ctx.tokens === undefined)
    throw new Error(
      'cannot request a service account token: the agent has no API server (--platconfig)',
    );
  const token = await ctx.tokens.token({
    namespace: pod.metadata.namespace,
    serviceAccount: pod.spec.serviceAccountName ?? 'default',
    audience: src.audience ?? '',
    expirationSeconds: src.expirationSeconds ?? DEFAULT_EXPIRATION_SECONDS,
    pod: { name: pod.metadata.name, uid: pod.metadata.uid },
  });
  return new Map([[src.path, { data: Buffer.from(token), mode }]]);
}

async function projectionPayload(
  ctx: PayloadContext,
  pod: Pod,
  s: VolumeProjection,
  defaultMode: number,
): Promise<Payload> {
  // with an fsGroup, token and trust bundle files start 0600 and ownership makes them 0640
  const privateMode = pod.spec.securityContext?.fsGroup !== undefined ? 0o600 : defaultMode;
  if (s.secret !== undefined)
    return fromObject(ctx, pod, 'Secret', { ...s.secret, name: s.secret.name ?? '' }, defaultMode);
  if (s.configMap !== undefined)
    return fromObject(
      ctx,
      pod,
      'ConfigMap',
      { ...s.configMap, name: s.configMap.name ?? '' },
      defaultMode,
    );
  if (s.downwardAPI !== undefined)
    return downwardApiPayload(pod, s.downwardAPI.items ?? [], defaultMode, ctx.allocatable());
  if (s.serviceAccountToken !== undefined)
    return tokenPayload(ctx, pod, s.serviceAccountToken, privateMode);
  if (s.clusterTrustBundle !== undefined)
    return new Map([
      [
        s.clusterTrustBundle.path,
        { data: await ctx.trustAnchors(s.clusterTrustBundle), mode: privateMode },
      ],
    ]);
  return new Map();
}

async function projectedPayload(
  ctx: PayloadContext,
  pod: Pod,
  p: NonNullable<Volume['projected']>,
): Promise<Payload> {
  const defaultMode = p.defaultMode ?? DEFAULT_MODE;
  const payload: Payload = new Map();
  const errors: string[] = [];
  for (const s of p.sources ?? []) {
    try {
      for (const [k, v] of await projectionPayload(ctx, pod, s, defaultMode)) payload.set(k, v);
    } catch (err) {
      errors.push(err instanceof Error ? err.message : String(err));
    }
  }
  if (errors.length > 0) throw new Error(aggregate(errors));
  return payload;
}

/** The volume's files, or undefined for a volume that holds none (emptyDir, hostPath, ...). */
export async function volumePayload(
  ctx: PayloadContext,
  pod: Pod,
  v: Volume,
): Promise<Payload | undefined> {
  if (v.configMap !== undefined)
    return fromObject(
      ctx,
      pod,
      'ConfigMap',
      { ...v.configMap, name: v.configMap.name ?? '' },
      v.configMap.defaultMode ?? DEFAULT_MODE,
    );
  if (v.secret !== undefined)
    return fromObject(
      ctx,
      pod,
      'Secret',
      { ...v.secret, name: v.secret.secretName ?? '' },
      v.secret.defaultMode ?? DEFAULT_MODE,
    );
  if (v.downwardAPI !== undefined)
    return downwardApiPayload(
      pod,
      v.downwardAPI.items ?? [],
      v.downwardAPI.defaultMode ?? DEFAULT_MODE,
      ctx.allocatable(),
    );
  if (v.projected !== undefined) return projectedPayload(ctx, pod, v.projected);
  return undefined;
}

/**
 * The reference backs these with memory (a tmpfs): secrets, tokens and pod facts never reach a
 * disk.
 */
export function isMemoryBacked(v: Volume): boolean {
  return (
    v.secret !== undefined ||
    v.downwardAPI !== undefined ||
    v.projected !== undefined ||
    v.emptyDir?.medium === 'Memory'
  );
}
