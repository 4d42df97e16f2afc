// The same end-to-end suite under both naming profiles, the BUILT agent against the BUILT
// plat-apiserver: TLS bootstrap with auto-approval, registration, lease renewal, a static pod's
// mirror, a pod bound by spec.nodeName started and reported Running and its deletion stopping
// it; then the node lifecycle controller marking the stopped agent's node Unknown and tainting
// it within the grace period, and clearing both when the agent returns. Under the kubernetes
// profile every name the agent sends is compared with the reference's names written below (from
// Kubernetes 1.32), not derived from our code.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  startBootstrapEnv,
  spawnAgent,
  type AgentProcess,
  type BootstrapEnv,
} from '../helpers/bootstrap-env.js';
import { killProcessPods } from '../integration/agent/pods/runtimes.js';
import { waitFor } from '../helpers/server-https-request.js';
import { pidAlive } from '../helpers/processes.js';

interface Expected {
  profile: 'platform' | 'kubernetes';
  certificatesGroup: string;
  coordinationGroup: string;
  clientSigner: string;
  labels: { hostname: string; os: string; arch: string; betaOs: string; betaArch: string };
  mirrorAnnotation: string;
  leaseNamespace: string;
  unreachableTaint: string;
  eventComponent: string;
}

/** The reference's names (Kubernetes 1.32), as a real kube-apiserver and kubelet spell them. */
const KUBERNETES: Expected = {
  profile: 'kubernetes',
  certificatesGroup: 'certificates.k8s.io',
  coordinationGroup: 'coordination.k8s.io',
  clientSigner: 'kubernetes.io/kube-apiserver-client-kubelet',
  labels: {
    hostname: 'kubernetes.io/hostname',
    os: 'kubernetes.io/os',
    arch: 'kubernetes.io/arch',
    betaOs: 'beta.kubernetes.io/os',
    betaArch: 'beta.kubernetes.io/arch',
  },
  mirrorAnnotation: 'kubernetes.io/config.mirror',
  leaseNamespace: 'kube-node-lease',
  unreachableTaint: 'node.kubernetes.io/unreachable',
  eventComponent: 'kubelet',
};

/** Ours (the spec's `{platform_domain}` = platform.io and `plat`). */
const PLATFORM: Expected = {
  profile: 'platform',
  certificatesGroup: 'certificates.platform.io',
  coordinationGroup: 'coordination.platform.io',
  clientSigner: 'platform.io/plat-apiserver-client-platlet',
  labels: {
    hostname: 'platform.io/hostname',
    os: 'platform.io/os',
    arch: 'platform.io/arch',
    betaOs: 'beta.platform.io/os',
    betaArch: 'beta.platform.io/arch',
  },
  mirrorAnnotation: 'platform.io/config.mirror',
  leaseNamespace: 'plat-node-lease',
  unreachableTaint: 'node.platform.io/unreachable',
  eventComponent: 'nodeagent',
};

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const cleanups: (() => Promise<void>)[] = [];
after(async () => {
  for (const c of cleanups.reverse()) await c().catch(() => undefined);
});

async function getJson(env: BootstrapEnv, path: string): Promise<Obj | undefined> {
  const r = await env.api.request('GET', path);
  return r.status === 200 ? (r.json as Obj) : undefined;
}

function condition(node: Obj | undefined, type: string): Obj | undefined {
  return (node?.['status']?.['conditions'] as Obj[] | undefined)?.find((c) => c['type'] === type);
}

/** A kubeadm-style KubeletConfiguration (kubeadm 1.32 writes zero values for "default"), or ours. */
function configFile(profile: Expected['profile'], manifests: string, caFile: string): string {
  const common = [
    'authentication:',
    '  anonymous: {enabled: false}',
    '  webhook: {cacheTTL: 0s, enabled: true}',
    `  x509: {clientCAFile: ${caFile}}`,
    'authorization:',
    '  mode: Webhook',
    '  webhook: {cacheAuthorizedTTL: 0s, cacheUnauthorizedTTL: 0s}',
    `staticPodPath: ${manifests}`,
    'fileCheckFrequency: 1s',
    'nodeStatusUpdateFrequency: 1s',
    'nodeStatusReportFrequency: 0s',
    'nodeLeaseDurationSeconds: 4',
    'rotateCertificates: true',
    'streamingConnectionIdleTimeout: 0s',
    'syncFrequency: 0s',
  ];
  if (profile === 'kubernetes') {
    return [
      'apiVersion: kubelet.config.k8s.io/v1beta1',
      'kind: KubeletConfiguration',
      ...common,
      'kubeAPIQPS: 50',
      'kubeAPIBurst: 100',
      'shutdownGracePeriod: 0s',
      'shutdownGracePeriodCriticalPods: 0s',
      'memorySwap: {}',
      'crashLoopBackOff: {}',
      'containerRuntimeEndpoint: ""',
      'logging:',
      '  flushFrequency: 0',
      '  options:',
      '    json: {infoBufferSize: "0"}',
      '    text: {infoBufferSize: "0"}',
      '  verbosity: 0',
      '',
    ].join('\n');
  }
  return [
    'apiVersion: nodeagent.config.platform.io/v1beta1',
    'kind: NodeAgentConfiguration',
    ...common
      .filter((l) => !l.endsWith(': 0s') || l.startsWith(' '))
      .map((l) =>
        l
          .replace(/cacheTTL: 0s/, 'cacheTTL: 2m')
          .replace(
            /cacheAuthorizedTTL: 0s, cacheUnauthorizedTTL: 0s/,
            'cacheAuthorizedTTL: 5m, cacheUnauthorizedTTL: 30s',
          ),
      ),
    'platAPIQPS: 50',
    '',
  ].join('\n');
}

