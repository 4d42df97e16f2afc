// The downward API's values, as the reference's fieldpath and resource helpers format them:
// metadata.name, metadata.namespace, metadata.uid, metadata.labels and metadata.annotations
// (`key="value"` lines sorted by key, values Go-quoted, no newline after the last), one label or
// annotation (metadata.labels['key']); limits.* and requests.* of a container (limits default to
// the node's allocatable), divided by the divisor and rounded up.
import { parseQuantity } from '../../common/util/values/quantity.js';
import type { DownwardAPIVolumeFile, Pod } from '../pod/types.js';
import type { Payload } from './atomic-writer.js';
import { goQuote } from '../../common/util/go-quote.js';

export function formatMap(m: Readonly<Record<string, string>> | undefined): string {
  return Object.keys(m ?? {})
    .sort()
    .map((k) => `${k}=${goQuote(m?.[k] ?? '')}`)
    .join('\n');
}

const SUBSCRIPTED = /^(metadata\.(?:labels|annotations))\['(.*)'\]$/;

export function fieldPathValue(pod: Pod, fieldPath: string): string {
  const sub = SUBSCRIPTED.exec(fieldPath);
  if (sub !== null) {
    const map = sub[1] === 'metadata.labels' ? pod.metadata.labels : pod.metadata.annotations;
    return map?.[sub[2] ?? ''] ?? '';
  }
  switch (fieldPath) {
    case 'metadata.annotations':
      return formatMap(pod.metadata.annotations);
    case 'metadata.labels':
      return formatMap(pod.metadata.labels);
    case 'metadata.name':
      return pod.metadata.name;
    case 'metadata.namespace':
      return pod.metadata.namespace;
    case 'metadata.uid':
      return pod.metadata.uid;
  }
  throw new Error(`unsupported fieldPath: ${fieldPath}`);
}

/** The node's allocatable amounts (cpu in cores, the others in bytes) limits default to. */
export type NodeAllocatable = Readonly<Record<string, number>>;

function containerOf(pod: Pod, name: string): Pod['spec']['containers'][number] {
  const c = [...pod.spec.containers, ...(pod.spec.initContainers ?? [])].find(
    (x) => x.name === name,
  );
  if (c === undefined) throw new Error(`container ${name} not found`);
  return c;
}

/**
 * ceil(value / divisor) in the divisor's unit: cpu in millis, the rest in base units. A zero
 * divisor is the unset Quantity (the API server serves an unset divisor as "0"), which the
 * reference reads as 1.
 */
function divided(resource: string, value: number, divisor: string | undefined): string {
  const given = parseQuantity(divisor ?? '1').value;
  const d = given === 0 ? 1 : given;
  if (d < 0) throw new Error(`invalid divisor ${divisor ?? ''}`);
  const cpu = resource.endsWith('.cpu');
  // the reference divides MilliValue()s for cpu and Value()s (each rounded up) for the rest
  const v = cpu ? Math.ceil(Math.round(value * 1e6) / 1e3) : Math.ceil(value);
  const dv = cpu ? Math.ceil(Math.round(d * 1e6) / 1e3) : Math.ceil(d);
  return String(Math.ceil(v / dv));
}

export function resourceFieldValue(
  pod: Pod,
  ref: { containerName?: string | undefined; resource: string; divisor?: string | undefined },
  allocatable: NodeAllocatable,
): string {
  const c = containerOf(pod, ref.containerName ?? '');
  const [side, name] = ref.resource.split('.', 2);
  if (
    (side !== 'limits' && side !== 'requests') ||
    name === undefined ||
    !(['cpu', 'memory', 'ephemeral-storage'].includes(name) || name.startsWith('hugepages-'))
  )
    throw new Error(`unsupported container resource : ${ref.resource}`);
  const spec = side === 'limits' ? c.resources?.limits : c.resources?.requests;
  const given = spec?.[name];
  const parsed = given !== undefined ? parseQuantity(given).value : 0;
  // an unset or zero limit is the node's allocatable, as MergeContainerResourceLimits makes it
  const value = side === 'limits' && parsed === 0 ? (allocatable[name] ?? 0) : parsed;
  return divided(ref.resource, value, ref.divisor);
}

/** The downward API files of a volume or projection, each its mode or the default. */
export function downwardApiPayload(
  pod: Pod,
  items: readonly DownwardAPIVolumeFile[],
  defaultMode: number,
  allocatable: NodeAllocatable,
): Payload {
  const payload: Payload = new Map();
  const errors: string[] = [];
  for (const item of items) {
    let data = '';
    try {
      if (item.fieldRef !== undefined) data = fieldPathValue(pod, item.fieldRef.fieldPath);
      else if (item.resourceFieldRef !== undefined)
        data = resourceFieldValue(pod, item.resourceFieldRef, allocatable);
    } catch (err) {
      errors.push(err instanceof Error ? err.message : String(err));
    }
    payload.set(item.path, { data: Buffer.from(data), mode: item.mode ?? defaultMode });
  }
  if (errors.length > 0) throw new Error(aggregate(errors));
  return payload;
}

/** The reference's utilerrors.NewAggregate message: one error as it is, several in brackets. */
export function aggregate(messages: readonly string[]): string {
  return messages.length === 1 ? (messages[0] ?? '') : `[${messages.join(', ')}]`;
}
