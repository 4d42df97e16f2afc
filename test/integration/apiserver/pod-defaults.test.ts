// Pod defaulting against the reference: each pod of test/fixtures/pod-defaults/ (*.pod.yaml) is
// created on the built plat-apiserver with its default admission plugins, and what it stores must
// equal what the reference kube-apiserver 1.32.13 answered for the same manifest with
// `kubectl create --dry-run=server -o json` (*.reference.json, see the README there): the spec,
// status.phase and status.qosClass, and metadata name, namespace, labels and annotations (the
// AppArmor annotations the reference keeps in step with the fields). Four of the pods set
// automountServiceAccountToken: false; the others get the ServiceAccount plugin's projected volume. Under the platform profile (platform.io) the defaults are the same and the
// profile's names stand for the reference's. A PUT of the undefaulted manifest (with the service account the plugin chose) is defaulted
// again.
//
// Normalised before comparing (they legitimately differ):
// - metadata other than name, namespace, labels and annotations (uid, creationTimestamp,
//   resourceVersion, managedFields: each server's own);
// - the random five-character suffix of the token volume's name (kube-api-access-xxxxx), on both
//   sides;
// - the reference's fourth projected source, a configMap openshift-service-ca.crt (service-ca.crt):
//   the openshift fork of the reference adds it; upstream Kubernetes 1.32 does not.
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { parse as parseYaml } from 'yaml';
import { namesFor } from '../../../src/common/names.js';
import { repoRoot, startApiServer, type StartedApiServer } from '../../helpers/apiserver.js';
import { waitFor } from '../../helpers/server-https-request.js';

type Obj = Record<string, unknown>;
const DIR = join(repoRoot(), 'test', 'fixtures', 'pod-defaults');
const OPENSHIFT_SOURCE = 'openshift-service-ca.crt';

interface Case {
  readonly name: string;
  readonly input: Obj;
  readonly reference: Obj;
}

