// The descriptions of the OpenAPI documents (what `kubectl explain` prints): the reference's text
// (kube-apiserver 1.32's /openapi/v3, written here as it reads there) on every type and field we
// serve, with the platform profile's names where the text names a reserved one, and the
// reference's documentation links kept.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { substituteNames } from '../../../../src/apiserver/openapi/descriptions.js';
import { namesFor, type PlatformProfile } from '../../../../src/common/names.js';
import { openApiFor } from '../../../helpers/openapi-catalog.js';

type Json = Record<string, unknown>;

function schemasOf(profile: PlatformProfile, domain?: string): Map<string, Json> {
  const o = openApiFor(profile, undefined, domain);
  const out = new Map<string, Json>();
  for (const key of Object.keys(o.index().paths)) {
    const doc = o.v3Document(key) as { components: { schemas: Record<string, Json> } };
    for (const [name, def] of Object.entries(doc.components.schemas)) out.set(name, def);
  }
  return out;
}

function fieldDescription(schemas: Map<string, Json>, def: string, field: string): string {
  const props = schemas.get(def)?.['properties'] as Record<string, Json> | undefined;
  return String(props?.[field]?.['description']);
}

const CSR_SPEC = 'io.k8s.api.certificates.v1.CertificateSigningRequestSpec';

test('the kubernetes profile carries the reference description text as written', () => {
  const s = schemasOf('kubernetes');
  assert.equal(
    s.get('io.k8s.api.certificates.v1.CertificateSigningRequestSpec')?.['description'],
    'CertificateSigningRequestSpec contains the certificate request.',
  );
  const signer = fieldDescription(s, CSR_SPEC, 'signerName');
  assert.ok(
    signer.startsWith(
      'signerName indicates the requested signer, and is a qualified name.\n\nList/watch requests for CertificateSigningRequests can filter on this field using a "spec.signerName=NAME" fieldSelector.',
    ),
    signer,
  );
  assert.ok(
    signer.includes(
      ' 2. "kubernetes.io/kube-apiserver-client-kubelet": issues client certificates that kubelets use to authenticate to kube-apiserver.',
    ),
    signer,
  );
  assert.equal(
    fieldDescription(s, 'io.k8s.api.coordination.v1.LeaseSpec', 'holderIdentity'),
    'holderIdentity contains the identity of the holder of a current lease. If Coordinated Leader Election is used, the holder identity must be equal to the elected LeaseCandidate.metadata.name field.',
  );
  assert.equal(
    fieldDescription(s, 'io.k8s.api.rbac.v1.Subject', 'apiGroup'),
    'APIGroup holds the API group of the referenced subject. Defaults to "" for ServiceAccount subjects. Defaults to "rbac.authorization.k8s.io" for User and Group subjects.',
  );
  assert.equal(
    s.get('io.k8s.apimachinery.pkg.apis.meta.v1.Time')?.['description'],
    'Time is a wrapper around time.Time which supports correct marshaling to YAML and JSON.  Wrappers are provided for many of the factory methods that the time package offers.',
  );
});

test("the platform profile names its own signers and groups; documentation links stay the reference's", () => {
  const s = schemasOf('platform', 'example.org');
  const signer = fieldDescription(s, CSR_SPEC, 'signerName');
  assert.ok(
    signer.includes(
      ' 1. "example.org/plat-apiserver-client": issues client certificates that can be used to authenticate to kube-apiserver.',
    ),
    signer,
  );
  assert.ok(
    signer.includes(' 2. "example.org/plat-apiserver-client-platlet": issues client certificates'),
    signer,
  );
  assert.ok(
    signer.includes(' 3. "example.org/platlet-serving" issues serving certificates'),
    signer,
  );
  assert.ok(
    signer.includes(
      'More details are available at https://k8s.io/docs/reference/access-authn-authz/certificate-signing-requests/#kubernetes-signers',
    ),
    signer,
  );
  assert.ok(
    fieldDescription(s, 'io.k8s.api.rbac.v1.Subject', 'apiGroup').endsWith(
      'Defaults to "rbac.authorization.example.org" for User and Group subjects.',
    ),
  );
  assert.ok(
    fieldDescription(s, 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta', 'labels').endsWith(
      'More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels',
    ),
  );
});

test('under the platform profile no description names a reserved kubernetes domain outside a link', () => {
  const offenders: string[] = [];
  for (const [name, def] of schemasOf('platform')) {
    const texts = [
      def['description'],
      ...Object.values((def['properties'] as Record<string, Json> | undefined) ?? {}).map(
        (p) => p['description'],
      ),
    ];
    for (const t of texts) {
      if (typeof t !== 'string') continue;
      const outside = t.replace(/https?:\/\/\S+/g, '').replace(/sigs\.k8s\.io/g, '');
      if (/kubernetes\.io|k8s\.io/.test(outside)) offenders.push(`${name}: ${outside}`);
    }
  }
  assert.deepEqual(offenders, []);
});

test('every type and field we serve is described, but those the reference leaves undescribed', () => {
  // The reference's own documents have no description on these (checked against its /openapi/v3).
  const undescribedInReference = [
    'io.k8s.api.certificates.v1.CertificateSigningRequest.metadata',
    'io.k8s.api.certificates.v1.CertificateSigningRequestList.metadata',
    'io.k8s.apimachinery.pkg.apis.meta.v1.WatchEvent.type',
  ];
  // The types of the api, apis, apis/<group> and version documents: the stored reference data
  // holds only group-version documents, so their descriptions are not at hand.
  const notInReferenceData = new Set(
    [
      'APIGroup',
      'APIGroupList',
      'APIVersions',
      'GroupVersionForDiscovery',
      'ServerAddressByClientCIDR',
    ]
      .map((n) => `io.k8s.apimachinery.pkg.apis.meta.v1.${n}`)
      .concat('io.k8s.apimachinery.pkg.version.Info'),
  );
  for (const profile of ['kubernetes', 'platform'] as const) {
    const missing: string[] = [];
    for (const [name, def] of schemasOf(profile)) {
      if (notInReferenceData.has(name)) continue;
      if (typeof def['description'] !== 'string') missing.push(name);
      for (const [k, p] of Object.entries(
        (def['properties'] as Record<string, Json> | undefined) ?? {},
      ))
        if (typeof p['description'] !== 'string') missing.push(`${name}.${k}`);
    }
    assert.deepEqual(missing.sort(), undescribedInReference, profile);
  }
});

test('substituteNames: longest reserved name first, links and module paths kept, kubernetes profile unchanged', () => {
  const sub = substituteNames(namesFor('platform', 'acme.test'));
  assert.equal(
    sub('"kubernetes.io/kube-apiserver-client-kubelet" and "kubernetes.io/kube-apiserver-client"'),
    '"acme.test/plat-apiserver-client-platlet" and "acme.test/plat-apiserver-client"',
  );
  assert.equal(
    sub('TopologyKey is "topology.kubernetes.io/zone", in the node.k8s.io group'),
    'TopologyKey is "topology.acme.test/zone", in the node.acme.test group',
  );
  assert.equal(
    sub(
      'see https://kubernetes.io/docs/x and https://git.k8s.io/community, sigs.k8s.io/structured-merge-diff',
    ),
    'see https://kubernetes.io/docs/x and https://git.k8s.io/community, sigs.k8s.io/structured-merge-diff',
  );
  const same = substituteNames(namesFor('kubernetes'));
  assert.equal(
    same('"kubernetes.io/kubelet-serving" in node.k8s.io'),
    '"kubernetes.io/kubelet-serving" in node.k8s.io',
  );
});
