// Manifest text (YAML or JSON) to pods: one Pod or a PodList, shape-checked with zod, then
// validated. Errors are ManifestErrors naming the file (or URL) and every field at fault.
import { parseAllDocuments } from 'yaml';
import { ManifestError } from '../../common/util/errors.js';
import { PodSchema, type ObjectMeta, type Pod, type PodSpec } from './types.js';
import { validatePod, type ValidatePodOptions } from './validate.js';

/** Shape-checked but not yet defaulted: name, namespace and uid may be missing. */
export interface DecodedPod {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  spec: PodSpec;
  status?: Record<string, unknown>;
  [extra: string]: unknown;
}

function zodProblems(err: { issues: readonly { path: readonly PropertyKey[]; message: string }[] }, prefix: string): string[] {
  return err.issues.map((i) => `${prefix}${i.path.map(String).join('.') || '(root)'}: ${i.message}`);
}

export function decodePodObject(obj: unknown, where: string, prefix = ''): DecodedPod {
  if (obj === null || typeof obj !== 'object' || Array.isArray(obj)) {
    throw new ManifestError(`${where}: expected a Pod object`, { file: where });
  }
  const kind = (obj as { kind?: unknown }).kind;
  if (kind !== 'Pod') {
    throw new ManifestError(`${where}: ${prefix}kind: unsupported kind ${JSON.stringify(kind)} (accepted: Pod, PodList)`, { file: where });
  }
  const r = PodSchema.safeParse(obj);
  if (!r.success) {
    throw new ManifestError(`${where}: invalid pod: ${zodProblems(r.error, prefix).join('; ')}`, { file: where });
  }
  return r.data as DecodedPod;
}

/** Decodes a manifest body. An empty body gives no pods. */
export function decodeManifest(text: string, where: string): DecodedPod[] {
  if (text.trim() === '') return [];
  const docs = parseAllDocuments(text);
  const items: unknown[] = [];
  for (const d of Array.isArray(docs) ? docs : [docs]) {
    if (d.errors.length > 0) {
      const e = d.errors[0];
      throw new ManifestError(`${where}: not valid YAML or JSON: ${e?.message ?? 'parse error'}`, { file: where });
    }
    const v: unknown = d.toJS();
    if (v !== null && v !== undefined) items.push(v);
  }
  const pods: DecodedPod[] = [];
  for (const obj of items) {
    const kind = (obj as { kind?: unknown } | null)?.kind;
    if (kind === 'PodList' || kind === 'List') {
      const list = (obj as { items?: unknown }).items;
      if (!Array.isArray(list)) throw new ManifestError(`${where}: items: expected a list of pods`, { file: where });
      list.forEach((p, i) => pods.push(decodePodObject(p, where, `items[${i}].`)));
    } else {
      pods.push(decodePodObject(obj, where));
    }
  }
  return pods;
}

export function checkPod(pod: Pod, where: string, opts: ValidatePodOptions): void {
  const problems = validatePod(pod, opts);
  if (problems.length > 0) {
    throw new ManifestError(`${where}: invalid pod "${pod.metadata.name}": ${problems.join('; ')}`, { file: where });
  }
}
