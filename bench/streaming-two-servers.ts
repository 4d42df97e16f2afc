// The scene of the streaming side-by-side benchmark: ONE agent (the BUILT bin/nodeagent, process://
// runtime, one pod) reached through two API servers in the same run. The agent joins the reference
// control plane of a session (/opt/anchors: kube-apiserver 1.32, its CSR controllers approve the
// agent's bootstrap), which runs the pod. The BUILT plat-apiserver holds a copy of the Node (same
// InternalIP and kubelet port) and of the Pod, so its exec and port-forward reach the same agent
// and the same pod. The agent trusts both servers' kubelet-client certificates (one client CA
// bundle) and authorizes every authenticated caller (AlwaysAllow): the same work for either path.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, openSync, closeSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot, startApiServer, type StartedApiServer } from '../test/helpers/apiserver.js';
import { NO_CGROUPS_ARGS } from '../test/helpers/agent-cgroups.js';
import { testPodLogsArgs } from '../test/helpers/agent-pod-logs.js';
import { launcherEnv } from '../test/helpers/launcher.js';
import { freePort, stopChild } from '../test/helpers/processes.js';
import { waitFor } from '../test/helpers/server-https-request.js';
import { killProcessPods } from '../test/integration/agent/pods/runtimes.js';
import { loadConnection } from '../src/common/platconfig/platconfig.js';
import { recordOf } from '../src/common/util/json-shape.js';
import { connectKube, type Kube } from './side-by-side-kube.js';
import { ANCHORS, tail } from './side-by-side-node.js';

export const POD = 'bench-stream';
export const CONTAINER = 'c';

/** TLS material of a client of one API server (its CA, a client certificate and key). */
export interface ClientTls {
  readonly ca: string;
  readonly cert: string;
  readonly key: string;
}

/** One API server as the benchmark's clients reach it. */
export interface Server {
  readonly name: 'plat-apiserver' | 'kube-apiserver';
  readonly url: string;
  readonly kubeconfig: string;
  readonly tls: ClientTls;
}

export interface TwoServers {
  readonly plat: Server;
  readonly ref: Server;
  readonly node: string;
  /** The pids of the programs on the path (agent, plat-apiserver, kube-apiserver). */
  readonly pids: { agent: number; plat: number; ref: number };
  stop(): Promise<void>;
}

/** Why this host cannot run the benchmark, or undefined. */
export function skipReason(): string | undefined {
  for (const f of [
    'admin.kubeconfig',
    'bootstrap.kubeconfig',
    'pki/ca.crt',
    'run/kube-apiserver.pid',
  ])
    if (!existsSync(join(ANCHORS, f))) return `no ${ANCHORS}/${f} (the reference control plane)`;
  if (!existsSync(join(repoRoot(), 'bin', 'nodeagent'))) return 'no bin/nodeagent: npm run build';
  return undefined;
}

async function refServer(): Promise<Server> {
  const kubeconfig = join(ANCHORS, 'admin.kubeconfig');
  const c = await loadConnection(kubeconfig);
  return {
    name: 'kube-apiserver',
    url: c.server,
    kubeconfig,
    tls: { ca: c.caPem ?? '', cert: c.certPem ?? '', key: c.keyPem ?? '' },
  };
}

function agentArgs(dir: string, node: string, port: number, clientCa: string): string[] {
  return [
    `--bootstrap-kubeconfig=${join(ANCHORS, 'bootstrap.kubeconfig')}`,
    `--kubeconfig=${join(dir, 'node.conf')}`,
    `--cert-dir=${join(dir, 'pki')}`,
    `--root-dir=${join(dir, 'root')}`,
    '--container-runtime-endpoint=process://',
    `--hostname-override=${node}`,
    '--node-ip=127.0.0.1',
    '--address=127.0.0.1',
    `--port=${port}`,
    '--read-only-port=0',
    '--healthz-port=0',
    '--anonymous-auth=false',
    '--authorization-mode=AlwaysAllow',
    `--client-ca-file=${clientCa}`,
    '--fail-swap-on=false',
    '--fail-cgroupv1=false',
    ...NO_CGROUPS_ARGS,
    ...testPodLogsArgs(dir, 'k8s.io', 'kubernetes'),
  ];
}

function spawnAgent(args: string[], log: string): ChildProcess {
  const fd = openSync(log, 'a', 0o600);
  try {
    return spawn(join(repoRoot(), 'bin', 'nodeagent'), args, {
      stdio: ['ignore', fd, fd],
      cwd: repoRoot(),
      env: launcherEnv(),
    });
  } finally {
    closeSync(fd);
  }
}

function podManifest(node: string): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: POD, namespace: 'default' },
    spec: {
      nodeName: node,
      // process:// mounts no volumes: no projected token from the ServiceAccount plugin
      automountServiceAccountToken: false,
      terminationGracePeriodSeconds: 1,
      containers: [{ name: CONTAINER, image: 'none', command: ['sleep', '3600'] }],
    },
  };
}

