// Writes src/apiserver/schema/core.generated.ts: the schema table's form (schema/types.ts) of the
// reference's PodSpec, PodStatus, NodeSpec, NodeStatus, ServiceSpec, ServiceStatus,
// LocalObjectReference (a ServiceAccount's secrets), EndpointSubset, and authentication/v1's
// TokenRequestSpec and TokenRequestStatus (exported prefixed Authn) and every type they use,
// converted from the reference's own definitions (a real kube-apiserver v1.32.13's /openapi/v3, stored in
// ../shared/reference/kubernetes-1.32/openapi-v3): field names, JSON types, int32/int64, Time,
// required fields, atomic maps, list types and keys, patch strategies and merge keys (no
// descriptions). Types the table already has (ObjectMeta, LabelSelector, ObjectReference) are
// imported from meta.ts; Quantity and IntOrString are kept as sent (any JSON).
// `--check` generates again and compares when the input is at hand, and otherwise checks the
// digests recorded in the header (scripts/generated-file.mjs).
// Usage: node scripts/reference-core-schema.mjs [--check] [openapiV3Dir]
//   openapiV3Dir defaults to ../shared/reference/kubernetes-1.32/openapi-v3 beside the checkout.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import process from 'node:process';
import {
  ROOT,
  SHARED_REFERENCE,
  checkRecorded,
  checkRegenerated,
  inputDigest,
  render,
  write,
} from './generated-file.mjs';
import { dependenciesFirst } from './reference-openapi.mjs';

const OUT = join(ROOT, 'src', 'apiserver', 'schema', 'core.generated.ts');
const HOW = 'node scripts/reference-core-schema.mjs [openapiV3Dir]';
const args = process.argv.slice(2);
const check = args.includes('--check');
const dir = args.find((a) => a !== '--check') ?? join(SHARED_REFERENCE, 'openapi-v3');
if (!existsSync(dir)) {
  if (!check) throw new Error(`the reference's /openapi/v3 documents are not at ${dir}: ${HOW}`);
  checkRecorded(OUT, import.meta.url, `the reference's data is not at ${dir}`);
  process.exit(0);
}
const inputs = readdirSync(dir)
  .filter((x) => x.endsWith('.json'))
  .map((f) => [f, readFileSync(join(dir, f), 'utf8')]);
const ref = {};
for (const [, t] of inputs) Object.assign(ref, JSON.parse(t).components.schemas);

const CORE = 'io.k8s.api.core.v1.';
const META = 'io.k8s.apimachinery.pkg.apis.meta.v1.';
const AUTHN = 'io.k8s.api.authentication.v1.';
const CORE_ROOTS = [
  'PodSpec',
  'PodStatus',
  'NodeSpec',
  'NodeStatus',
  'ServiceSpec',
  'ServiceStatus',
  'LocalObjectReference',
  'EndpointSubset',
];
const ROOTS = [
  ...CORE_ROOTS.map((n) => CORE + n),
  ...['TokenRequestSpec', 'TokenRequestStatus'].map((n) => AUTHN + n),
];
/** The exported names: the roots, authentication.v1's prefixed (a name core/v1 may also have). */
const exportName = (name) =>
  name.startsWith(AUTHN) ? `Authn${name.slice(AUTHN.length)}` : name.slice(CORE.length);
/** Definitions the table already has, by the expression that names them. */
const PROVIDED = {
  [`${META}ObjectMeta`]: 'objectMeta',
  [`${META}LabelSelector`]: 'labelSelector',
  [`${META}Condition`]: 'condition',
  [`${CORE}ObjectReference`]: 'objectReference',
  [`${META}Time`]: 'time',
  'io.k8s.apimachinery.pkg.api.resource.Quantity': 'quantity',
  'io.k8s.apimachinery.pkg.util.intstr.IntOrString': 'intOrString',
};

const refName = (p) => {
  const r = p.$ref ?? p.allOf?.[0]?.$ref;
  return r === undefined ? undefined : r.split('/').pop();
};
const ident = (name) =>
  PROVIDED[name] ??
  (name.startsWith(CORE) || name.startsWith(AUTHN) ? exportName(name) : undefined);

function listExt(p) {
  const x = {};
  if (p['x-kubernetes-list-type'] !== undefined) x.listType = p['x-kubernetes-list-type'];
  if (p['x-kubernetes-list-map-keys'] !== undefined) x.mapKeys = p['x-kubernetes-list-map-keys'];
  if (p['x-kubernetes-patch-strategy'] !== undefined)
    x.patchStrategy = p['x-kubernetes-patch-strategy'];
  if (p['x-kubernetes-patch-merge-key'] !== undefined)
    x.patchMergeKey = p['x-kubernetes-patch-merge-key'];
  return Object.keys(x).length === 0 ? '' : `, ${JSON.stringify(x)}`;
}

