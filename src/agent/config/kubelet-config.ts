// Under the `kubernetes` naming profile the --config file is the reference's own
// `kubelet.config.k8s.io/v1beta1` `KubeletConfiguration` (the file kubeadm writes on a node). It is
// read as the reference reads it: its `kube` fields are ours with `plat` (kubeAPIQPS ->
// platAPIQPS, kubeReserved -> platReserved, kubeletCgroups -> nodeagentCgroups, contentType ->
// platAPIContentType); a zero duration (`0s`, as kubeadm writes them) means the default, as the
// reference's defaulting does; a reference field we do not support fails the load naming it
// unless it holds its zero value (then it is dropped with a note); a field the reference does not
// know either is dropped with a warning (the reference's lenient decoding warns too).
import type { Names } from '../../common/names.js';
import { isPlainObject, type JsonObject } from './merge.js';

/** The reference's field names whose meaning is one of our fields under another name. */
export const KUBELET_FIELD_RENAMES: Readonly<Record<string, string>> = {
  kubeAPIQPS: 'platAPIQPS',
  kubeAPIBurst: 'platAPIBurst',
  contentType: 'platAPIContentType',
  kubeReserved: 'platReserved',
  kubeReservedCgroup: 'platReservedCgroup',
  kubeletCgroups: 'nodeagentCgroups',
};

/** KubeletConfiguration v1beta1 (Kubernetes 1.32) fields that have no counterpart here. */
export const KUBELET_FIELDS_NOT_SUPPORTED: ReadonlySet<string> = new Set([
  'failCgroupV1',
  'userNamespaces',
]);

export interface TranslatedKubeletConfiguration {
  content: JsonObject;
  /** Fields dropped (unknown to the reference too, or a supported-nowhere field at zero). */
  notes: { path: string; text: string; warning: boolean }[];
  /** Reference fields set to something we cannot do. */
  unsupported: string[];
}

const ZERO_DURATION = /^[-+]?0+(\.0+)?(ns|us|µs|ms|s|m|h)?$/;

/** The reference's zero value of a field: what kubeadm writes for "use the default". */
export function isZeroValue(v: unknown): boolean {
  if (v === null || v === undefined || v === false || v === 0 || v === '') return true;
  if (typeof v === 'string') return ZERO_DURATION.test(v);
  if (Array.isArray(v)) return v.length === 0;
  if (isPlainObject(v)) return Object.values(v).every(isZeroValue);
  return false;
}

/** A copy without zero durations (`0s`), which the reference replaces by the field's default. */
function withoutZeroDurations(obj: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(obj)) {
    if (typeof v === 'string' && v !== '' && ZERO_DURATION.test(v) && /[a-zµ]$/.test(v)) continue;
    out[k] = isPlainObject(v) ? withoutZeroDurations(v) : v;
  }
  return out;
}

function translateLogging(
  logging: unknown,
  notes: TranslatedKubeletConfiguration['notes'],
  unsupported: string[],
): void {
  if (!isPlainObject(logging)) return;
  // flushFrequency 0 is the reference's "default" (5s).
  if (logging['flushFrequency'] === 0) delete logging['flushFrequency'];
  const options = logging['options'];
  if (!isPlainObject(options)) return;
  const json = options['json'];
  if (json === undefined) return;
  if (
    isZeroValue(json) ||
    (isPlainObject(json) && Object.values(json).every((x) => isZeroValue(x) || x === '0'))
  ) {
    notes.push({
      path: 'logging.options.json',
      text: 'holds the defaults; the JSON log format options are not supported and are ignored',
      warning: false,
    });
  } else {
    unsupported.push('logging.options.json');
  }
  delete options['json'];
}

/**
 * Translates a decoded KubeletConfiguration into a NodeAgentConfiguration document of the
 * platform profile (identity already checked by the caller). `known` says which top-level fields
 * our schema has.
 */
export function translateKubeletConfiguration(
  doc: JsonObject,
  ours: Names,
  known: (field: string) => boolean,
): TranslatedKubeletConfiguration {
  const content: JsonObject = {};
  const notes: TranslatedKubeletConfiguration['notes'] = [];
  const unsupported: string[] = [];
  for (const [key, value] of Object.entries(doc)) {
    if (key === 'apiVersion' || key === 'kind') continue;
    const field = KUBELET_FIELD_RENAMES[key] ?? key;
    if (field !== key && known(key)) {
      // Our own spelling inside a reference file: the reference would not know it.
      notes.push({
        path: key,
        text: 'is not a KubeletConfiguration field; ignored',
        warning: true,
      });
      continue;
    }
    if (known(field) && !['platformDomain', 'platformProfile'].includes(field)) {
      // An empty string is the reference's "default" (containerRuntimeEndpoint: "" as kubeadm
      // writes it).
      if (value !== '') content[field] = structuredClone(value);
      continue;
    }
    if (KUBELET_FIELDS_NOT_SUPPORTED.has(key)) {
      if (isZeroValue(value))
        notes.push({
          path: key,
          text: 'holds its default and is not supported by nodeagent; ignored',
          warning: false,
        });
      else unsupported.push(key);
      continue;
    }
    notes.push({ path: key, text: 'unknown field ignored', warning: true });
  }
  translateLogging(content['logging'], notes, unsupported);
  const translated = withoutZeroDurations(content);
  translated['apiVersion'] = ours.agentConfig.apiVersion;
  translated['kind'] = ours.agentConfig.kind;
  translated['platformProfile'] = 'kubernetes';
  return { content: translated, notes, unsupported };
}
