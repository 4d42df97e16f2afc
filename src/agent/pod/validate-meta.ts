// ObjectMeta of a pod as the reference's ValidateObjectMeta checks it (name, namespace, labels,
// annotations), plus the UID, which becomes a directory name (<root-dir>/pods/<uid>): the
// reference does not check it, we accept only the two forms a UID really takes.
import {
  isDns1123Label,
  isDns1123Subdomain,
  isQualifiedName,
  isValidLabelValue,
} from '../../common/util/names.js';
import { pathSegmentProblem } from '../../common/util/safe-path.js';
import { invalid, required, tooLong } from './field-errors.js';
import type { Pod } from './types.js';

/** The reference's TotalAnnotationSizeLimitB. */
export const ANNOTATIONS_MAX_BYTES = 256 * 1024;

const STATIC_POD_UID = /^[0-9a-f]{32}$/;
const RFC4122_UUID =
  /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

export const UID_ACCEPTED =
  'must be a 32-character lower-case hex hash (the form of a generated static pod UID) or an ' +
  'RFC 4122 UUID (e.g. 4d3c2b1a-0f9e-4d8c-8b7a-6f5e4d3c2b1a)';

/** Why `uid` cannot be a pod UID, or undefined. */
export function uidProblem(uid: string): string | undefined {
  return STATIC_POD_UID.test(uid) || RFC4122_UUID.test(uid) ? undefined : UID_ACCEPTED;
}

function validateLabels(labels: Record<string, string> | undefined, out: string[]): void {
  for (const [k, v] of Object.entries(labels ?? {})) {
    for (const m of isQualifiedName(k)) out.push(invalid('metadata.labels', k, m));
    for (const m of isValidLabelValue(v)) out.push(invalid('metadata.labels', v, m));
  }
}

function validateAnnotations(annotations: Record<string, string> | undefined, out: string[]): void {
  let total = 0;
  for (const [k, v] of Object.entries(annotations ?? {})) {
    // the rule is QualifiedName except that case does not matter
    for (const m of isQualifiedName(k.toLowerCase()))
      out.push(invalid('metadata.annotations', k, m));
    total += Buffer.byteLength(k) + Buffer.byteLength(v);
  }
  if (total > ANNOTATIONS_MAX_BYTES)
    out.push(tooLong('metadata.annotations', ANNOTATIONS_MAX_BYTES));
}

/**
 * Problems of the pod's metadata, each a reference-style field error. `staticUid`: the UID came
 * from a manifest file or URL and must have one of the two real forms; a UID the API server set
 * need only be usable as a directory name.
 */
export function validatePodMeta(pod: Pod, staticUid: boolean, out: string[]): void {
  const { name, namespace, uid } = pod.metadata;
  if (name === '') out.push(required('metadata.name', 'name or generateName is required'));
  else for (const m of isDns1123Subdomain(name)) out.push(invalid('metadata.name', name, m));
  if (namespace === '') out.push(required('metadata.namespace'));
  else
    for (const m of isDns1123Label(namespace))
      out.push(invalid('metadata.namespace', namespace, m));
  if (uid === '') out.push(required('metadata.uid'));
  else {
    const segment = pathSegmentProblem(uid);
    const p = staticUid
      ? uidProblem(uid)
      : segment === undefined
        ? undefined
        : `must be usable as a directory name (it ${segment})`;
    if (p !== undefined) out.push(invalid('metadata.uid', uid, p));
  }
  validateLabels(pod.metadata.labels, out);
  validateAnnotations(pod.metadata.annotations, out);
}
