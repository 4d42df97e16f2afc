// Manifest text (YAML or JSON) to pods: one Pod or a PodList (apiVersion v1), parsed within
// MANIFEST_LIMITS, shape-checked with the reference's Pod schema (pod-schema.generated.ts), then
// validated. Decoding is the reference's lenient one (its UniversalDecoder, which static pod files
// and API answers go through): a JSON null is the field left unset, and a field the reference does
// not know is dropped; the dropped fields are handed to the caller, which says so once. Errors are
// ManifestErrors naming the
// file (or URL) and every field at fault; the type errors carry the reference's decoder messages
// ("Object 'Kind' is missing in", "no kind ... is registered for version ...").
import { InputLimitError, InputSyntaxError, ManifestError } from '../../common/util/errors.js';
import { textOf } from '../../common/util/text-of.js';
import {
  MANIFEST_LIMITS,
  parseYamlBounded,
  yamlToJsBounded,
  type BoundedInput,
} from '../../common/util/bounded-parse.js';
import type { Logger } from '../../common/log/types.js';
import type { ObjectMeta, Pod, PodSpec } from './types.js';
import { fieldPath, lenientPod } from './lenient.js';
import { validatePod, type ValidatePodOptions } from './validate.js';
import { clip, firstProblems } from './field-errors.js';

/** Shape-checked but not yet defaulted: name, namespace and uid may be missing. */
export interface DecodedPod {
  apiVersion?: string | undefined;
  kind?: string | undefined;
  metadata: ObjectMeta;
  spec: PodSpec;
  status?: Record<string, unknown> | undefined;
  [extra: string]: unknown;
}

/** Logs, once, the fields a static pod's decoding dropped (the parse runs once per change). */
export function logDroppedFields(logger: Logger): DroppedFields {
  return (where, fields) =>
    logger.warn(
      { manifest: where, fields: fields.join(', ') },
      'unknown fields dropped from a pod, as the reference decodes it; they take no effect',
    );
}

/** Told the fields a decoding dropped (paths such as `spec.containers[0].colour`), when any. */
export type DroppedFields = (where: string, fields: readonly string[]) => void;

function zodProblems(
  err: { issues: readonly { path: readonly PropertyKey[]; message: string }[] },
  prefix: string,
): string[] {
  return err.issues.map((i) => clip(`${prefix}${fieldPath(i.path) || '(root)'}: ${i.message}`));
}

const ACCEPTED_TYPES = '(accepted: apiVersion: v1 with kind: Pod or PodList)';

/** The start of a document, on one line, for the reference's "is missing in '...'" messages. */
function snippet(text: string): string {
  const t = text.trim().replace(/\r?\n/g, '\\n');
  return t.length > 100 ? `${t.slice(0, 100)}…` : t;
}

/**
 * apiVersion and kind as the reference's decoder checks them: kind first, then the version, then
 * whether the scheme knows that kind in that version (core v1 Pod and PodList). Items of a
 * PodList may leave both out.
 */
function checkTypeMeta(
  obj: object,
  where: string,
  prefix: string,
  raw: string | undefined,
): 'Pod' | 'PodList' {
  const kind = 'kind' in obj ? obj.kind : undefined;
  const apiVersion = 'apiVersion' in obj ? obj.apiVersion : undefined;
  const fail = (msg: string): never => {
    throw new ManifestError(`${where}: ${prefix}${msg} ${ACCEPTED_TYPES}`, { file: where });
  };
  if (raw !== undefined && (kind === undefined || kind === null || kind === ''))
    fail(`Object 'Kind' is missing in '${snippet(raw)}'`);
  if (raw !== undefined && (apiVersion === undefined || apiVersion === null || apiVersion === ''))
    fail(`Object 'apiVersion' is missing in '${snippet(raw)}'`);
  const k = kind === undefined || kind === null || kind === '' ? 'Pod' : textOf(kind);
  const v =
    apiVersion === undefined || apiVersion === null || apiVersion === ''
      ? 'v1'
      : textOf(apiVersion);
  if (v === 'v1' && k === 'Pod') return k;
  if (v === 'v1' && k === 'PodList' && raw !== undefined) return k;
  return fail(
    `no kind ${clip(JSON.stringify(k))} is registered for version ${clip(JSON.stringify(v))}`,
  );
}

