// The reference's ValidateEnv and ValidateEnvFrom for the pods this agent validates itself (static
// pods): names under 1.32's relaxed rule (RelaxedEnvironmentVariableValidation, on by default:
// printable ASCII other than '='), exactly one valueFrom source and not beside a value, fieldRef
// paths env may read, resourceFieldRef resources and divisors, key selectors, envFrom prefixes and
// sources.
import { DNS1123_SUBDOMAIN_MAX_LENGTH, maxLenError, regexError } from '../../common/util/names.js';
import { invalid, notSupported, required } from './field-errors.js';
import type { Container } from './types.js';
import { normalizeQuantity } from '../../common/util/values/quantity.js';

const RELAXED_NAME_MSG =
  'a valid environment variable name must consist only of printable ASCII characters ' +
  "other than '='";

const ENV_FIELD_PATHS = [
  'metadata.name',
  'metadata.namespace',
  'metadata.uid',
  'spec.nodeName',
  'spec.serviceAccountName',
  'status.hostIP',
  'status.hostIPs',
  'status.podIP',
  'status.podIPs',
];
const RESOURCES = [
  'limits.cpu',
  'limits.ephemeral-storage',
  'limits.memory',
  'requests.cpu',
  'requests.ephemeral-storage',
  'requests.memory',
];
const CPU_DIVISORS = new Set(['1m', '1']);
const BYTE_DIVISORS = new Set([
  '1',
  '1k',
  '1M',
  '1G',
  '1T',
  '1P',
  '1E',
  '1Ki',
  '1Mi',
  '1Gi',
  '1Ti',
  '1Pi',
  '1Ei',
]);
const BYTE_DIVISOR_MSG = (what: string): string =>
  `only divisor's values 1, 1k, 1M, 1G, 1T, 1P, 1E, 1Ki, 1Mi, 1Gi, 1Ti, 1Pi, 1Ei are ` +
  `supported with the ${what}`;

/** IsConfigMapKey. */
function configMapKeyProblems(key: string): string[] {
  const out: string[] = [];
  if (key.length > DNS1123_SUBDOMAIN_MAX_LENGTH)
    out.push(maxLenError(DNS1123_SUBDOMAIN_MAX_LENGTH));
  if (!/^[-._a-zA-Z0-9]+$/.test(key))
    out.push(
      regexError(
        "a valid config key must consist of alphanumeric characters, '-', '_' or '.'",
        '[-._a-zA-Z0-9]+',
        'key.name',
        'KEY_NAME',
        'key-name',
      ),
    );
  if (key === '.') out.push("must not be '.'");
  else if (key === '..') out.push("must not be '..'");
  else if (key.startsWith('..')) out.push("must not start with '..'");
  return out;
}

type EnvVar = NonNullable<Container['env']>[number];
type EnvSource = NonNullable<EnvVar['valueFrom']>;

/** IsRelaxedEnvVarName. */
export function relaxedEnvNameProblems(name: string): string[] {
  if (name === '') return ['environment variable name must be non-empty'];
  return /^[\x20-\x3c\x3e-\x7e]*$/.test(name) ? [] : [RELAXED_NAME_MSG];
}

function fieldRefProblems(ref: NonNullable<EnvSource['fieldRef']>, at: string): string[] {
  const version = ref.apiVersion ?? 'v1';
  if (version === '') return [required(`${at}.apiVersion`)];
  if (ref.fieldPath === '') return [required(`${at}.fieldPath`)];
  if (version !== 'v1')
    return [
      invalid(
        `${at}.fieldPath`,
        ref.fieldPath,
        `error converting fieldPath: unsupported pod version: ${version}`,
      ),
    ];
  const sub = /^(.+)\['(.*)'\]$/s.exec(ref.fieldPath);
  if (sub !== null) {
    if (sub[1] === 'metadata.annotations' || sub[1] === 'metadata.labels') return [];
    return [
      invalid(
        `${at}.fieldPath`,
        ref.fieldPath,
        `error converting fieldPath: field label does not support subscript: ${ref.fieldPath}`,
      ),
    ];
  }
  const path = ref.fieldPath === 'spec.host' ? 'spec.nodeName' : ref.fieldPath;
  return ENV_FIELD_PATHS.includes(path)
    ? []
    : [notSupported(`${at}.fieldPath`, path, ENV_FIELD_PATHS)];
}

