// A container's environment as the reference's kubelet makes it (makeEnvironmentVariables):
// envFrom first (each ConfigMap's data or Secret's data, keys prefixed; a later source wins), then
// env in order (a value expanded over the variables so far and the service variables; a
// valueFrom resolved), which wins over envFrom, then the service variables not already set. A
// missing ConfigMap or Secret, or a missing key, fails the whole environment with the reference's
// message unless the reference is optional, when the variable (or source) is left out.
import type { Container, Pod } from '../pod/types.js';
import { expandVars } from '../pod/expand.js';
import {
  ObjectNotFoundError,
  type ObjectKind,
  type PodObject,
  type PodObjects,
} from '../objects/types.js';
import type { NodeAllocatable } from '../volume/downward-api.js';
import { fieldRefValue, type PodAddresses } from './field-ref.js';
import { resourceRefValue } from './resource-ref.js';

export interface EnvInputs {
  /** The ConfigMap/Secret manager; undefined without an API server. */
  objects: PodObjects | undefined;
  /** The service variables of the pod (service-env.ts). */
  serviceEnv: ReadonlyMap<string, string>;
  addresses: PodAddresses;
  allocatable: NodeAllocatable;
}

type EnvVar = NonNullable<Container['env']>[number];
type EnvFrom = NonNullable<Container['envFrom']>[number];

/** The objects one environment reads, each once (the reference's configMaps and secrets maps). */
class ObjectCache {
  private readonly seen = new Map<string, PodObject>();
  constructor(
    private readonly pod: Pod,
    private readonly objects: PodObjects | undefined,
  ) {}

  /** The object, or undefined when it does not exist and the reference is optional. */
  async get(kind: ObjectKind, name: string, optional: boolean): Promise<PodObject | undefined> {
    const ns = this.pod.metadata.namespace;
    const key = `${kind}/${name}`;
    const known = this.seen.get(key);
    if (known !== undefined) return known;
    if (this.objects === undefined)
      throw new Error(
        `couldn't get ${kind === 'ConfigMap' ? 'configMap' : 'secret'} ${ns}/${name}, ` +
          `no kubeClient defined`,
      );
    try {
      const obj = await this.objects.get(kind, ns, name);
      this.seen.set(key, obj);
      return obj;
    } catch (err) {
      if (err instanceof ObjectNotFoundError && optional) return undefined;
      throw err;
    }
  }
}

/** The env data of an object: a ConfigMap's `data` (not binaryData), a Secret's `data`. */
function envData(obj: PodObject): [string, string][] {
  return [...obj.data]
    .filter(([k]) => obj.kind === 'Secret' || obj.textKeys.has(k))
    .map(([k, v]) => [k, v.toString('utf8')]);
}

async function addEnvFrom(
  from: EnvFrom,
  cache: ObjectCache,
  out: Map<string, string>,
): Promise<void> {
  const ref = from.configMapRef ?? from.secretRef;
  if (ref === undefined) return;
  const kind: ObjectKind = from.configMapRef !== undefined ? 'ConfigMap' : 'Secret';
  const obj = await cache.get(kind, ref.name ?? '', ref.optional === true);
  if (obj === undefined) return;
  for (const [k, v] of envData(obj)) out.set(`${from.prefix ?? ''}${k}`, v);
}

/** A configMapKeyRef or secretKeyRef: the value, or undefined when optional and absent. */
async function keyRefValue(
  kind: ObjectKind,
  ref: { name?: string | undefined; key: string; optional?: boolean | undefined },
  pod: Pod,
  cache: ObjectCache,
): Promise<string | undefined> {
  const name = ref.name ?? '';
  const optional = ref.optional === true;
  const obj = await cache.get(kind, name, optional);
  if (obj === undefined) return undefined;
  const value = envData(obj).find(([k]) => k === ref.key)?.[1];
  if (value === undefined && !optional)
    throw new Error(`couldn't find key ${ref.key} in ${kind} ${pod.metadata.namespace}/${name}`);
  return value;
}

/**
 * One env entry's value; undefined when an optional source is absent (the variable is left out).
 */
async function entryValue(
  e: EnvVar,
  ctx: {
    pod: Pod;
    c: Container;
    inputs: EnvInputs;
    cache: ObjectCache;
    sofar: Map<string, string>;
  },
): Promise<string | undefined> {
  const value = e.value ?? '';
  if (value !== '') return expandVars(value, ctx.sofar, ctx.inputs.serviceEnv);
  const from = e.valueFrom;
  if (from === undefined) return '';
  if (from.fieldRef !== undefined)
    return fieldRefValue(from.fieldRef, ctx.pod, ctx.inputs.addresses);
  if (from.resourceFieldRef !== undefined)
    return resourceRefValue(from.resourceFieldRef, ctx.pod, ctx.c, ctx.inputs.allocatable);
  if (from.configMapKeyRef !== undefined)
    return keyRefValue('ConfigMap', from.configMapKeyRef, ctx.pod, ctx.cache);
  if (from.secretKeyRef !== undefined)
    return keyRefValue('Secret', from.secretKeyRef, ctx.pod, ctx.cache);
  return '';
}

/**
 * The container's variables in order (envFrom, env, then the service variables); throws why not.
 */
export async function makeEnvironment(
  pod: Pod,
  c: Container,
  inputs: EnvInputs,
): Promise<Map<string, string>> {
  const cache = new ObjectCache(pod, inputs.objects);
  const env = new Map<string, string>();
  for (const from of c.envFrom ?? []) await addEnvFrom(from, cache, env);
  const ctx = { pod, c, inputs, cache, sofar: env };
  for (const e of c.env ?? []) {
    const v = await entryValue(e, ctx);
    if (v !== undefined) env.set(e.name, v);
  }
  for (const [k, v] of inputs.serviceEnv) if (!env.has(k)) env.set(k, v);
  return env;
}
