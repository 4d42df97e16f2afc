// kubectl 1.32 against plat-apiserver's OpenAPI: `kubectl explain` of every resource (it reads
// /openapi/v3 and finds each kind by x-kubernetes-group-version-kind), nested fields with their
// types and required marks, and `kubectl apply --validate=strict` (kubectl sees fieldValidation
// on the PATCH operations of the v3 document and validates on the server with Strict): a good
// manifest is applied, an unknown field is rejected with the reference's message; and
// `kubectl explain --output=plaintext-openapiv2`, which reads /openapi/v2 as gnostic's protobuf
// (Accept: application/com.github.proto-openapi.spec.v2@v1.0+protobuf). Under both
// profiles: the kubernetes profile's groups and the platform profile's (platform.io).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startApiServer, type StartedApiServer } from '../../helpers/apiserver.js';
import { kubectlSkipReason } from '../../helpers/kubectl.js';

const skip = kubectlSkipReason('openapi-kubectl');
let k8s: StartedApiServer;
let plat: StartedApiServer;
let cacheDir: string;

before(async () => {
  if (skip !== undefined) return;
  cacheDir = mkdtempSync(join(tmpdir(), 'oa-kubectl-'));
  [k8s, plat] = await Promise.all([
    startApiServer({ args: ['--platform-profile=kubernetes'] }),
    startApiServer({ platformDomain: 'platform.io' }),
  ]);
});
after(async () => {
  await Promise.all([k8s?.stop(), plat?.stop()]);
  if (cacheDir !== undefined) rmSync(cacheDir, { recursive: true, force: true });
});

function kubectl(
  api: StartedApiServer,
  args: readonly string[],
  input?: string,
): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(
    'kubectl',
    [
      `--kubeconfig=${api.adminPlatconfig}`,
      `--cache-dir=${join(cacheDir, String(api.port))}`,
      ...args,
    ],
    { encoding: 'utf8', input, timeout: 30_000 },
  );
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

const RESOURCES: ReadonlyArray<readonly [string, string, string]> = [
  ['csr', 'certificates', 'CertificateSigningRequest'],
  ['events', '', 'Event'],
  ['nodes', '', 'Node'],
  ['pods', '', 'Pod'],
  ['namespaces', '', 'Namespace'],
  ['secrets', '', 'Secret'],
  ['configmaps', '', 'ConfigMap'],
  ['leases', 'coordination', 'Lease'],
  ['roles', 'rbac.authorization', 'Role'],
  ['clusterroles', 'rbac.authorization', 'ClusterRole'],
  ['rolebindings', 'rbac.authorization', 'RoleBinding'],
  ['clusterrolebindings', 'rbac.authorization', 'ClusterRoleBinding'],
  ['tokenreviews', 'authentication', 'TokenReview'],
  ['subjectaccessreviews', 'authorization', 'SubjectAccessReview'],
  ['localsubjectaccessreviews', 'authorization', 'LocalSubjectAccessReview'],
];

for (const [profile, domain] of [
  ['kubernetes', 'k8s.io'],
  ['platform', 'platform.io'],
] as const) {
  test(`kubectl explain of every resource (${profile} profile)`, { skip }, () => {
    const api = profile === 'kubernetes' ? k8s : plat;
    for (const [resource, group, kind] of RESOURCES) {
      const r = kubectl(api, ['explain', resource]);
      assert.equal(r.status, 0, `explain ${resource}: ${r.stderr}`);
      if (group !== '')
        assert.match(
          r.stdout,
          new RegExp(
            `^GROUP:\\s+${group.replace(/\./g, '\\.')}\\.${domain.replace(/\./g, '\\.')}$`,
            'm',
          ),
          `explain ${resource}`,
        );
      assert.match(r.stdout, new RegExp(`^KIND:\\s+${kind}$`, 'm'), `explain ${resource}`);
      assert.match(r.stdout, /^VERSION:\s+v1$/m, `explain ${resource}`);
      assert.match(r.stdout, /^\s+metadata\t<ObjectMeta>( -required-)?$/m, `explain ${resource}`);
    }
  });
}

test('kubectl explain: nested fields, their types and required marks', { skip }, () => {
  const spec = kubectl(k8s, ['explain', 'csr.spec']);
  assert.equal(spec.status, 0, spec.stderr);
  assert.match(spec.stdout, /^\s+request\t<string> -required-$/m);
  assert.match(spec.stdout, /^\s+signerName\t<string> -required-$/m);
  assert.match(spec.stdout, /^\s+expirationSeconds\t<integer>$/m);
  assert.match(spec.stdout, /^\s+usages\t<\[\]string>$/m);
  const conditions = kubectl(k8s, ['explain', 'csr.status.conditions']);
  assert.match(conditions.stdout, /^\s+lastUpdateTime\t<string>$/m);
  const ports = kubectl(k8s, ['explain', 'pods.spec.containers.ports']);
  assert.match(ports.stdout, /^\s+containerPort\t<integer> -required-$/m);
  const renew = kubectl(k8s, ['explain', 'leases.spec']);
  assert.match(renew.stdout, /^\s+renewTime\t<string>$/m);
  const missing = kubectl(k8s, ['explain', 'csr.spec.nope']);
  assert.notEqual(missing.status, 0);
  assert.match(missing.stderr, /field "nope" does not exist/);
});

