// Services and the scheduler on the built plat-apiserver with kubectl 1.32: the `kubernetes`
// service (10.0.0.1, 443 -> the secure port) and its Endpoints; `kubectl create service
// clusterip` with an address from 10.0.0.0/24 and the reference's table and errors; a pod
// without nodeName bound to the Ready node that fits, with the Scheduled event, and one that
// fits nowhere left Pending with PodScheduled False and FailedScheduling in the reference's words.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startApiServer, type StartedApiServer } from '../../helpers/apiserver.js';
import { kubectlSkipReason } from '../../helpers/kubectl.js';
import { waitFor } from '../../helpers/server-https-request.js';

type Obj = Record<string, unknown>;
const skip = kubectlSkipReason('services-scheduler');
let api: StartedApiServer;
let dir: string;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'svc-it-'));
  api = await startApiServer({ args: ['--platform-profile=kubernetes'] });
});
after(async () => {
  await api?.stop();
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

function kubectl(
  args: readonly string[],
  input?: string,
): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(
    'kubectl',
    [`--kubeconfig=${api.adminPlatconfig}`, `--cache-dir=${join(dir, 'cache')}`, ...args],
    {
      encoding: 'utf8',
      input,
      timeout: 30_000,
    },
  );
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

async function get(path: string): Promise<Obj | undefined> {
  const r = await api.request('GET', path);
  return r.status === 200 ? r.json : undefined;
}

test('the kubernetes service and its endpoints, as the reference keeps them', async () => {
  await waitFor(
    async () => (await get('/api/v1/namespaces/default/endpoints/kubernetes')) !== undefined,
    'kubernetes endpoints',
  );
  const svc = (await get('/api/v1/namespaces/default/services/kubernetes')) ?? {};
  assert.deepEqual((svc['metadata'] as Obj)['labels'], {
    component: 'apiserver',
    provider: 'kubernetes',
  });
  assert.deepEqual(svc['spec'], {
    ports: [{ name: 'https', protocol: 'TCP', port: 443, targetPort: api.port }],
    sessionAffinity: 'None',
    type: 'ClusterIP',
    clusterIP: '10.0.0.1',
    clusterIPs: ['10.0.0.1'],
    internalTrafficPolicy: 'Cluster',
    ipFamilies: ['IPv4'],
    ipFamilyPolicy: 'SingleStack',
  });
  const ep = (await get('/api/v1/namespaces/default/endpoints/kubernetes')) ?? {};
  assert.deepEqual(ep['subsets'], [
    {
      addresses: [{ ip: '127.0.0.1' }],
      ports: [{ name: 'https', port: api.port, protocol: 'TCP' }],
    },
  ]);
});

test(
  "kubectl create service clusterip: an address from 10.0.0.0/24, the reference's table and errors",
  { skip },
  () => {
    let r = kubectl(['create', 'service', 'clusterip', 'web', '--tcp=80:8080']);
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout.trim(), 'service/web created');
    r = kubectl([
      'get',
      'service',
      'web',
      '-o',
      'jsonpath={.spec.clusterIP} {.spec.ports[0].targetPort}',
    ]);
    const [ip, target] = r.stdout.split(' ');
    assert.match(ip ?? '', /^10\.0\.0\.(\d+)$/);
    assert.equal(target, '8080');
    r = kubectl(['get', 'service', 'web', '-o', 'wide']);
    assert.match(
      r.stdout,
      new RegExp(
        `^NAME\\s+TYPE\\s+CLUSTER-IP\\s+EXTERNAL-IP\\s+PORT\\(S\\)\\s+AGE\\s+SELECTOR\\nweb\\s+ClusterIP\\s+${(ip ?? '').replaceAll('.', '\\.')}\\s+<none>\\s+80/TCP\\s+\\d+s\\s+app=web\\n$`,
      ),
    );
    r = kubectl(['create', 'service', 'clusterip', 'taken', '--tcp=80', '--clusterip=10.0.0.1']);
    assert.match(
      r.stderr,
      /Service "taken" is invalid: spec\.clusterIPs: Invalid value: \[\]string\{"10\.0\.0\.1"\}: failed to allocate IP 10\.0\.0\.1: provided IP is already allocated/,
    );
    r = kubectl(['create', 'service', 'clusterip', 'far', '--tcp=80', '--clusterip=192.168.0.1']);
    assert.match(
      r.stderr,
      /failed to allocate IP 192\.168\.0\.1: the provided IP \(192\.168\.0\.1\) is not in the valid range\. The range of valid IPs is 10\.0\.0\.0\/24/,
    );
    r = kubectl(['create', 'service', 'clusterip', 'headless', '--clusterip=None']);
    assert.equal(r.status, 0, r.stderr);
    r = kubectl(['create', 'service', 'clusterip', 'Bad_Name', '--tcp=80']);
    assert.match(
      r.stderr,
      /metadata\.name: Invalid value: "Bad_Name": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character/,
    );
    r = kubectl(
      ['create', '-f', '-'],
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name: 'ports' },
        spec: { ports: [{ port: 0 }, { port: 70000, protocol: 'ICMP' }] },
      }),
    );
    assert.equal(
      r.stderr,
      'The Service "ports" is invalid: \n' +
        [
          'spec.ports[0].name: Required value',
          'spec.ports[0].port: Invalid value: 0: must be between 1 and 65535, inclusive',
          'spec.ports[0].targetPort: Invalid value: 0: must be between 1 and 65535, inclusive',
          'spec.ports[1].name: Required value',
          'spec.ports[1].port: Invalid value: 70000: must be between 1 and 65535, inclusive',
          'spec.ports[1].protocol: Unsupported value: "ICMP": supported values: "SCTP", "TCP", "UDP"',
          'spec.ports[1].targetPort: Invalid value: 70000: must be between 1 and 65535, inclusive',
        ]
          .map((l) => `* ${l}\n`)
          .join(''),
    );
    // Deleted, the address is free again.
    assert.equal(kubectl(['delete', 'service', 'web']).status, 0);
    r = kubectl(['create', 'service', 'clusterip', 'again', '--tcp=80', `--clusterip=${ip ?? ''}`]);
    assert.equal(r.status, 0, r.stderr);
  },
);

