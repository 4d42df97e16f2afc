// Our OpenAPI schemas against the reference's: for every definition our documents carry, the
// reference (a real kube-apiserver 1.32's /openapi/v3, test/fixtures/reference-1.32/
// openapi-v3-schemas.json, written by scripts/reference-openapi-fixture.mjs) has the same
// definition, every property we list exists there with the same type, format and referenced type,
// and the same x-kubernetes-* extensions (list type and keys, patch strategy and merge key, map
// type, group-version-kind). The differences below are the only ones allowed, each with its reason;
// a listed difference that no longer occurs fails the test too, so the list stays true.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { allDefinitions } from '../../../helpers/openapi-catalog.js';

type Json = Record<string, unknown>;

const reference = (
  JSON.parse(
    readFileSync(
      new URL(
        '../../../../../test/fixtures/reference-1.32/openapi-v3-schemas.json',
        import.meta.url,
      ),
      'utf8',
    ),
  ) as { schemas: Record<string, Json> }
).schemas;

const KNOWN: Readonly<Record<string, string>> = {
  'io.k8s.api.certificates.v1.CertificateSigningRequestSpec.request: x-kubernetes-list-type ours=undefined reference="atomic"':
    'a []byte field: the reference marks it atomic; our table knows it as a byte string, which apply replaces whole anyway',
  'io.k8s.api.certificates.v1.CertificateSigningRequestStatus.certificate: x-kubernetes-list-type ours=undefined reference="atomic"':
    'a []byte field, as request above',
  'io.k8s.apimachinery.pkg.apis.meta.v1.Status.details: x-kubernetes-list-type ours=undefined reference="atomic"':
    'the reference tags a struct with a list type (a quirk of its generator); it has no effect on a struct',
  'io.k8s.apimachinery.pkg.apis.meta.v1.APIGroup: not in the reference':
    'a type of the api, apis, apis/<group> or version documents, which the stored reference data (group-version documents only) does not hold',
  'io.k8s.apimachinery.pkg.apis.meta.v1.APIGroupList: not in the reference':
    'a type of the api, apis, apis/<group> or version documents, which the stored reference data (group-version documents only) does not hold',
  'io.k8s.apimachinery.pkg.apis.meta.v1.APIVersions: not in the reference':
    'a type of the api, apis, apis/<group> or version documents, which the stored reference data (group-version documents only) does not hold',
  'io.k8s.apimachinery.pkg.apis.meta.v1.GroupVersionForDiscovery: not in the reference':
    'a type of the api, apis, apis/<group> or version documents, which the stored reference data (group-version documents only) does not hold',
  'io.k8s.apimachinery.pkg.apis.meta.v1.ServerAddressByClientCIDR: not in the reference':
    'a type of the api, apis, apis/<group> or version documents, which the stored reference data (group-version documents only) does not hold',
  'io.k8s.apimachinery.pkg.version.Info: not in the reference':
    'a type of the api, apis, apis/<group> or version documents, which the stored reference data (group-version documents only) does not hold',
};

/** The comparable shape of a property: type, format, referenced definition, extensions. */
function shape(p: Json): Json {
  const allOf = p['allOf'] as Json[] | undefined;
  const ref = (p['$ref'] ?? allOf?.[0]?.['$ref']) as string | undefined;
  const out: Json = {
    type: ref === undefined ? p['type'] : ref.split('.').pop(),
    format: p['format'],
  };
  if (p['items'] !== undefined) out['items'] = shape(p['items'] as Json);
  if (p['additionalProperties'] !== undefined)
    out['additionalProperties'] = shape(p['additionalProperties'] as Json);
  for (const [k, v] of Object.entries(p))
    if (k.startsWith('x-kubernetes-') && k !== 'x-kubernetes-preserve-unknown-fields') out[k] = v;
  return out;
}