function isObj(v: unknown): v is Obj {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

const cases: Case[] = readdirSync(DIR)
  .filter((f) => f.endsWith('.pod.yaml'))
  .sort()
  .map((f) => {
    const name = f.slice(0, -'.pod.yaml'.length);
    const input: unknown = parseYaml(readFileSync(join(DIR, f), 'utf8'));
    const reference: unknown = JSON.parse(
      readFileSync(join(DIR, `${name}.reference.json`), 'utf8'),
    );
    assert.ok(isObj(input) && isObj(reference), `${f}: an object and its answer`);
    return { name, input, reference };
  });

/** The reference's answer without the openshift fork's extra projected source. */
function withoutOpenshiftSource(reference: Obj): Obj {
  const copy = structuredClone(reference);
  const volumes = isObj(copy['spec']) ? copy['spec']['volumes'] : undefined;
  for (const v of Array.isArray(volumes) ? volumes : []) {
    const projected = isObj(v) && isObj(v['projected']) ? v['projected'] : undefined;
    const sources = projected?.['sources'];
    if (projected === undefined || !Array.isArray(sources)) continue;
    projected['sources'] = sources.filter(
      (s) => !(isObj(s) && isObj(s['configMap']) && s['configMap']['name'] === OPENSHIFT_SOURCE),
    );
  }
  return copy;
}

/** The compared parts of a pod, with the token volume's random suffix replaced. */
function compared(pod: Obj, volumePrefix: string): unknown {
  const meta = isObj(pod['metadata']) ? pod['metadata'] : {};
  const status = isObj(pod['status']) ? pod['status'] : {};
  const kept = {
    metadata: Object.fromEntries(
      ['name', 'namespace', 'labels', 'annotations']
        .filter((k) => meta[k] !== undefined)
        .map((k) => [k, meta[k]]),
    ),
    spec: pod['spec'],
    status: { phase: status['phase'], qosClass: status['qosClass'] },
  };
  const suffix = new RegExp(`"${volumePrefix}[a-z0-9]{5}"`, 'g');
  return JSON.parse(JSON.stringify(kept).replace(suffix, `"${volumePrefix}xxxxx"`));
}

const resourceVersionOf = (pod: Obj): unknown =>
  (isObj(pod['metadata']) ? pod['metadata'] : {})['resourceVersion'];

/**
 * The reference's answer in a profile's names (its token volume, root CA, taint keys and AppArmor
 * annotations).
 */
function inProfileNames(reference: Obj, profile: 'kubernetes' | 'platform'): Obj {
  const k8s = namesFor('kubernetes');
  const names = namesFor(profile, 'platform.io');
  const text = JSON.stringify(reference)
    .replaceAll(
      k8s.serviceAccounts.apiAccessVolumePrefix,
      names.serviceAccounts.apiAccessVolumePrefix,
    )
    .replaceAll(
      `"${k8s.serviceAccounts.rootCaConfigMap}"`,
      `"${names.serviceAccounts.rootCaConfigMap}"`,
    )
    .replaceAll(k8s.annotations.appArmorContainerPrefix, names.annotations.appArmorContainerPrefix)
    .replaceAll(`"${k8s.taints.notReady}"`, `"${names.taints.notReady}"`)
    .replaceAll(`"${k8s.taints.unreachable}"`, `"${names.taints.unreachable}"`);
  const parsed: unknown = JSON.parse(text);
  assert.ok(isObj(parsed));
  return parsed;
}

const servers: Partial<Record<'kubernetes' | 'platform', StartedApiServer>> = {};

before(async () => {
  const [k8s, plat] = await Promise.all([
    startApiServer({ args: ['--platform-profile=kubernetes'] }),
    startApiServer({ platformDomain: 'platform.io' }),
  ]);
  servers.kubernetes = k8s;
  servers.platform = plat;
  for (const api of [k8s, plat])
    await waitFor(
      async () =>
        (await api.request('GET', '/api/v1/namespaces/default/serviceaccounts/default')).status ===
        200,
      'the default ServiceAccount',
    );
});
after(async () => {
  await Promise.all(Object.values(servers).map((s) => s.stop()));
});

for (const profile of ['kubernetes', 'platform'] as const) {
  test(`${profile} profile: every corpus pod is created with the reference's defaults (${cases.length} pods)`, async () => {
    const api = servers[profile];
    assert.ok(api !== undefined);
    const prefix = namesFor(profile, 'platform.io').serviceAccounts.apiAccessVolumePrefix;
    for (const c of cases) {
      const body = inProfileNames(c.input, profile);
      if (profile === 'platform')
        body['metadata'] = { ...(body['metadata'] as Obj), name: `${c.name}-p` };
      const r = await api.request('POST', '/api/v1/namespaces/default/pods', { body });
      assert.equal(r.status, 201, `${c.name}: ${r.text}`);
      const expected = inProfileNames(withoutOpenshiftSource(c.reference), profile);
      if (profile === 'platform') (expected['metadata'] as Obj)['name'] = `${c.name}-p`;
      assert.deepEqual(compared(r.json ?? {}, prefix), compared(expected, prefix), c.name);
    }
  });
}

/**
 * PUTs what `build` makes of the pod's current state at `path` (the pod or a subresource); again
 * on a 409, as the scheduler may have written the pod's status in between (a few attempts).
 */
async function putAgain(
  api: StartedApiServer,
  pod: string,
  build: (current: Obj) => Obj,
  subresource = '',
) {
  const path = `/api/v1/namespaces/default/pods/${pod}`;
  for (let attempt = 1; ; attempt++) {
    const current = (await api.request('GET', path)).json ?? {};
    const r = await api.request('PUT', `${path}${subresource}`, { body: build(current) });
    if (r.status !== 409 || attempt === 5) return r;
  }
}

test('kubernetes profile: a PUT of the undefaulted manifest is defaulted as a create is', async () => {
  const api = servers.kubernetes;
  assert.ok(api !== undefined);
  const noToken = cases.filter(
    (c) => isObj(c.input['spec']) && c.input['spec']['automountServiceAccountToken'] === false,
  );
  assert.equal(noToken.length, 4);
  for (const c of noToken) {
    const body = structuredClone(c.input);
    body['metadata'] = { ...(body['metadata'] as Obj), name: `${c.name}-u` };
    const created = await api.request('POST', '/api/v1/namespaces/default/pods', { body });
    assert.equal(created.status, 201, `${c.name}: ${created.text}`);
    // What the ServiceAccount plugin set on create (it runs on create only) is sent back.
    body['spec'] = { ...(body['spec'] as Obj), serviceAccountName: 'default' };
    const updated = await putAgain(api, `${c.name}-u`, (current) => ({
      ...body,
      metadata: { ...(body['metadata'] as Obj), resourceVersion: resourceVersionOf(current) },
    }));
    assert.equal(updated.status, 200, `${c.name}: ${updated.text}`);
    assert.deepEqual((updated.json ?? {})['spec'], (created.json ?? {})['spec'], c.name);
  }
});

test("kubernetes profile: ephemeral containers added through pods/ephemeralcontainers get the reference's defaults", async () => {
  const api = servers.kubernetes;
  assert.ok(api !== undefined);
  const fixture: unknown = JSON.parse(readFileSync(join(DIR, 'ephemeral-containers.json'), 'utf8'));
  assert.ok(isObj(fixture));
  const created = await api.request('POST', '/api/v1/namespaces/default/pods', {
    body: {
      metadata: { name: 'debug-target' },
      spec: {
        automountServiceAccountToken: false,
        containers: [{ name: 'main', image: 'busybox:1.36' }],
      },
    },
  });
  assert.equal(created.status, 201, created.text);
  const r = await putAgain(
    api,
    'debug-target',
    (pod) => ({ ...pod, spec: { ...(pod['spec'] as Obj), ephemeralContainers: fixture['input'] } }),
    '/ephemeralcontainers',
  );
  assert.equal(r.status, 200, r.text);
  assert.deepEqual(
    (r.json?.['spec'] as Obj | undefined)?.['ephemeralContainers'],
    fixture['reference'],
  );
});