test(
  'kubectl explain --output=plaintext-openapiv2 decodes /openapi/v2 as protobuf: every resource, nested fields',
  { skip },
  () => {
    for (const [resource, group, kind] of RESOURCES) {
      const r = kubectl(k8s, ['explain', resource, '--output=plaintext-openapiv2']);
      assert.equal(r.status, 0, `explain ${resource}: ${r.stderr}`);
      assert.match(r.stdout, new RegExp(`^KIND:\\s+${kind}$`, 'm'), `explain ${resource}`);
      assert.match(
        r.stdout,
        new RegExp(
          `^VERSION:\\s+${group === '' ? '' : `${group.replace(/\./g, '\\.')}\\.k8s\\.io/`}v1$`,
          'm',
        ),
        `explain ${resource}`,
      );
    }
    const spec = kubectl(k8s, ['explain', 'csr.spec', '--output=plaintext-openapiv2', '-v=6']);
    assert.equal(spec.status, 0, spec.stderr);
    assert.match(spec.stderr, /GET https:\/\/127\.0\.0\.1:\d+\/openapi\/v2\?timeout=32s 200 OK/);
    assert.match(spec.stdout, /^\s+request\t<string> -required-$/m);
    assert.match(spec.stdout, /^\s+usages\t<\[\]string>$/m);
    const ports = kubectl(k8s, [
      'explain',
      'pods.spec.containers.ports',
      '--output=plaintext-openapiv2',
    ]);
    assert.match(ports.stdout, /^\s+containerPort\t<integer> -required-$/m);
    assert.match(ports.stdout, /^RESOURCE: ports <\[\]Object>$/m);
  },
);

const goodConfigMap =
  'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: good\n  namespace: default\ndata:\n  a: b\n';

test(
  'kubectl apply --validate=strict: a good manifest is applied, an unknown field rejected with the reference message',
  { skip },
  () => {
    const good = kubectl(k8s, ['apply', '--validate=strict', '-f', '-'], goodConfigMap);
    assert.equal(good.status, 0, good.stderr);
    assert.equal(good.stdout.trim(), 'configmap/good created');
    const bad = kubectl(
      k8s,
      ['apply', '--validate=strict', '-f', '-'],
      'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: bad\n  namespace: default\nbogus: 1\n',
    );
    assert.equal(bad.status, 1);
    assert.equal(
      bad.stderr.trim(),
      'Error from server (BadRequest): error when creating "STDIN": ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: unknown field "bogus"',
    );
    const badCsr = kubectl(
      k8s,
      ['apply', '--validate=strict', '-f', '-'],
      'apiVersion: certificates.k8s.io/v1\nkind: CertificateSigningRequest\nmetadata:\n  name: c\nspec:\n  request: AAAA\n  signerName: kubernetes.io/kube-apiserver-client\n  bogus: 1\n',
    );
    assert.equal(badCsr.status, 1);
    assert.match(
      badCsr.stderr,
      /CertificateSigningRequest in version "v1" cannot be handled as a CertificateSigningRequest: strict decoding error: unknown field "spec\.bogus"/,
    );
    // A second apply is a strategic merge patch kubectl computes from the v3 schema.
    const again = kubectl(
      k8s,
      ['apply', '--validate=strict', '-f', '-'],
      goodConfigMap.replace('a: b', 'a: c'),
    );
    assert.equal(again.status, 0, again.stderr);
    assert.equal(again.stdout.trim(), 'configmap/good configured');
    const got = kubectl(k8s, [
      'get',
      'configmap',
      'good',
      '-n',
      'default',
      '-o',
      'jsonpath={.data.a}',
    ]);
    assert.equal(got.stdout, 'c');
  },
);

test(
  'kubectl apply --validate=strict under the platform profile (platform.io groups)',
  { skip },
  () => {
    const bad = kubectl(
      plat,
      ['apply', '--validate=strict', '-f', '-'],
      'apiVersion: coordination.platform.io/v1\nkind: Lease\nmetadata:\n  name: l\n  namespace: default\nspec:\n  holderIdentity: x\n  bogus: 1\n',
    );
    assert.equal(bad.status, 1);
    assert.equal(
      bad.stderr.trim(),
      'Error from server (BadRequest): error when creating "STDIN": Lease in version "v1" cannot be handled as a Lease: strict decoding error: unknown field "spec.bogus"',
    );
    const good = kubectl(
      plat,
      ['apply', '--validate=strict', '-f', '-'],
      'apiVersion: coordination.platform.io/v1\nkind: Lease\nmetadata:\n  name: l\n  namespace: default\nspec:\n  holderIdentity: x\n',
    );
    assert.equal(good.status, 0, good.stderr);
    assert.equal(good.stdout.trim(), 'lease.coordination.platform.io/l created');
  },
);