export function decodePodObject(
  obj: unknown,
  where: string,
  prefix = '',
  raw?: string,
  onDropped?: DroppedFields,
): DecodedPod {
  if (obj === null || typeof obj !== 'object' || Array.isArray(obj)) {
    throw new ManifestError(`${where}: ${prefix}expected a Pod object`, { file: where });
  }
  checkTypeMeta(obj, where, prefix, raw);
  const { pod, dropped } = lenientPod(obj);
  if (!pod.success) {
    throw new ManifestError(
      `${where}: invalid pod: ${firstProblems(zodProblems(pod.error, prefix), '; ')}`,
      { file: where },
    );
  }
  if (dropped.length > 0)
    onDropped?.(
      where,
      dropped.map((f) => `${prefix}${f}`),
    );
  return pod.data;
}

/** Why a manifest that is not blank holds no object: what a person sees in the skip line. */
function noObjectReason(text: string): string {
  const lines = text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l !== '');
  if (lines.every((l) => l.startsWith('#'))) return 'holds only comments, no pod';
  if (lines.every((l) => l.startsWith('#') || /^(---|\.\.\.)(\s.*)?$/.test(l)))
    return 'holds only YAML document separators, no pod';
  return 'is null, no pod';
}

/**
 * The values of a manifest's documents (with each document's own text), parsed within
 * MANIFEST_LIMITS: a manifest over a limit is a ManifestError naming the file (or URL), the limit
 * and the byte offset, never a crash.
 */
function manifestValues(text: string, where: string): { value: unknown; raw: string }[] {
  const input: BoundedInput = { limits: MANIFEST_LIMITS, source: where };
  const items: { value: unknown; raw: string }[] = [];
  try {
    for (const d of parseYamlBounded(text, input)) {
      const e = d.errors[0];
      if (e !== undefined)
        throw new ManifestError(
          `${where}: not valid YAML or JSON: ${clip(e.message.split('\n')[0] ?? '', 500)}`,
          { file: where },
        );
      const v: unknown = yamlToJsBounded(d, input, text);
      if (v !== null && v !== undefined)
        items.push({ value: v, raw: text.slice(d.range[0], d.range[2]) });
    }
  } catch (err) {
    if (err instanceof InputLimitError || err instanceof InputSyntaxError)
      throw new ManifestError(`${err.message}: manifest skipped`, { file: where, cause: err });
    throw err;
  }
  return items;
}

/**
 * Decodes a manifest body. A blank body gives no pods; any other body without a pod is an error.
 */
export function decodeManifest(
  text: string,
  where: string,
  onDropped?: DroppedFields,
): DecodedPod[] {
  if (text.trim() === '') return [];
  const items = manifestValues(text, where);
  if (items.length === 0)
    throw new ManifestError(`${where}: ${noObjectReason(text)}`, { file: where });
  const pods: DecodedPod[] = [];
  for (const { value: obj, raw } of items) {
    const isList =
      obj !== null &&
      typeof obj === 'object' &&
      !Array.isArray(obj) &&
      checkTypeMeta(obj, where, '', raw) === 'PodList';
    if (isList) {
      const list = 'items' in obj ? obj.items : undefined;
      if (!Array.isArray(list))
        throw new ManifestError(`${where}: items: expected a list of pods`, { file: where });
      list.forEach((p, i) =>
        pods.push(decodePodObject(p, where, `items[${i}].`, undefined, onDropped)),
      );
    } else {
      pods.push(decodePodObject(obj, where, '', raw, onDropped));
    }
  }
  return pods;
}

export function checkPod(pod: Pod, where: string, opts: ValidatePodOptions): void {
  const problems = validatePod(pod, opts);
  if (problems.length > 0) {
    throw new ManifestError(
      `${where}: invalid pod "${clip(pod.metadata.name)}": [${firstProblems(problems)}]`,
      { file: where },
    );
  }
}
