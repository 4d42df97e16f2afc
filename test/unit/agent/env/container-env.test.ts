// A container's environment as the reference's makeEnvironmentVariables makes it: envFrom (prefix,
// optional, ConfigMap data without binaryData), env in order over it (explicit wins, values
// expanded over earlier variables and the service variables), key refs with the reference's
// messages, the service variables last; and the resolver: command and args expanded over the
// result, the wait for the Services' first list.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { makeEnvironment, type EnvInputs } from '../../../../src/agent/env/container-env.js';
import { ContainerEnvResolver } from '../../../../src/agent/env/resolver.js';
import {
  ObjectNotFoundError,
  toPodObject,
  type ObjectKind,
  type PodObjects,
  type RawObject,
} from '../../../../src/agent/objects/types.js';
import type { Container, Pod } from '../../../../src/agent/pod/types.js';

/** Objects as the watch-based manager answers (its singular not-found message). */
function objects(map: Record<string, RawObject>, gets: string[] = []): PodObjects {
  return {
    get(kind: ObjectKind, ns: string, name: string) {
      gets.push(`${kind}/${name}`);
      const raw = map[`${kind}/${name}`];
      if (raw === undefined)
        return Promise.reject(
          new ObjectNotFoundError(kind, name, `${kind.toLowerCase()} "${name}" not found`),
        );
      return Promise.resolve(toPodObject(kind, raw, ns, name));
    },
    registerPod() {},
    unregisterPod() {},
    stop() {},
  };
}

const b64 = (s: string): string => Buffer.from(s).toString('base64');
const store: Record<string, RawObject> = {
  'ConfigMap/cm': { data: { A: 'from-cm', B: 'b' }, binaryData: { BIN: b64('x') } },
  'ConfigMap/cm2': { data: { A: 'from-cm2' } },
  'Secret/s': { data: { PASSWORD: b64('hunter2'), 'tls.key': b64('k') } },
};

function podWith(c: Container, ns = 'ns'): Pod {
  return {
    metadata: { name: 'p', namespace: ns, uid: 'u-1' },
    spec: { nodeName: 'n1', containers: [c] },
  };
}

const inputs = (over: Partial<EnvInputs> = {}): EnvInputs => ({
  objects: objects(store),
  serviceEnv: new Map(),
  addresses: { podIPs: ['10.1.0.5'], hostIPs: ['192.0.2.7'] },
  allocatable: { cpu: 2, memory: 2 ** 30 },
  ...over,
});

async function envOf(c: Container, over: Partial<EnvInputs> = {}): Promise<[string, string][]> {
  return [...(await makeEnvironment(podWith(c), c, inputs(over)))];
}

test('envFrom: data with the prefix, later sources win, binaryData left out; env wins over envFrom', async () => {
  const c: Container = {
    name: 'c',
    envFrom: [
      { configMapRef: { name: 'cm' } },
      { configMapRef: { name: 'cm2' } },
      { secretRef: { name: 's' }, prefix: 'S_' },
    ],
    env: [
      { name: 'B', value: 'explicit' },
      { name: 'C', value: '$(A)-$(S_PASSWORD)-$$(A)-$(LATER)' },
      { name: 'LATER', value: 'late' },
    ],
  };
  assert.deepEqual(await envOf(c), [
    ['A', 'from-cm2'],
    ['B', 'explicit'],
    ['S_PASSWORD', 'hunter2'],
    ['S_tls.key', 'k'],
    ['C', 'from-cm2-hunter2-$(A)-$(LATER)'],
    ['LATER', 'late'],
  ]);
});

test('valueFrom: each source; an optional one that is absent leaves the variable out', async () => {
  const c: Container = {
    name: 'c',
    resources: { limits: { memory: '128Mi' } },
    env: [
      { name: 'POD_UID', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.uid' } } },
      { name: 'POD_IP', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } },
      {
        name: 'MEM_MI',
        valueFrom: { resourceFieldRef: { resource: 'limits.memory', divisor: '1Mi' } },
      },
      { name: 'CPU', valueFrom: { resourceFieldRef: { resource: 'limits.cpu', divisor: '1m' } } },
      { name: 'CM_B', valueFrom: { configMapKeyRef: { name: 'cm', key: 'B' } } },
      { name: 'PW', valueFrom: { secretKeyRef: { name: 's', key: 'PASSWORD' } } },
      { name: 'NO_CM', valueFrom: { configMapKeyRef: { name: 'gone', key: 'k', optional: true } } },
      { name: 'NO_KEY', valueFrom: { secretKeyRef: { name: 's', key: 'nope', optional: true } } },
      { name: 'EMPTY' },
      { name: 'UID_AGAIN', value: 'uid=$(POD_UID)' },
    ],
    envFrom: [{ secretRef: { name: 'gone', optional: true } }],
  };
  assert.deepEqual(await envOf(c), [
    ['POD_UID', 'u-1'],
    ['POD_IP', '10.1.0.5'],
    ['MEM_MI', '128'],
    ['CPU', '2000'],
    ['CM_B', 'b'],
    ['PW', 'hunter2'],
    ['EMPTY', ''],
    ['UID_AGAIN', 'uid=u-1'],
  ]);
});

