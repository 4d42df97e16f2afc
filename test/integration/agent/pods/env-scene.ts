// The container environment seen from inside a container, against a real plat-apiserver with the
// agent reading as its node, on the runtime the test names: a pod whose container prints its env
// and its arguments shows fieldRef values (the pod's UID, name, namespace, node, IPs, a label),
// resourceFieldRef values with a divisor, a configMapKeyRef, a secretKeyRef, envFrom with a
// prefix and $(VAR) expansion with `$$` escaping, as the reference's kubelet makes them; a pod
// whose ConfigMap is missing waits with CreateContainerConfigError and the reference's message
// and Failed event, then runs once the ConfigMap is created.
import type { TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { waitFor } from './agent-harness.js';
import { dockerRuntime, processRuntime } from './runtimes.js';
import { volumeScene, type VolumeScene } from './volume-scene.js';

const b64 = (s: string): string => Buffer.from(s).toString('base64');

/** The log of the pod's app container once it holds `marker`. */
async function podLog(s: VolumeScene, runtime: 'docker' | 'process', pod: string): Promise<string> {
  const rt = (runtime === 'docker' ? dockerRuntime : processRuntime).make(s.root);
  return waitFor(
    `the output of ${pod}`,
    async () => {
      const c = (await rt.listContainers({})).find((x) => x.podName === pod && x.kind === 'app');
      if (c === undefined) return undefined;
      const log = await rt.logs(c.id);
      return log.includes('END-OF-ENV') ? log : undefined;
    },
    60_000,
    200,
  );
}

function envPod(name: string, node: string, image: string): Record<string, unknown> {
  const field = (fieldPath: string) => ({ valueFrom: { fieldRef: { fieldPath } } });
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, labels: { app: 'env-test' } },
    spec: {
      nodeName: node,
      terminationGracePeriodSeconds: 1,
      containers: [
        {
          name: 'c',
          image,
          command: ['sh', '-c', 'echo "ARG1=$1"; echo "ARG2=$2"; env; echo END-OF-ENV; sleep 3600'],
          args: ['sh', '$(GREETING)', '$$(GREETING)'],
          resources: {
            limits: { memory: '64Mi', cpu: '500m' },
            requests: { memory: '32Mi', cpu: '250m' },
          },
          envFrom: [{ configMapRef: { name: 'env-cm' }, prefix: 'CM_' }],
          env: [
            { name: 'POD_NAME', ...field('metadata.name') },
            { name: 'POD_NAMESPACE', ...field('metadata.namespace') },
            { name: 'POD_UID', ...field('metadata.uid') },
            { name: 'NODE_NAME', ...field('spec.nodeName') },
            { name: 'POD_IP', ...field('status.podIP') },
            { name: 'HOST_IP', ...field('status.hostIP') },
            { name: 'APP_LABEL', ...field("metadata.labels['app']") },
            {
              name: 'MEMORY_LIMIT_MI',
              valueFrom: { resourceFieldRef: { resource: 'limits.memory', divisor: '1Mi' } },
            },
            {
              name: 'CPU_REQUEST_M',
              valueFrom: { resourceFieldRef: { resource: 'requests.cpu', divisor: '1m' } },
            },
            {
              name: 'CPU_LIMIT',
              valueFrom: { resourceFieldRef: { containerName: 'c', resource: 'limits.cpu' } },
            },
            {
              name: 'GREETING',
              valueFrom: { configMapKeyRef: { name: 'env-cm', key: 'greeting' } },
            },
            {
              name: 'PASSWORD',
              valueFrom: { secretKeyRef: { name: 'env-secret', key: 'password' } },
            },
            { name: 'CM_greeting', value: 'explicit-wins' },
            { name: 'EXPANDED', value: '$(GREETING)-$(POD_NAME)' },
            { name: 'ESCAPED', value: '$$(GREETING)' },
            { name: 'UNKNOWN', value: '$(NOT_DEFINED)' },
          ],
        },
      ],
    },
  };
}

/** name=value pairs of the printed environment. */
function parseEnv(log: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of log.split('\n')) {
    const eq = line.indexOf('=');
    if (eq > 0) out.set(line.slice(0, eq), line.slice(eq + 1));
  }
  return out;
}

async function podJson(s: VolumeScene, name: string): Promise<Record<string, unknown>> {
  const r = await s.api.request('GET', `/api/v1/namespaces/default/pods/${name}`);
  return r.json ?? {};
}

