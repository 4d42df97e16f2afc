// A pod as a Kubernetes user writes it, against the built plat-apiserver under the kubernetes
// profile with its default admission plugins and controllers, and an in-process agent on Docker
// reading as its node: the pod names no node and does not opt out of the token, so the
// ServiceAccount plugin gives it the reference's kube-api-access-* volume and the scheduler binds
// it to the agent's Ready node; from inside its container the service account files are there,
// the namespace file names the pod's namespace, the token's claims name the pod and its account,
// and plat-apiserver's TokenReview accepts the token as system:serviceaccount:<ns>:default.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { runAgent } from '../../../src/agent/start/agent.js';
import { silentLogger } from '../../../src/common/log/types.js';
import { isRecord, listOf } from '../../../src/common/util/json-shape.js';
import { systemMounter } from '../../../src/agent/volume/mounts.js';
import {
  startApiServer,
  writeTokenPlatconfig,
  type StartedApiServer,
} from '../../helpers/apiserver.js';
import { tempDir, testConfig, testFlags, waitFor } from '../agent/pods/agent-harness.js';
import {
  DOCKER_ENDPOINT,
  dockerRuntime,
  dockerSkipReason,
  removeDockerPodsNamed,
} from '../agent/pods/runtimes.js';

const skip = await dockerSkipReason();
const SA_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';

type Obj = Record<string, unknown>;
const rec = (v: unknown): Obj => (isRecord(v) ? v : {});
const recs = (v: unknown): Obj[] => listOf(v).filter(isRecord);

/** Runs `sh -c script` in the pod's running container (the agent on `root`); its output. */
async function inPod(root: string, pod: string, script: string): Promise<string> {
  const rt = dockerRuntime.make(root);
  const c = (await rt.listContainers({})).find(
    (x) => x.podName === pod && x.kind === 'app' && x.state === 'running',
  );
  if (c === undefined) throw new Error(`no running container of ${pod}`);
  const r = await rt.exec(c.id, ['sh', '-c', script], 20_000);
  return r.output.trim();
}

async function get(api: StartedApiServer, path: string): Promise<Obj | undefined> {
  const r = await api.request('GET', path);
  return r.status === 200 ? r.json : undefined;
}