/** The pod's status once the reference shows it Running. */
async function podRunningOn(kube: Kube, log: string): Promise<unknown> {
  let status: Record<string, unknown> = {};
  await waitFor(
    async () => {
      const a = await kube.call('GET', `/api/v1/namespaces/default/pods/${POD}`);
      status = recordOf(recordOf(a.body)['status']);
      return status['phase'] === 'Running';
    },
    `pod ${POD} Running on the reference (agent log:\n${tail(log)})`,
    60_000,
    200,
  );
  return status;
}

/** The Node and Pod copies plat-apiserver needs to route exec and port-forward to the agent. */
async function mirrorOnPlat(
  api: StartedApiServer,
  node: string,
  port: number,
  podStatus: unknown,
): Promise<void> {
  const made = await api.request('POST', '/api/v1/nodes', {
    body: { apiVersion: 'v1', kind: 'Node', metadata: { name: node } },
  });
  if (made.status !== 201) throw new Error(`node on plat-apiserver: ${made.status} ${made.text}`);
  const status = await api.request('PATCH', `/api/v1/nodes/${node}/status`, {
    contentType: 'application/merge-patch+json',
    body: {
      status: {
        addresses: [{ type: 'InternalIP', address: '127.0.0.1' }],
        daemonEndpoints: { kubeletEndpoint: { Port: port } },
      },
    },
  });
  if (status.status !== 200) throw new Error(`node status: ${status.status} ${status.text}`);
  const pod = await api.request('POST', '/api/v1/namespaces/default/pods', {
    body: podManifest(node),
  });
  if (pod.status !== 201) throw new Error(`pod on plat-apiserver: ${pod.status} ${pod.text}`);
  // kubectl port-forward asks for a Running pod: the reference's status, as the agent wrote it
  const st = await api.request('PATCH', `/api/v1/namespaces/default/pods/${POD}/status`, {
    contentType: 'application/merge-patch+json',
    body: { status: podStatus },
  });
  if (st.status !== 200) throw new Error(`pod status on plat-apiserver: ${st.status} ${st.text}`);
}

function platServer(api: StartedApiServer): Server {
  return {
    name: 'plat-apiserver',
    url: api.url,
    kubeconfig: api.adminPlatconfig,
    tls: api.adminTls,
  };
}

export async function startTwoServers(): Promise<TwoServers> {
  const dir = await mkdtemp(join(tmpdir(), 'na-stream-sbs-'));
  const node = `bench-stream-${process.pid}`;
  const log = join(dir, 'nodeagent.log');
  const kube = await connectKube(join(ANCHORS, 'admin.kubeconfig'));
  const api = await startApiServer({
    platformDomain: 'k8s.io',
    args: ['--disable-admission-plugins=ServiceAccount'],
    // e.g. "--cpu-prof --cpu-prof-dir=DIR", as the other apiserver benchmarks take it
    nodeArgs: (process.env['BENCH_SERVER_NODE_ARGS'] ?? '').split(' ').filter((a) => a !== ''),
  });
  let agent: ChildProcess | undefined;
  const podPath = `/api/v1/namespaces/default/pods/${POD}`;
  const stop = async (): Promise<void> => {
    // the agent confirms the pod's deletion; a pod left behind is removed at once after the agent
    await kube.call('DELETE', podPath).catch(() => undefined);
    await waitFor(
      async () => (await kube.call('GET', podPath)).status === 404,
      'the pod gone',
      30_000,
      200,
    ).catch(() => undefined);
    if (agent !== undefined) await stopChild(agent, 10_000);
    await kube.call('DELETE', `${podPath}?gracePeriodSeconds=0`).catch(() => undefined);
    await kube.call('DELETE', `/api/v1/nodes/${node}`).catch(() => undefined);
    kube.close();
    await api.stop();
    await killProcessPods(join(dir, 'root'));
    await rm(dir, { recursive: true, force: true });
  };
  try {
    await mkdir(join(dir, 'root'));
    const clientCa = join(dir, 'client-ca.crt');
    const bundle =
      (await readFile(join(ANCHORS, 'pki', 'ca.crt'), 'utf8')) +
      (await readFile(api.clusterCaFile, 'utf8'));
    await writeFile(clientCa, bundle);
    const port = await freePort();
    agent = spawnAgent(agentArgs(dir, node, port, clientCa), log);
    await waitFor(
      async () => (await kube.call('GET', `/api/v1/nodes/${node}`)).status === 200,
      `node ${node} registered with the reference (agent log:\n${tail(log)})`,
      120_000,
      200,
    );
    const created = await kube.call('POST', '/api/v1/namespaces/default/pods', podManifest(node));
    if (created.status !== 201)
      throw new Error(`pod on kube-apiserver: ${created.status} ${JSON.stringify(created.body)}`);
    await mirrorOnPlat(api, node, port, await podRunningOn(kube, log));
    const refPid = Number(readFileSync(join(ANCHORS, 'run', 'kube-apiserver.pid'), 'utf8'));
    return {
      plat: platServer(api),
      ref: await refServer(),
      node,
      pids: { agent: agent.pid ?? 0, plat: api.process.pid ?? 0, ref: refPid },
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}