function compareShapes(where: string, ours: Json, ref: Json, diffs: string[]): void {
  const keys = new Set([...Object.keys(ours), ...Object.keys(ref)]);
  for (const k of keys) {
    const a = ours[k];
    const b = ref[k];
    if (k === 'items' || k === 'additionalProperties') {
      if (a !== undefined && b !== undefined)
        compareShapes(`${where}${k === 'items' ? '[]' : '{}'}`, a as Json, b as Json, diffs);
      else if (a !== b)
        diffs.push(`${where}: ${k} ours=${JSON.stringify(a)} reference=${JSON.stringify(b)}`);
    } else if (JSON.stringify(a) !== JSON.stringify(b))
      diffs.push(`${where}: ${k} ours=${JSON.stringify(a)} reference=${JSON.stringify(b)}`);
  }
}

function gvkSet(v: unknown): Set<string> {
  return new Set(
    ((v as Json[] | undefined) ?? []).map(
      (g) => `${String(g['group'])}/${String(g['version'])}/${String(g['kind'])}`,
    ),
  );
}

function compareDefinition(name: string, ours: Json, ref: Json, diffs: string[]): void {
  if (ours['type'] !== ref['type'])
    diffs.push(`${name}: type ours=${String(ours['type'])} reference=${String(ref['type'])}`);
  if (ours['x-kubernetes-map-type'] !== ref['x-kubernetes-map-type'])
    diffs.push(`${name}: x-kubernetes-map-type ours=${String(ours['x-kubernetes-map-type'])}`);
  for (const r of (ours['required'] as string[] | undefined) ?? [])
    if (!((ref['required'] as string[] | undefined) ?? []).includes(r))
      diffs.push(`${name}: required ${r} not required by the reference`);
  for (const r of (ref['required'] as string[] | undefined) ?? [])
    if (
      ours['properties'] !== undefined &&
      (ours['x-kubernetes-preserve-unknown-fields'] !== true ||
        r in (ours['properties'] as Json)) &&
      !((ours['required'] as string[] | undefined) ?? []).includes(r)
    )
      diffs.push(`${name}: reference requires ${r}`);
  const refGvks = gvkSet(ref['x-kubernetes-group-version-kind']);
  for (const g of gvkSet(ours['x-kubernetes-group-version-kind']))
    if (!refGvks.has(g)) diffs.push(`${name}: group-version-kind ${g} not in the reference`);
  const refProps = (ref['properties'] as Record<string, Json> | undefined) ?? {};
  for (const [prop, p] of Object.entries(
    (ours['properties'] as Record<string, Json> | undefined) ?? {},
  )) {
    const rp = refProps[prop];
    if (rp === undefined) diffs.push(`${name}.${prop}: not in the reference`);
    else compareShapes(`${name}.${prop}`, shape(p), shape(rp), diffs);
  }
}

test('every definition we serve agrees with the reference (kubernetes profile), but for the listed differences', () => {
  const diffs: string[] = [];
  const ours = allDefinitions();
  assert.ok(ours.size > 100, `expected the full set of definitions, got ${ours.size}`);
  for (const [name, def] of ours) {
    const ref = reference[name];
    if (ref === undefined) diffs.push(`${name}: not in the reference`);
    else compareDefinition(name, def, ref, diffs);
  }
  const unexpected = diffs.filter((d) => KNOWN[d] === undefined);
  assert.deepEqual(
    unexpected,
    [],
    'differences from the reference that are not listed with a reason',
  );
  const stale = Object.keys(KNOWN).filter((k) => !diffs.includes(k));
  assert.deepEqual(stale, [], 'listed differences that no longer occur');
});

test('the kinds we serve carry the reference group-version-kind, CSR under certificates.k8s.io', () => {
  const ours = allDefinitions();
  assert.deepEqual(
    ours.get('io.k8s.api.certificates.v1.CertificateSigningRequest')?.[
      'x-kubernetes-group-version-kind'
    ],
    [{ group: 'certificates.k8s.io', version: 'v1', kind: 'CertificateSigningRequest' }],
  );
  assert.deepEqual(ours.get('io.k8s.api.core.v1.Pod')?.['x-kubernetes-group-version-kind'], [
    { group: '', version: 'v1', kind: 'Pod' },
  ]);
  assert.deepEqual(
    ours.get('io.k8s.api.rbac.v1.ClusterRoleBindingList')?.['x-kubernetes-group-version-kind'],
    [{ group: 'rbac.authorization.k8s.io', version: 'v1', kind: 'ClusterRoleBindingList' }],
  );
});