for (const want of [PLATFORM, KUBERNETES]) {
  test(
    `profile ${want.profile}: bootstrap, registration, lease, pods, and the node lifecycle`,
    { timeout: 240_000 },
    async () => {
      const node = `node-${want.profile}`;
      const env = await startBootstrapEnv({
        args: [`--platform-profile=${want.profile}`, '--node-monitor-grace-period=4s'],
      });
      cleanups.push(() => env.stop());
      const manifests = join(env.dir, 'manifests');
      await mkdir(manifests);
      await writeFile(
        join(manifests, 'static.json'),
        JSON.stringify({
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: { name: 'static' },
          spec: {
            containers: [{ name: 'c', command: ['node', '-e', 'setInterval(() => {}, 1000)'] }],
          },
        }),
      );
      // The config file: kubeadm's KubeletConfiguration (with its zero values) under kubernetes,
      // ours under platform; the lease and status settings are config-file fields, as the reference's.
      const config = join(env.dir, 'config.yaml');
      await writeFile(config, configFile(want.profile, manifests, env.api.clusterCaFile));
      const agentArgs = [
        `--platform-profile=${want.profile}`,
        `--config=${config}`,
        '--node-ip=127.0.0.1',
      ];
      const spell = { referenceSpellings: want.profile === 'kubernetes' };
      let agent: AgentProcess = await spawnAgent(env, agentArgs, node, spell);
      cleanups.push(async () => {
        await agent.stop();
        await killProcessPods(join(env.dir, 'root'));
      });
      const out = (): string => `\n--- agent output ---\n${agent.output().slice(-3000)}`;

      // Bootstrap: the CSR under the profile's signer, auto-approved and issued.
      await waitFor(
        async () =>
          condition(await getJson(env, `/api/v1/nodes/${node}`), 'Ready')?.['status'] === 'True',
        `node ${node} Ready${out()}`,
        60_000,
        200,
      );
      const csrs = (
        await getJson(env, `/apis/${want.certificatesGroup}/v1/certificatesigningrequests`)
      )?.['items'] as Obj[];
      const mine = csrs.filter((c) => c['spec']['username'] === 'system:bootstrap:abcdef');
      assert.deepEqual(
        mine.map((c) => c['spec']['signerName']),
        [want.clientSigner],
      );
      assert.deepEqual(
        mine[0]?.['status']['conditions'].map((c: Obj) => c['type']),
        ['Approved'],
      );

      // Registration: the default labels under the profile's names.
      const registered = (await getJson(env, `/api/v1/nodes/${node}`)) as Obj;
      const labels = registered['metadata']['labels'] as Record<string, string>;
      assert.equal(labels[want.labels.hostname], node);
      assert.equal(labels[want.labels.os], 'linux');
      assert.equal(labels[want.labels.betaOs], 'linux');
      assert.ok(
        labels[want.labels.arch] !== undefined &&
          labels[want.labels.betaArch] === labels[want.labels.arch],
      );
      assert.deepEqual(
        Object.keys(labels).sort(),
        Object.values(want.labels).sort(),
        'no other label is sent',
      );

      // The lease: named after the node, in the profile's namespace, renewed, owned by the Node.
      const leasePath = `/apis/${want.coordinationGroup}/v1/namespaces/${want.leaseNamespace}/leases/${node}`;
      let first: Obj | undefined;
      await waitFor(
        async () => (first = await getJson(env, leasePath)) !== undefined,
        `the lease ${leasePath}${out()}`,
        20_000,
        200,
      );
      assert.equal(first?.['spec']['holderIdentity'], node);
      assert.equal(first?.['spec']['leaseDurationSeconds'], 4);
      assert.match(
        first?.['spec']['renewTime'] as string,
        /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/,
      );
      assert.deepEqual(first?.['metadata']['ownerReferences'], [
        { apiVersion: 'v1', kind: 'Node', name: node, uid: registered['metadata']['uid'] },
      ]);
      await waitFor(
        async () =>
          (await getJson(env, leasePath))?.['spec']['renewTime'] !== first?.['spec']['renewTime'],
        'a lease renewal',
        10_000,
        200,
      );

      // The static pod's mirror carries the profile's annotation.
      await waitFor(
        async () =>
          (await getJson(env, `/api/v1/namespaces/default/pods/static-${node}`))?.['metadata'][
            'annotations'
          ]?.[want.mirrorAnnotation] !== undefined,
        `the mirror pod${out()}`,
        30_000,
        200,
      );

      // The agent's events name its source component.
      const events = ((await getJson(env, '/api/v1/namespaces/default/events'))?.['items'] ??
        []) as Obj[];
      assert.ok(
        events.some(
          (e) =>
            e['source']?.['host'] === node &&
            e['source']?.['component'] === want.eventComponent &&
            e['reason'] === 'Starting',
        ),
        'the Starting event names the component',
      );

      // A pod bound by spec.nodeName: started, reported Running; deleted: stopped.
      const pidFile = join(env.dir, 'bound.pid');
      const podBody = {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'bound' },
        spec: {
          nodeName: node,
          // the process:// runtime cannot mount the projected service-account token volume
          automountServiceAccountToken: false,
          terminationGracePeriodSeconds: 1,
          containers: [
            {
              name: 'c',
              image: 'busybox',
              command: [
                'node',
                '-e',
                `require('fs').writeFileSync(${JSON.stringify(pidFile)}, String(process.pid)); setInterval(() => {}, 1000)`,
              ],
            },
          ],
        },
      };
      assert.equal(
        (await env.api.request('POST', '/api/v1/namespaces/default/pods', { body: podBody }))
          .status,
        201,
      );
      await waitFor(
        async () =>
          (await getJson(env, '/api/v1/namespaces/default/pods/bound'))?.['status']?.['phase'] ===
          'Running',
        `pod bound Running${out()}`,
        30_000,
        200,
      );
      let pid = 0;
      await waitFor(
        async () => (pid = Number(await readFile(pidFile, 'utf8').catch(() => '0'))) > 0,
        'the pod to write its pid',
        10_000,
        100,
      );
      assert.ok(pidAlive(pid));
      assert.ok(
        [200, 202].includes(
          (await env.api.request('DELETE', '/api/v1/namespaces/default/pods/bound')).status,
        ),
      );
      await waitFor(
        () => Promise.resolve(!pidAlive(pid)),
        `the deleted pod's process to stop${out()}`,
        30_000,
        200,
      );

      // The node lifecycle: the agent stops; within the grace period (4s, checked every 1s) the
      // node is Unknown with the reference's reason and message, and tainted unreachable.
      await agent.stop();
      const stoppedAt = Date.now();
      let gone: Obj | undefined;
      await waitFor(
        async () =>
          condition((gone = await getJson(env, `/api/v1/nodes/${node}`)), 'Ready')?.['status'] ===
          'Unknown',
        'the node Unknown',
        20_000,
        200,
      );
      const elapsed = Date.now() - stoppedAt;
      assert.ok(
        elapsed < 4_000 + 1_000 + 2_000,
        `marked Unknown ${elapsed} ms after the agent stopped (grace 4s, period 1s)`,
      );
      const ready = condition(gone, 'Ready') as Obj;
      assert.equal(ready['reason'], 'NodeStatusUnknown');
      assert.equal(ready['message'], 'Kubelet stopped posting node status.');
      for (const t of ['MemoryPressure', 'DiskPressure', 'PIDPressure'])
        assert.equal(condition(gone, t)?.['status'], 'Unknown', t);
      await waitFor(
        async () =>
          ((await getJson(env, `/api/v1/nodes/${node}`))?.['spec']['taints'] ?? []).length >= 2,
        'the unreachable taints',
        10_000,
        200,
      );
      const taints = ((await getJson(env, `/api/v1/nodes/${node}`))?.['spec']['taints'] as Obj[])
        .map((t) => `${t['key']}:${t['effect']}`)
        .sort();
      assert.deepEqual(taints, [
        `${want.unreachableTaint}:NoExecute`,
        `${want.unreachableTaint}:NoSchedule`,
      ]);

      // The agent returns: Ready again, taints gone.
      agent = await spawnAgent(env, agentArgs, node, spell);
      await waitFor(
        async () => {
          const n = await getJson(env, `/api/v1/nodes/${node}`);
          return (
            condition(n, 'Ready')?.['status'] === 'True' &&
            (n?.['spec']['taints'] ?? []).length === 0
          );
        },
        `the node Ready and untainted again${out()}`,
        30_000,
        200,
      );
    },
  );
}
