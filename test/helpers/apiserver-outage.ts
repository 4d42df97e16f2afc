// The API server away and back: the BUILT agent joined (TLS bootstrap, kubernetes profile chosen by
// its reference flag spellings) to the BUILT plat-apiserver with a data dir; plat-apiserver is
// stopped while the agent runs, kept down for `outageMs`, and started again on the same port, cert
// dir and data dir. Then the facts the test and the bench judge: the lease renewed again, the node
// Ready and untainted, the agent the same process that never restarted. Shared by
// test/e2e/apiserver-outage.test.ts (short durations) and bench/apiserver-outage.bench.ts (two
// minutes at the default durations).
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { startApiServer, type StartedApiServer } from './apiserver.js';
import { spawnAgent, startBootstrapEnv, type AgentProcess } from './bootstrap-env.js';
import { waitFor } from './server-https-request.js';
import { killProcessPods } from '../integration/agent/pods/runtimes.js';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

export interface OutageOptions {
  node: string;
  /**
   * The agent's nodeLeaseDurationSeconds (renewed every quarter of it); undefined: the default
   * (40).
   */
  leaseSeconds?: number;
  /** The agent's nodeStatusUpdateFrequency; undefined: the default (10s). */
  statusUpdateFrequency?: string;
  /** plat-apiserver's --node-monitor-grace-period; undefined: the default (40s). */
  gracePeriod?: string;
  /** How long plat-apiserver stays down. */
  outageMs: number;
  /** How long to wait for each step after the restart. */
  recoverTimeoutMs: number;
  /**
   * false: plat-apiserver keeps everything in memory, so it comes back empty (no Node, no Lease,
   * a resourceVersion behind the agent's watches). Default true: a data dir it comes back to.
   */
  persistent?: boolean;
}

export interface OutageFacts {
  pidBefore: number | undefined;
  pidAfter: number | undefined;
  /** The agent process is still running after the recovery. */
  agentRunning: boolean;
  /** `node agent starting` lines in the agent's log (1: it never restarted). */
  starts: number;
  /** The agent logged failed lease renewals during the outage. */
  renewalFailuresLogged: boolean;
  renewTimeBefore: string;
  renewTimeAfter: string;
  outageMs: number;
  /** From the restart to the first lease renewal seen. */
  leaseResumedMs: number;
  /** From the restart to the node Ready with no unreachable taint. */
  readyMs: number;
  /**
   * The node's Ready condition was seen Unknown after the restart (the controller noticed the
   * outage).
   */
  sawUnknown: boolean;
  agentOutput: string;
}

const LEASE = (node: string): string =>
  `/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/${node}`;

function ready(n: Obj | undefined): string | undefined {
  return (n?.['status']?.['conditions'] as Obj[] | undefined)?.find((c) => c['type'] === 'Ready')?.[
    'status'
  ] as string | undefined;
}

function untainted(n: Obj | undefined): boolean {
  return !((n?.['spec']?.['taints'] ?? []) as Obj[]).some(
    (t) => t['key'] === 'node.kubernetes.io/unreachable',
  );
}

async function getJson(api: StartedApiServer, path: string): Promise<Obj | undefined> {
  const r = await api.request('GET', path).catch(() => undefined);
  return r?.status === 200 ? (r.json as Obj) : undefined;
}

/** A KubeletConfiguration with the lease and status settings, as kubeadm's file sets them. */
function kubeletConfig(o: OutageOptions, clientCa: string): string {
  return [
    'apiVersion: kubelet.config.k8s.io/v1beta1',
    'kind: KubeletConfiguration',
    'authentication:',
    '  anonymous: {enabled: false}',
    '  webhook: {enabled: true}',
    `  x509: {clientCAFile: ${clientCa}}`,
    'authorization: {mode: Webhook}',
    ...(o.leaseSeconds !== undefined ? [`nodeLeaseDurationSeconds: ${o.leaseSeconds}`] : []),
    ...(o.statusUpdateFrequency !== undefined
      ? [`nodeStatusUpdateFrequency: ${o.statusUpdateFrequency}`]
      : []),
    '',
  ].join('\n');
}