function divisorProblem(resource: string, divisor: string | undefined, at: string): string[] {
  if (divisor === undefined) return [];
  let canonical: string;
  try {
    canonical = normalizeQuantity(divisor);
  } catch {
    return [invalid(`${at}.divisor`, divisor, 'must be a quantity')];
  }
  if (canonical === '0') return [];
  const kind = resource.split('.')[1] ?? '';
  if (kind === 'cpu' && !CPU_DIVISORS.has(canonical))
    return [
      invalid(
        `${at}.divisor`,
        resource,
        "only divisor's values 1m and 1 are supported with the cpu resource",
      ),
    ];
  if (kind === 'memory' && !BYTE_DIVISORS.has(canonical))
    return [invalid(`${at}.divisor`, resource, BYTE_DIVISOR_MSG('memory resource'))];
  if (kind === 'ephemeral-storage' && !BYTE_DIVISORS.has(canonical))
    return [
      invalid(`${at}.divisor`, resource, BYTE_DIVISOR_MSG('local ephemeral storage resource')),
    ];
  if (kind.startsWith('hugepages-') && !BYTE_DIVISORS.has(canonical))
    return [invalid(`${at}.divisor`, resource, BYTE_DIVISOR_MSG('hugepages resource'))];
  return [];
}

function resourceRefProblems(
  ref: NonNullable<EnvSource['resourceFieldRef']>,
  at: string,
): string[] {
  const out: string[] = [];
  if (ref.resource === '') out.push(required(`${at}.resource`));
  else if (
    !RESOURCES.includes(ref.resource) &&
    !ref.resource.startsWith('requests.hugepages-') &&
    !ref.resource.startsWith('limits.hugepages-')
  )
    out.push(notSupported(`${at}.resource`, ref.resource, RESOURCES));
  return [...out, ...divisorProblem(ref.resource, ref.divisor, at)];
}

function keyRefProblems(ref: { name?: string | undefined; key: string }, at: string): string[] {
  if (ref.key === '') return [required(`${at}.key`)];
  return configMapKeyProblems(ref.key).map((m) => invalid(`${at}.key`, ref.key, m));
}

function valueFromProblems(e: EnvVar, at: string): string[] {
  const from = e.valueFrom;
  if (from === undefined) return [];
  const out: string[] = [];
  let sources = 0;
  if (from.fieldRef !== undefined) {
    sources++;
    out.push(...fieldRefProblems(from.fieldRef, `${at}.fieldRef`));
  }
  if (from.resourceFieldRef !== undefined) {
    sources++;
    out.push(...resourceRefProblems(from.resourceFieldRef, `${at}.resourceFieldRef`));
  }
  if (from.configMapKeyRef !== undefined) {
    sources++;
    out.push(...keyRefProblems(from.configMapKeyRef, `${at}.configMapKeyRef`));
  }
  if (from.secretKeyRef !== undefined) {
    sources++;
    out.push(...keyRefProblems(from.secretKeyRef, `${at}.secretKeyRef`));
  }
  if (sources === 0)
    out.push(
      invalid(
        at,
        '',
        'must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`',
      ),
    );
  else if ((e.value ?? '') !== '')
    out.push(invalid(at, '', 'may not be specified when `value` is not empty'));
  else if (sources > 1)
    out.push(invalid(at, '', 'may not have more than one field specified at a time'));
  return out;
}

function envFromProblems(c: Container, path: string): string[] {
  const out: string[] = [];
  (c.envFrom ?? []).forEach((f, i) => {
    const at = `${path}.envFrom[${i}]`;
    if ((f.prefix ?? '') !== '')
      for (const m of relaxedEnvNameProblems(f.prefix ?? ''))
        out.push(invalid(`${at}.prefix`, f.prefix, m));
    const refs = [
      ['configMapRef', f.configMapRef],
      ['secretRef', f.secretRef],
    ] as const;
    const set = refs.filter(([, r]) => r !== undefined);
    for (const [field, r] of set)
      if ((r?.name ?? '') === '') out.push(required(`${at}.${field}.name`));
    if (set.length === 0)
      out.push(
        invalid(`${path}.envFrom`, '', 'must specify one of: `configMapRef` or `secretRef`'),
      );
    else if (set.length > 1)
      out.push(
        invalid(`${path}.envFrom`, '', 'may not have more than one field specified at a time'),
      );
  });
  return out;
}

/** Every problem of a container's env and envFrom, each naming its field path. */
export function envProblems(c: Container, path: string): string[] {
  const out: string[] = [];
  (c.env ?? []).forEach((e, j) => {
    const at = `${path}.env[${j}]`;
    if (e.name === '') out.push(required(`${at}.name`));
    else for (const m of relaxedEnvNameProblems(e.name)) out.push(invalid(`${at}.name`, e.name, m));
    out.push(...valueFromProblems(e, `${at}.valueFrom`));
  });
  return [...out, ...envFromProblems(c, path)];
}