test("a missing object or key fails with the reference's message", async () => {
  const fails = async (c: Container, message: string, over: Partial<EnvInputs> = {}) =>
    assert.rejects(envOf(c, over), { message });
  await fails({ name: 'c', envFrom: [{ configMapRef: { name: 'x' } }] }, 'configmap "x" not found');
  await fails(
    { name: 'c', env: [{ name: 'A', valueFrom: { secretKeyRef: { name: 'x', key: 'k' } } }] },
    'secret "x" not found',
  );
  await fails(
    { name: 'c', env: [{ name: 'A', valueFrom: { configMapKeyRef: { name: 'cm', key: 'BIN' } } }] },
    "couldn't find key BIN in ConfigMap ns/cm",
  );
  await fails(
    { name: 'c', env: [{ name: 'A', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } }] },
    "couldn't find key k in Secret ns/s",
  );
  await fails(
    { name: 'c', envFrom: [{ secretRef: { name: 's' } }] },
    "couldn't get secret ns/s, no kubeClient defined",
    { objects: undefined },
  );
  await fails(
    {
      name: 'c',
      env: [
        { name: 'A', valueFrom: { fieldRef: { apiVersion: 'v2', fieldPath: 'metadata.name' } } },
      ],
    },
    'unsupported pod version: v2',
  );
});

test('each object is read once per environment', async () => {
  const gets: string[] = [];
  const c: Container = {
    name: 'c',
    envFrom: [{ configMapRef: { name: 'cm' } }],
    env: [
      { name: 'X', valueFrom: { configMapKeyRef: { name: 'cm', key: 'A' } } },
      { name: 'Y', valueFrom: { configMapKeyRef: { name: 'cm', key: 'B' } } },
    ],
  };
  await envOf(c, { objects: objects(store, gets) });
  assert.deepEqual(gets, ['ConfigMap/cm']);
});

test('service variables come last, an explicit variable of the same name wins and they expand', async () => {
  const serviceEnv = new Map([
    ['KUBERNETES_SERVICE_HOST', '10.0.0.1'],
    ['KUBERNETES_SERVICE_PORT', '443'],
  ]);
  const c: Container = {
    name: 'c',
    env: [
      { name: 'KUBERNETES_SERVICE_PORT', value: '8443' },
      { name: 'URL', value: 'https://$(KUBERNETES_SERVICE_HOST):$(KUBERNETES_SERVICE_PORT)' },
    ],
  };
  assert.deepEqual(await envOf(c, { serviceEnv }), [
    ['KUBERNETES_SERVICE_PORT', '8443'],
    ['URL', 'https://10.0.0.1:8443'],
    ['KUBERNETES_SERVICE_HOST', '10.0.0.1'],
  ]);
});

test('the resolver: service variables per enableServiceLinks, command and args over the result', async () => {
  const svc = (namespace: string, name: string, ip: string) => ({
    namespace,
    name,
    clusterIP: ip,
    ports: [{ name: '', port: 80, protocol: 'TCP' }],
  });
  let synced = true;
  const resolver = new ContainerEnvResolver({
    objects: objects(store),
    services: {
      waitForSync: () => Promise.resolve(synced),
      list: () => [svc('default', 'kubernetes', '10.0.0.1'), svc('ns', 'fooservice', '10.0.0.9')],
    },
    hostIPs: ['192.0.2.7'],
    allocatable: () => ({}),
    isStatic: (p) => p.metadata.name === 'static',
  });
  const c: Container = {
    name: 'c',
    command: ['sh', '-c', 'echo $(FOOSERVICE_SERVICE_HOST) $$(X) $(MISSING)'],
    args: ['$(NAME)'],
    env: [{ name: 'NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }],
  };
  const p = podWith(c);
  const out = await resolver.resolve(p, c, '10.1.0.5');
  assert.deepEqual(out.command, ['sh', '-c', 'echo 10.0.0.9 $(X) $(MISSING)']);
  assert.deepEqual(out.args, ['p']);
  const names = out.env.map((e) => e.name);
  assert.ok(names.includes('FOOSERVICE_SERVICE_HOST') && names.includes('KUBERNETES_SERVICE_HOST'));
  const noLinks = await resolver.resolve(
    { ...p, spec: { ...p.spec, enableServiceLinks: false } },
    c,
    '',
  );
  assert.deepEqual(
    noLinks.env.map((e) => e.name).filter((n) => n.endsWith('_SERVICE_HOST')),
    ['KUBERNETES_SERVICE_HOST'],
  );
  synced = false;
  await assert.rejects(resolver.resolve(p, c, ''), {
    message: 'services have not yet been read at least once, cannot construct envvars',
  });
  // a static pod does not wait for the Services
  const st = { ...p, metadata: { ...p.metadata, name: 'static' } };
  assert.equal((await resolver.resolve(st, c, '')).args?.[0], 'static');
});