const readyStatus = {
  allocatable: { cpu: '2', memory: '4Gi', pods: '110' },
  conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'ready' }],
};

async function addNode(name: string, spec: Obj = {}, ready = true): Promise<void> {
  const r = await api.request('POST', '/api/v1/nodes', {
    body: { metadata: { name, labels: { 'kubernetes.io/hostname': name } }, spec },
  });
  assert.equal(r.status, 201, r.text);
  const status = ready
    ? readyStatus
    : {
        allocatable: readyStatus.allocatable,
        conditions: [
          { type: 'Ready', status: 'False', reason: 'KubeletNotReady', message: 'down' },
        ],
      };
  const s = await api.request('PATCH', `/api/v1/nodes/${name}/status`, {
    body: { status },
    contentType: 'application/merge-patch+json',
  });
  assert.equal(s.status, 200, s.text);
}

test(
  "a pod without nodeName goes to the Ready node that fits, with the reference's Scheduled event",
  { skip },
  async () => {
    await addNode('tainted', {
      taints: [{ key: 'dedicated', value: 'gpu', effect: 'NoSchedule' }],
    });
    await addNode('down', {}, false);
    await addNode('worker');
    const r = kubectl([
      'run',
      'probe',
      '--image=busybox',
      '--restart=Never',
      '--',
      'sleep',
      '3600',
    ]);
    assert.equal(r.status, 0, r.stderr);
    await waitFor(
      async () =>
        ((await get('/api/v1/namespaces/default/pods/probe'))?.['spec'] as Obj | undefined)?.[
          'nodeName'
        ] === 'worker',
      'probe bound to worker',
    );
    const pod = (await get('/api/v1/namespaces/default/pods/probe')) ?? {};
    const cond = ((pod['status'] as Obj)['conditions'] as Obj[]).find(
      (c) => c['type'] === 'PodScheduled',
    );
    assert.equal(cond?.['status'], 'True');
    await waitFor(
      () =>
        kubectl([
          'get',
          'events',
          '--field-selector=involvedObject.name=probe',
          '-o',
          'jsonpath={.items[*].message}',
        ]).stdout.includes('Successfully assigned default/probe to worker'),
      'Scheduled event',
    );
    // Bound once: another binding is the reference's conflict.
    const again = await api.request('POST', '/api/v1/namespaces/default/pods/probe/binding', {
      body: {
        apiVersion: 'v1',
        kind: 'Binding',
        metadata: { name: 'probe' },
        target: { name: 'tainted' },
      },
    });
    assert.equal(again.status, 409);
    assert.equal(
      again.json?.['message'],
      'Operation cannot be fulfilled on pods/binding "probe": pod probe is already assigned to node "worker"',
    );
  },
);

test(
  "a pod that fits nowhere stays Pending with the reference's FailedScheduling message",
  { skip },
  async () => {
    const r = kubectl([
      'run',
      'huge',
      '--image=busybox',
      '--restart=Never',
      '--overrides={"spec":{"containers":[{"name":"huge","image":"busybox","resources":{"requests":{"cpu":"3"}}}]}}',
    ]);
    assert.equal(r.status, 0, r.stderr);
    const want =
      '0/3 nodes are available: 1 Insufficient cpu, 1 node(s) had untolerated taint {dedicated: gpu}, 1 node(s) had untolerated taint {node.kubernetes.io/not-ready: }. preemption: 0/3 nodes are available: 1 No preemption victims found for incoming pod, 2 Preemption is not helpful for scheduling.';
    await waitFor(async () => {
      const pod = (await get('/api/v1/namespaces/default/pods/huge')) ?? {};
      const conds = ((pod['status'] as Obj | undefined)?.['conditions'] as Obj[] | undefined) ?? [];
      return conds.some(
        (c) =>
          c['type'] === 'PodScheduled' &&
          c['status'] === 'False' &&
          c['reason'] === 'Unschedulable' &&
          c['message'] === want,
      );
    }, 'PodScheduled False');
    const events = kubectl([
      'get',
      'events',
      '--field-selector=involvedObject.name=huge,reason=FailedScheduling',
      '-o',
      'jsonpath={.items[*].message}',
    ]);
    assert.equal(events.stdout, want);
    // A node with room makes it schedulable.
    await addNode('roomy');
    await api.request('PATCH', '/api/v1/nodes/roomy/status', {
      body: { status: { allocatable: { cpu: '8', memory: '4Gi', pods: '110' } } },
      contentType: 'application/merge-patch+json',
    });
    await waitFor(
      async () =>
        ((await get('/api/v1/namespaces/default/pods/huge'))?.['spec'] as Obj | undefined)?.[
          'nodeName'
        ] === 'roomy',
      'huge bound to roomy',
    );
  },
);