test(
  'kubernetes profile, default admission, agent on Docker: a pod without nodeName or automount opt-out is scheduled to the agent node, runs, and finds its service account token, ca.crt and namespace; TokenReview accepts the token as system:serviceaccount:<ns>:default',
  { skip, timeout: 180_000 },
  async (t) => {
    const dir = await tempDir('na-sa-pod-');
    const node = `sa-${randomBytes(3).toString('hex')}`;
    const ns = `${node}-ns`;
    const nodeToken = randomBytes(16).toString('hex');
    const tokens = join(dir.path, 'tokens.csv');
    await writeFile(tokens, `${nodeToken},system:node:${node},uid-${node},"system:nodes"\n`);
    const api = await startApiServer({
      args: ['--platform-profile=kubernetes', `--token-auth-file=${tokens}`],
    });
    const root = join(dir.path, 'root');
    const ac = new AbortController();
    const started: { agent?: Promise<number> } = {};
    t.after(async () => {
      ac.abort();
      await started.agent?.catch(() => 1);
      await removeDockerPodsNamed(`${node}-`);
      const m = systemMounter();
      for (const p of await m.mountsUnder(dir.path)) await m.unmount(p).catch(() => undefined);
      await api.stop();
      await dir.cleanup();
    });

    const created = await api.request('POST', '/api/v1/namespaces', {
      body: { metadata: { name: ns } },
    });
    assert.equal(created.status, 201, created.text);
    // the serviceaccount and root-ca-cert-publisher controllers fill the new namespace
    await waitFor('the default ServiceAccount', () =>
      get(api, `/api/v1/namespaces/${ns}/serviceaccounts/default`),
    );
    const rootCa = await waitFor('the kube-root-ca.crt ConfigMap', () =>
      get(api, `/api/v1/namespaces/${ns}/configmaps/kube-root-ca.crt`),
    );
    const caPem = String(rec(rootCa['data'])['ca.crt']);
    assert.match(caPem, /^-----BEGIN CERTIFICATE-----/);

    started.agent = runAgent({
      config: testConfig(root, {
        containerRuntimeEndpoint: DOCKER_ENDPOINT,
        platformProfile: 'kubernetes',
        syncFrequency: '2s',
      }),
      flags: testFlags(root, {
        hostnameOverride: node,
        platconfig: await writeTokenPlatconfig(join(dir.path, 'node.platconfig'), api, nodeToken),
        nodeIP: '127.0.0.1',
      }),
      logger: silentLogger(),
      signal: ac.signal,
    });

    const name = `${node}-app`;
    const pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name },
      spec: {
        terminationGracePeriodSeconds: 1,
        containers: [{ name: 'c', image: 'busybox:local', command: ['sleep', '3600'] }],
      },
    };
    const r = await api.request('POST', `/api/v1/namespaces/${ns}/pods`, { body: pod });
    assert.equal(r.status, 201, r.text);
    // the ServiceAccount plugin: the default account and the reference's projected volume
    const spec = rec(r.json?.['spec']);
    assert.equal(spec['serviceAccountName'], 'default');
    const volumes = recs(spec['volumes']);
    assert.equal(volumes.length, 1);
    assert.match(String(volumes[0]?.['name']), /^kube-api-access-[a-z0-9]{5}$/);
    assert.deepEqual(volumes[0]?.['projected'], {
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
    });

    // the scheduler binds it to the agent's node once that node is Ready; the agent runs it
    const running = await waitFor(
      'the pod Running',
      async () => {
        const p = await get(api, `/api/v1/namespaces/${ns}/pods/${name}`);
        return rec(p?.['status'])['phase'] === 'Running' ? p : undefined;
      },
      120_000,
      250,
    );
    assert.equal(rec(running['spec'])['nodeName'], node);
    const conditions = recs(rec(running['status'])['conditions']);
    assert.equal(conditions.find((c) => c['type'] === 'PodScheduled')?.['status'], 'True');

    const out = (script: string): Promise<string> => inPod(root, name, script);
    assert.equal(await out(`ls ${SA_DIR}`), 'ca.crt\nnamespace\ntoken');
    assert.equal(await out(`cat ${SA_DIR}/namespace`), ns);
    assert.equal(await out(`cat ${SA_DIR}/ca.crt`), caPem.trim());
    const token = await out(`cat ${SA_DIR}/token`);
    const parts = token.split('.');
    assert.equal(parts.length, 3, 'a JWS in compact form');
    const claims = rec(JSON.parse(Buffer.from(parts[1] ?? '', 'base64url').toString('utf8')));
    assert.equal(claims['sub'], `system:serviceaccount:${ns}:default`);
    assert.equal(claims['iss'], 'https://kubernetes.default.svc.cluster.local');
    const k8s = rec(claims['kubernetes.io']);
    assert.equal(k8s['namespace'], ns);
    assert.equal(rec(k8s['pod'])['name'], name);
    assert.equal(rec(k8s['pod'])['uid'], rec(running['metadata'])['uid']);
    assert.equal(rec(k8s['serviceaccount'])['name'], 'default');
    assert.equal(rec(k8s['node'])['name'], node);

    const review = await api.request('POST', '/apis/authentication.k8s.io/v1/tokenreviews', {
      body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token } },
    });
    assert.equal(review.status, 201, review.text);
    const status = rec(review.json?.['status']);
    assert.equal(status['authenticated'], true, review.text);
    const user = rec(status['user']);
    assert.equal(user['username'], `system:serviceaccount:${ns}:default`);
    assert.deepEqual(user['groups'], [
      'system:serviceaccounts',
      `system:serviceaccounts:${ns}`,
      'system:authenticated',
    ]);
    assert.deepEqual(rec(user['extra'])['authentication.kubernetes.io/pod-name'], [name]);
  },
);
