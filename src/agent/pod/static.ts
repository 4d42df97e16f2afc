// Defaults the reference applies to static pods (from files and URLs), so that a pod keeps
// the same UID across agent restarts as long as its manifest, node and source are unchanged.
import type { Names } from '../../common/names.js';
import { canonicalJson, hashHex } from './hash.js';
import type { DecodedPod } from './decode.js';
import type { Pod } from './types.js';

export interface StaticPodDefaultsOptions {
  nodeName: string;
  /** `file:<path>` or `url:<url>`: part of the UID hash. */
  sourceKey: string;
  /** `file` or `http`, recorded in the config.source annotation. */
  sourceName: 'file' | 'http';
  names: Names;
}

export function configHashAnnotation(names: Names): string {
  return names.annotations.configHash;
}
export function configSourceAnnotation(names: Names): string {
  return names.annotations.configSource;
}
export function configMirrorAnnotation(names: Names): string {
  return names.annotations.configMirror;
}

export function isStaticPod(pod: Pod, names: Names): boolean {
  const src = pod.metadata.annotations?.[configSourceAnnotation(names)];
  return src === 'file' || src === 'http';
}

export function applyStaticPodDefaults(decoded: DecodedPod, opts: StaticPodDefaultsOptions): Pod {
  const node = opts.nodeName.toLowerCase();
  const meta = { ...decoded.metadata };
  const uid =
    meta.uid !== undefined && meta.uid !== ''
      ? meta.uid
      : hashHex([canonicalJson(decoded), `host:${opts.nodeName}`, opts.sourceKey]);
  const name = `${meta.name ?? ''}-${node}`;
  const annotations = {
    ...(meta.annotations ?? {}),
    [configHashAnnotation(opts.names)]: uid,
    [configSourceAnnotation(opts.names)]: opts.sourceName,
  };
  const tolerations = [...(decoded.spec.tolerations ?? [])];
  if (
    !tolerations.some(
      (t) => t.operator === 'Exists' && t.effect === 'NoExecute' && t.key === undefined,
    )
  ) {
    tolerations.push({ operator: 'Exists', effect: 'NoExecute' });
  }
  return {
    ...decoded,
    apiVersion: decoded.apiVersion ?? 'v1',
    kind: 'Pod',
    metadata: {
      ...meta,
      name: meta.name === undefined || meta.name === '' ? '' : name,
      namespace: meta.namespace === undefined || meta.namespace === '' ? 'default' : meta.namespace,
      uid,
      annotations,
    },
    spec: { ...decoded.spec, nodeName: opts.nodeName, tolerations },
    status: { phase: 'Pending' },
  };
}