test(
  'kubectl apply computes its strategic merge patch from the v3 merge keys (containers and env by name)',
  { skip },
  () => {
    const pod =
      'apiVersion: v1\nkind: Pod\nmetadata:\n  name: smp\n  namespace: default\nspec:\n  containers:\n  - name: c\n    image: busybox\n    env:\n    - name: A\n      value: "1"\n  - name: d\n    image: busybox\n';
    const first = kubectl(k8s, ['apply', '-f', '-'], pod);
    assert.equal(first.status, 0, first.stderr);
    const second = kubectl(
      k8s,
      ['apply', '-v=8', '-f', '-'],
      pod.replace('value: "1"', 'value: "2"'),
    );
    assert.equal(second.status, 0, second.stderr);
    // Without the patch strategy and merge key kubectl would send the whole list instead.
    assert.match(
      second.stderr,
      /\\"\$setElementOrder\/containers\\":\[\{\\"name\\":\\"c\\"\},\{\\"name\\":\\"d\\"\}\]/,
    );
    assert.match(second.stderr, /\\"\$setElementOrder\/env\\":\[\{\\"name\\":\\"A\\"\}\]/);
    const got = kubectl(k8s, [
      'get',
      'pod',
      'smp',
      '-n',
      'default',
      '-o',
      'jsonpath={.spec.containers[*].name} {.spec.containers[0].env[0].value}',
    ]);
    assert.equal(got.stdout, 'c d 2');
  },
);

/** kubectl's output with its wrapping and indentation folded to single spaces. */
function folded(s: string): string {
  return s.replace(/\s+/g, ' ').trim();
}

test(
  "kubectl explain prints our description of each kind, in each profile's names",
  { skip },
  () => {
    const k = folded(kubectl(k8s, ['explain', 'csr']).stdout);
    assert.ok(
      k.includes(
        'DESCRIPTION: A request for an x509 certificate from a signer (such as kubernetes.io/kube-apiserver-client-kubelet), approved or denied, then issued.',
      ),
      k,
    );
    const p = folded(kubectl(plat, ['explain', 'csr']).stdout);
    assert.ok(p.includes('(such as platform.io/plat-apiserver-client-platlet)'), p);
    for (const api of [k8s, plat]) {
      const pods = folded(kubectl(api, ['explain', 'pods']).stdout);
      assert.ok(pods.includes('DESCRIPTION: A group of containers run together on one node'), pods);
      const field = kubectl(api, ['explain', 'csr.spec.signerName']);
      assert.equal(field.status, 0, field.stderr);
      assert.match(field.stdout, /^FIELD:\s+signerName <string>$/m);
    }
  },
);

test(
  'kubectl apply --validate=strict rejects an unknown field inside a container as the reference does; explain shows the whole PodSpec',
  { skip },
  () => {
    const bad = kubectl(
      k8s,
      ['apply', '--validate=strict', '-f', '-'],
      'apiVersion: v1\nkind: Pod\nmetadata:\n  name: strict\n  namespace: default\nspec:\n  containers:\n  - name: c\n    image: busybox\n    bogus: 1\n',
    );
    assert.equal(bad.status, 1);
    assert.equal(
      bad.stderr.trim(),
      'Error from server (BadRequest): error when creating "STDIN": Pod in version "v1" cannot be handled as a Pod: strict decoding error: unknown field "spec.containers[0].bogus"',
    );
    const node = kubectl(
      plat,
      ['apply', '--validate=strict', '-f', '-'],
      'apiVersion: v1\nkind: Node\nmetadata:\n  name: strict\nspec:\n  taints:\n  - key: k\n    effect: NoSchedule\n    bogus: x\n',
    );
    assert.equal(node.status, 1);
    assert.equal(
      node.stderr.trim(),
      'Error from server (BadRequest): error when creating "STDIN": Node in version "v1" cannot be handled as a Node: strict decoding error: unknown field "spec.taints[0].bogus"',
    );
    for (const api of [k8s, plat]) {
      const spec = kubectl(api, ['explain', 'pods.spec']);
      assert.equal(spec.status, 0, spec.stderr);
      for (const f of [
        'affinity\t<Affinity>',
        'topologySpreadConstraints\t<[]TopologySpreadConstraint>',
        'dnsConfig\t<PodDNSConfig>',
        'overhead\t<map[string]Quantity>',
      ])
        assert.ok(spec.stdout.includes(f), `${f}\n${spec.stdout}`);
      const status = kubectl(api, ['explain', 'nodes.status.nodeInfo']);
      assert.match(status.stdout, /^\s+kubeletVersion\t<string> -required-$/m);
      const waiting = kubectl(api, ['explain', 'pods.status.containerStatuses.state.waiting']);
      assert.match(waiting.stdout, /^\s+reason\t<string>$/m);
    }
  },
);
