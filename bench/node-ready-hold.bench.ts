// Node Ready held under the node lifecycle controller: plat-apiserver with
// --platform-profile=kubernetes and the default --node-monitor-grace-period (40s), the built agent
// joined through TLS bootstrap with the default lease (40s, renewed every 10s) and status
// settings (update 10s, report 5m). For BENCH_HOLD_MINUTES (default 10) the Node is read every
// second: the figure is the share of samples in which Ready was True and no unreachable taint
// was set (target: 100%), and the number of lease renewals seen. Not part of npm test.
import { setTimeout as sleep } from 'node:timers/promises';
import { startBootstrapEnv, spawnAgent } from '../test/helpers/bootstrap-env.js';
import { killProcessPods } from '../test/integration/agent/pods/runtimes.js';
import { join } from 'node:path';

const MINUTES = Number(process.env['BENCH_HOLD_MINUTES'] ?? 10);
const NODE = 'hold-node';

type Obj = Record<string, unknown>;

async function main(): Promise<void> {
  const env = await startBootstrapEnv({ args: ['--platform-profile=kubernetes'] });
  const agent = await spawnAgent(
    env,
    ['--platform-profile=kubernetes', '--node-ip=127.0.0.1'],
    NODE,
    { referenceSpellings: true },
  );
  try {
    const get = async (path: string): Promise<Obj | undefined> =>
      (await env.api.request('GET', path).catch(() => undefined))?.json;
    const deadline = Date.now() + 60_000;
    const ready = (n: Obj | undefined): boolean =>
      ((n?.['status'] as Obj | undefined)?.['conditions'] as Obj[] | undefined)?.some(
        (c) => c['type'] === 'Ready' && c['status'] === 'True',
      ) === true;
    while (!ready(await get(`/api/v1/nodes/${NODE}`))) {
      if (Date.now() > deadline)
        throw new Error(`the node never turned Ready:\n${agent.output().slice(-3000)}`);
      await sleep(250);
    }
    const end = Date.now() + MINUTES * 60_000;
    let samples = 0;
    let held = 0;
    const renewals = new Set<string>();
    while (Date.now() < end) {
      const n = await get(`/api/v1/nodes/${NODE}`);
      const taints = ((n?.['spec'] as Obj | undefined)?.['taints'] as Obj[] | undefined) ?? [];
      samples++;
      if (ready(n) && !taints.some((t) => t['key'] === 'node.kubernetes.io/unreachable')) held++;
      const lease = await get(
        `/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/${NODE}`,
      );
      const renew = (lease?.['spec'] as Obj | undefined)?.['renewTime'];
      if (typeof renew === 'string') renewals.add(renew);
      await sleep(1000);
    }
    const pct = ((held / samples) * 100).toFixed(2);
    process.stdout.write(
      `node Ready and untainted in ${held}/${samples} samples (${pct}%) over ${MINUTES} min; ${renewals.size} distinct lease renewals seen (expected ~${MINUTES * 6})\n`,
    );
    if (held !== samples) process.exitCode = 1;
  } finally {
    await agent.stop();
    await killProcessPods(join(env.dir, 'root'));
    await env.stop();
  }
}

await main();