export async function runApiServerOutage(o: OutageOptions): Promise<OutageFacts> {
  const apiArgs = [
    '--platform-profile=kubernetes',
    ...(o.gracePeriod !== undefined ? [`--node-monitor-grace-period=${o.gracePeriod}`] : []),
  ];
  const env = await startBootstrapEnv({
    persistent: o.persistent === false ? 'certs' : true,
    args: apiArgs,
  });
  let api: StartedApiServer = env.api;
  let agent: AgentProcess | undefined;
  try {
    const config = join(env.dir, 'config.yaml');
    await writeFile(config, kubeletConfig(o, env.api.clusterCaFile));
    agent = await spawnAgent(env, [`--config=${config}`, '--node-ip=127.0.0.1'], o.node, {
      referenceSpellings: true,
    });
    const a = agent;
    const out = (): string => `\n--- agent output ---\n${a.output().slice(-3000)}`;
    await waitFor(
      async () => ready(await getJson(api, `/api/v1/nodes/${o.node}`)) === 'True',
      `node ${o.node} Ready${out()}`,
      60_000,
      200,
    );
    let lease: Obj | undefined;
    await waitFor(
      async () => (lease = await getJson(api, LEASE(o.node))) !== undefined,
      `the lease${out()}`,
      30_000,
      200,
    );
    const pidBefore = agent.child.pid;

    // Away: stopped (SIGTERM), down for outageMs; the agent notices.
    const stoppedAt = Date.now();
    await api.stop();
    const leaseBefore = lease as Obj | undefined;
    const renewTimeBefore = String(leaseBefore?.['spec']?.['renewTime']);
    // The agent says so (a request in flight when the server went may take its timeout first;
    // false when it never did); the outage lasts at least outageMs from the stop.
    const renewalFailuresLogged = await agent
      .waitFor(/failed to renew the node lease, will retry/, o.outageMs + 60_000)
      .then(
        () => true,
        () => false,
      );
    // The outage itself: a duration the scenario sets, not a wait for a condition (timers may
    // fire a millisecond early against Date.now, hence the loop).
    for (
      let left = o.outageMs - (Date.now() - stoppedAt);
      left > 0;
      left = o.outageMs - (Date.now() - stoppedAt)
    )
      await sleep(left);
    const outageMs = Date.now() - stoppedAt;

    // Back: same port, cert dir and data dir.
    api = await startApiServer({
      certDir: env.api.certDir,
      ...(env.api.dataDir !== undefined ? { dataDir: env.api.dataDir } : {}),
      args: [
        `--token-auth-file=${join(env.dir, 'tokens.csv')}`,
        ...apiArgs,
        `--secure-port=${env.api.port}`,
      ],
    });
    const restartedAt = Date.now();
    let renewTimeAfter = renewTimeBefore;
    await waitFor(
      async () => {
        const t = (await getJson(api, LEASE(o.node)))?.['spec']?.['renewTime'];
        if (typeof t !== 'string' || Date.parse(t) <= stoppedAt) return false;
        renewTimeAfter = t;
        return true;
      },
      `the lease renewed after the restart${out()}`,
      o.recoverTimeoutMs,
      100,
    );
    const leaseResumedMs = Date.now() - restartedAt;
    let sawUnknown = false;
    await waitFor(
      async () => {
        const n = await getJson(api, `/api/v1/nodes/${o.node}`);
        if (ready(n) === 'Unknown') sawUnknown = true;
        return ready(n) === 'True' && untainted(n);
      },
      `the node Ready and untainted after the restart${out()}`,
      o.recoverTimeoutMs,
      100,
    );
    const readyMs = Date.now() - restartedAt;
    const text = agent.output();
    return {
      pidBefore,
      pidAfter: agent.child.pid,
      agentRunning: agent.child.exitCode === null && agent.child.signalCode === null,
      starts: text.split('node agent starting').length - 1,
      renewalFailuresLogged,
      renewTimeBefore,
      renewTimeAfter,
      outageMs,
      leaseResumedMs,
      readyMs,
      sawUnknown,
      agentOutput: text,
    };
  } finally {
    await agent?.stop();
    await killProcessPods(join(env.dir, 'root'));
    if (api !== env.api) await api.stop();
    await env.stop();
  }
}