function field(p, where, deps) {
  const r = refName(p);
  if (r !== undefined) {
    const id = ident(r);
    if (id === undefined) throw new Error(`${where}: no way to name ${r}`);
    if (PROVIDED[r] === undefined) deps.add(r);
    return id;
  }
  switch (p.type) {
    case 'string':
      return p.format === 'byte' ? 'bytes' : 'str';
    case 'integer':
      if (p.format !== 'int32' && p.format !== 'int64')
        throw new Error(`${where}: integer format ${p.format}`);
      return p.format;
    case 'number':
      return 'num';
    case 'boolean':
      return 'bool';
    case 'array':
      return `arr(${field(p.items, `${where}[]`, deps)}${listExt(p)})`;
    case 'object':
      if (p.additionalProperties === undefined) return 'any';
      return `${p['x-kubernetes-map-type'] === 'atomic' ? 'atomicMap' : 'map'}(${field(p.additionalProperties, `${where}{}`, deps)})`;
    default:
      throw new Error(`${where}: cannot convert ${JSON.stringify(p)}`);
  }
}

const bodies = new Map();
const depsOf = new Map();
const todo = [...ROOTS];
while (todo.length > 0) {
  const name = todo.pop();
  if (bodies.has(name)) continue;
  const def = ref[name];
  if (def?.type !== 'object') throw new Error(`${name}: not an object definition`);
  const deps = new Set();
  const fields = Object.keys(def.properties ?? {})
    .sort()
    .map((k) => `  ${k}: ${field(def.properties[k], `${name}.${k}`, deps)},`);
  const opts = {};
  if (def.required !== undefined) opts.required = def.required;
  if (def['x-kubernetes-map-type'] === 'atomic') opts.atomic = true;
  if (name.startsWith(AUTHN)) opts.pkg = AUTHN.slice(0, -1);
  const short = exportName(name);
  const defName = name.startsWith(AUTHN) ? name.slice(AUTHN.length) : short;
  const optText = Object.keys(opts).length === 0 ? '' : `, ${JSON.stringify(opts)}`;
  bodies.set(
    name,
    `const ${short}: Schema = obj('v1.${defName}', {\n${fields.join('\n')}\n}${optText});`,
  );
  depsOf.set(name, deps);
  todo.push(...deps);
}

// Dependencies first (the types form no cycle; a cycle would fail here).
const ordered = dependenciesFirst(depsOf);

const body = ordered.map((n) => bodies.get(n)).join('\n');
const helpers = [
  'obj',
  ...[
    'any',
    'arr',
    'atomicMap',
    'bool',
    'bytes',
    'int32',
    'int64',
    'map',
    'num',
    'str',
    'time',
  ].filter((h) => new RegExp(`[(:] ?${h}\\b`).test(body)),
].sort();
const metas = ['condition', 'labelSelector', 'objectMeta', 'objectReference'].filter((h) =>
  new RegExp(`[(:] ?${h}\\b`).test(body),
);
const module = `import { ${metas.join(', ')} } from './meta.js';
import { ${helpers.join(', ')}, type Schema } from './types.js';

/** resource.Quantity: a string or a number, kept as sent. */
const quantity: Schema = { t: 'any', ref: 'io.k8s.apimachinery.pkg.api.resource.Quantity' };
/** intstr.IntOrString: an integer or a string, kept as sent. */
const intOrString: Schema = { t: 'any', ref: 'io.k8s.apimachinery.pkg.util.intstr.IntOrString' };

${body}

export { ${ROOTS.map(exportName).join(', ')} };
`;
const text = render({
  generatorUrl: import.meta.url,
  about: [
    'PodSpec, PodStatus, NodeSpec, NodeStatus, ServiceSpec, ServiceStatus, LocalObjectReference,',
    'EndpointSubset, authentication/v1 TokenRequestSpec and TokenRequestStatus (prefixed Authn)',
    "and every type they use, in the schema table's form,",
    'from the /openapi/v3 documents of a real kube-apiserver v1.32.13 (../shared/reference).',
  ],
  input: inputDigest(inputs),
  body: module,
});
if (check) checkRegenerated(OUT, text, HOW);
else write(OUT, text);
