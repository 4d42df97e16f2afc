// The ServiceAccount admission plugin against the reference's (plugin/pkg/admission/serviceaccount):
// the `default` account, automountServiceAccountToken from the pod then the account, the
// projected volume exactly as the reference injects it and its read-only mount in every
// container and init container, imagePullSecrets copied, mirror pods refused, and the account's
// mountable secrets enforced when it is annotated so.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ServiceAccountAdmission } from '../../../../src/apiserver/admission/service-account.js';
import type { AdmissionRequest } from '../../../../src/apiserver/interfaces.js';
import { namesFor } from '../../../../src/common/names.js';
import { ApiError } from '../../../../src/common/util/errors.js';
import { ManualClock } from '../../../helpers/manual-clock.js';

type Obj = Record<string, unknown>;

function plugin(accounts: Record<string, Obj>, profile: 'kubernetes' | 'platform' = 'kubernetes') {
  return new ServiceAccountAdmission({
    names: namesFor(profile),
    accounts: { getServiceAccount: (ns, n) => Promise.resolve(accounts[`${ns}/${n}`]) },
    clock: new ManualClock(),
    defaultAttempts: 1,
  });
}

function create(pod: Obj): AdmissionRequest {
  return {
    operation: 'CREATE',
    resource: 'pods',
    apiGroup: '',
    subresource: '',
    namespace: 'team',
    name: 'web',
    object: pod,
    oldObject: undefined,
    user: { username: 'alice', groups: ['system:authenticated'] },
    dryRun: false,
  };
}

const pod = (): Obj => ({
  metadata: { name: 'web', namespace: 'team' },
  spec: {
    initContainers: [{ name: 'init', image: 'busybox' }],
    containers: [
      { name: 'app', image: 'busybox', volumeMounts: [{ name: 'data', mountPath: '/data' }] },
    ],
    volumes: [{ name: 'data', emptyDir: {} }],
  },
});

test("the reference's injected volume: kube-api-access-<5>, token 3607 s, kube-root-ca.crt ca.crt, the namespace, mode 420, mounted read-only everywhere", async () => {
  const p = pod();
  await plugin({ 'team/default': { metadata: { name: 'default' } } }).admit(create(p));
  const spec = p['spec'] as Obj;
  assert.equal(spec['serviceAccountName'], 'default');
  const volumes = spec['volumes'] as Obj[];
  const injected = volumes[1] ?? {};
  const name = String(injected['name']);
  assert.match(name, /^kube-api-access-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
  assert.deepEqual(injected, {
    name,
    projected: {
      sources: [
        { serviceAccountToken: { expirationSeconds: 3607, path: 'token' } },
        { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
        {
          downwardAPI: {
            items: [
              {
                path: 'namespace',
                fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' },
              },
            ],
          },
        },
      ],
      defaultMode: 420,
    },
  });
  const mount = {
    name,
    readOnly: true,
    mountPath: '/var/run/secrets/kubernetes.io/serviceaccount',
  };
  assert.deepEqual((spec['initContainers'] as Obj[])[0]?.['volumeMounts'], [mount]);
  assert.deepEqual((spec['containers'] as Obj[])[0]?.['volumeMounts'], [
    { name: 'data', mountPath: '/data' },
    mount,
  ]);
});

test("under the platform profile the volume and ConfigMap take the profile's names; the mount path stays the one in-cluster clients read", async () => {
  const p = pod();
  await plugin({ 'team/default': {} }, 'platform').admit(create(p));
  const v = ((p['spec'] as Obj)['volumes'] as Obj[])[1] ?? {};
  assert.match(String(v['name']), /^plat-api-access-/);
  assert.deepEqual(((v['projected'] as Obj)['sources'] as Obj[])[1], {
    configMap: { name: 'plat-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] },
  });
});

test("automountServiceAccountToken: the pod's choice wins over the account's; a container with its own mount there keeps it", async () => {
  const off = pod();
  (off['spec'] as Obj)['automountServiceAccountToken'] = false;
  await plugin({ 'team/default': {} }).admit(create(off));
  assert.equal(((off['spec'] as Obj)['volumes'] as Obj[]).length, 1);
  const accountOff = pod();
  await plugin({ 'team/default': { automountServiceAccountToken: false } }).admit(
    create(accountOff),
  );
  assert.equal(((accountOff['spec'] as Obj)['volumes'] as Obj[]).length, 1);
  const podOn = pod();
  (podOn['spec'] as Obj)['automountServiceAccountToken'] = true;
  await plugin({ 'team/default': { automountServiceAccountToken: false } }).admit(create(podOn));
  assert.equal(((podOn['spec'] as Obj)['volumes'] as Obj[]).length, 2);
  const own = pod();
  for (const c of [
    ...((own['spec'] as Obj)['containers'] as Obj[]),
    ...((own['spec'] as Obj)['initContainers'] as Obj[]),
  ])
    c['volumeMounts'] = [
      { name: 'data', mountPath: '/var/run/secrets/kubernetes.io/serviceaccount' },
    ];
  await plugin({ 'team/default': {} }).admit(create(own));
  assert.equal(
    ((own['spec'] as Obj)['volumes'] as Obj[]).length,
    1,
    'no container needs the token volume',
  );
});

test("a missing account is refused in the reference's words; imagePullSecrets come from the account", async () => {
  const p = pod();
  (p['spec'] as Obj)['serviceAccountName'] = 'builder';
  await assert.rejects(plugin({}).admit(create(p)), (err: unknown) => {
    assert.ok(err instanceof ApiError);
    assert.equal(err.status, 403);
    assert.equal(
      err.message,
      'pods "web" is forbidden: error looking up service account team/builder: serviceaccount "builder" not found',
    );
    return true;
  });
  const q = pod();
  await plugin({ 'team/default': { imagePullSecrets: [{ name: 'regcred' }] } }).admit(create(q));
  assert.deepEqual((q['spec'] as Obj)['imagePullSecrets'], [{ name: 'regcred' }]);
});

test('mirror pods may not name a service account, secrets or token projections; enforce-mountable-secrets limits secrets', async () => {
  const mirror = (spec: Obj): Obj => ({
    metadata: { name: 'm', annotations: { 'kubernetes.io/config.mirror': 'x' } },
    spec,
  });
  const p = plugin({ 'team/default': {} });
  await assert.rejects(
    p.admit(create(mirror({ serviceAccountName: 'x', containers: [] }))),
    /pods "web" is forbidden: a mirror pod may not reference service accounts/,
  );
  await assert.rejects(
    p.admit(
      create(mirror({ containers: [], volumes: [{ name: 's', secret: { secretName: 'k' } }] })),
    ),
    /a mirror pod may not reference secrets/,
  );
  const ok = mirror({ containers: [{ name: 'a', image: 'b' }] });
  await p.admit(create(ok));
  assert.equal((ok['spec'] as Obj)['volumes'], undefined);
  const enforced = plugin({
    'team/default': {
      metadata: {
        name: 'default',
        annotations: { 'kubernetes.io/enforce-mountable-secrets': 'true' },
      },
      secrets: [{ name: 'allowed' }],
    },
  });
  const q = pod();
  ((q['spec'] as Obj)['volumes'] as Obj[]).push({ name: 's', secret: { secretName: 'other' } });
  await assert.rejects(
    enforced.admit(create(q)),
    /volume with secret.secretName="other" is not allowed because service account default does not reference that secret/,
  );
});
