// Manifest text (YAML or JSON) to pods: one Pod or a PodList, shape-checked with zod, then
// validated. Errors are ManifestErrors naming the file (or URL) and every field at fault.
import { InputLimitError, InputSyntaxError, ManifestError } from '../../common/util/errors.js';
import { MANIFEST_LIMITS, parseYamlBounded, yamlToJsBounded, type BoundedInput } from '../../common/util/bounded-parse.js';
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

/**
 * The values of a manifest's documents, parsed within MANIFEST_LIMITS: a manifest over a limit is
 * a ManifestError naming the file (or URL), the limit and the byte offset, never a crash.
 */
function manifestValues(text: string, where: string): unknown[] {
  const input: BoundedInput = { limits: MANIFEST_LIMITS, source: where };
  const items: unknown[] = [];
  try {
    for (const d of parseYamlBounded(text, input)) {
      const e = d.errors[0];
      if (e !== undefined) throw new ManifestError(`${where}: not valid YAML or JSON: ${e.message}`, { file: where });
      const v: unknown = yamlToJsBounded(d, input, text);
      if (v !== null && v !== undefined) items.push(v);
    }
  } catch (err) {
    if (err instanceof InputLimitError || err instanceof InputSyntaxError) throw new ManifestError(`${err.message}: manifest skipped`, { file: where, cause: err });
    throw err;
  }
  return items;
}

/** Decodes a manifest body. An empty body gives no pods. */
export function decodeManifest(text: string, where: string): DecodedPod[] {
  if (text.trim() === '') return [];
  const items = manifestValues(text, where);
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