async function checkEnvPod(s: VolumeScene, runtime: 'docker' | 'process'): Promise<void> {
  const name = `${s.node}-env`;
  const status = await s.phase(name, 'Running', 90_000);
  const meta = (await podJson(s, name))['metadata'] as { uid: string };
  const env = parseEnv(await podLog(s, runtime, name));
  assert.equal(env.get('POD_NAME'), name);
  assert.equal(env.get('POD_NAMESPACE'), 'default');
  assert.equal(env.get('POD_UID'), meta.uid);
  assert.match(
    env.get('POD_UID') ?? '',
    /^[a-z0-9]{8}-[a-z0-9]{4}-[a-z0-9]{4}-[a-z0-9]{4}-[a-z0-9]{12}$/,
  );
  assert.equal(env.get('NODE_NAME'), s.node);
  assert.equal(env.get('POD_IP'), status['podIP']);
  assert.equal(env.get('HOST_IP'), '127.0.0.1');
  if (runtime === 'process') assert.equal(env.get('POD_IP'), '127.0.0.1');
  assert.equal(env.get('APP_LABEL'), 'env-test');
  assert.equal(env.get('MEMORY_LIMIT_MI'), '64');
  assert.equal(env.get('CPU_REQUEST_M'), '250');
  assert.equal(env.get('CPU_LIMIT'), '1'); // 500m in cores, rounded up
  assert.equal(env.get('GREETING'), 'hello');
  assert.equal(env.get('PASSWORD'), 'hunter2');
  assert.equal(env.get('CM_greeting'), 'explicit-wins');
  assert.equal(env.get('CM_color'), 'blue');
  assert.equal(env.get('EXPANDED'), `hello-${name}`);
  assert.equal(env.get('ESCAPED'), '$(GREETING)');
  assert.equal(env.get('UNKNOWN'), '$(NOT_DEFINED)');
  assert.equal(env.get('ARG1'), 'hello');
  assert.equal(env.get('ARG2'), '$(GREETING)');
}

async function checkMissingConfigMap(s: VolumeScene): Promise<void> {
  const name = `${s.node}-late`;
  const waiting = await waitFor(
    `${name} waiting with CreateContainerConfigError`,
    async () => {
      const st = (await podJson(s, name))['status'] as
        | { containerStatuses?: { state?: { waiting?: { reason?: string; message?: string } } }[] }
        | undefined;
      const w = st?.containerStatuses?.[0]?.state?.waiting;
      return w?.reason === 'CreateContainerConfigError' ? w : undefined;
    },
    60_000,
    200,
  );
  // the watch-based manager's message (configMapAndSecretChangeDetectionStrategy: Watch)
  assert.equal(waiting.message, 'configmap "late-cm" not found');
  await waitFor(
    'the Failed event',
    async () => (await s.events(name, 'Failed')).includes('Error: configmap "late-cm" not found'),
    30_000,
    200,
  );
  await s.api.request('POST', '/api/v1/namespaces/default/configmaps', {
    body: { metadata: { name: 'late-cm' }, data: { k: 'now-here' } },
  });
  await s.phase(name, 'Running', 60_000);
}

export async function envScenario(
  t: Pick<TestContext, 'after'>,
  runtime: 'docker' | 'process',
): Promise<void> {
  const s = await volumeScene(t, runtime);
  await s.api.request('POST', '/api/v1/namespaces/default/configmaps', {
    body: { metadata: { name: 'env-cm' }, data: { greeting: 'hello', color: 'blue' } },
  });
  await s.api.request('POST', '/api/v1/namespaces/default/secrets', {
    body: { metadata: { name: 'env-secret' }, data: { password: b64('hunter2') } },
  });
  const image = runtime === 'docker' ? 'busybox:local' : 'none';
  await s.createPod(envPod(`${s.node}-env`, s.node, image));
  await s.createPod({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: `${s.node}-late` },
    spec: {
      nodeName: s.node,
      terminationGracePeriodSeconds: 1,
      containers: [
        {
          name: 'c',
          image,
          command: ['sleep', '3600'],
          env: [{ name: 'K', valueFrom: { configMapKeyRef: { name: 'late-cm', key: 'k' } } }],
        },
      ],
    },
  });
  s.start();
  await checkEnvPod(s, runtime);
  await checkMissingConfigMap(s);
}
