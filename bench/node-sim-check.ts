// The simulator's correctness check at the end of a run: every write the server acknowledged is
// what it now serves (each pod's Running status at the acknowledged resourceVersion, each lease's
// last renewTime, each node's last heartbeat), and every node's watch is consistent with the
// store (events in resourceVersion order, no pod of another node, exactly the pods bound to it,
// each at the version a list serves). Returns the problems found, each named.

import { rvNewer } from './node-sim-watch.js';
import type { SimClient } from './node-sim-calls.js';
import type { Fleet, SimNode } from './node-sim-fleet.js';

interface Listed {
  readonly name: string;
  readonly rv: string;
  readonly item: Record<string, unknown>;
}

async function listAll(client: SimClient, path: string): Promise<Map<string, Listed>> {
  const out = new Map<string, Listed>();
  let cont = '';
  do {
    const sep = path.includes('?') ? '&' : '?';
    const page = await client.call('check list', 'read', {
      method: 'GET',
      path: `${path}${sep}limit=500${cont === '' ? '' : `&continue=${encodeURIComponent(cont)}`}`,
    });
    const body = page.json as {
      items?: Record<string, unknown>[];
      metadata?: { continue?: string };
    };
    for (const item of body.items ?? []) {
      const m = (item['metadata'] ?? {}) as Record<string, unknown>;
      const name = String(m['name']);
      out.set(name, { name, rv: String(m['resourceVersion']), item });
    }
    cont = body.metadata?.continue ?? '';
  } while (cont !== '');
  return out;
}

function podProblems(n: SimNode, pods: Map<string, Listed>, perNode: number): string[] {
  const problems: string[] = [];
  if (n.ackedPods.size !== perNode)
    problems.push(`${n.name}: ${n.ackedPods.size} of ${perNode} pods acknowledged Running`);
  for (const [name, acked] of n.ackedPods) {
    const p = pods.get(name);
    const spec = (p?.item['spec'] ?? {}) as Record<string, unknown>;
    const status = (p?.item['status'] ?? {}) as Record<string, unknown>;
    if (p === undefined) problems.push(`pod ${name}: acknowledged at ${acked}, not listed`);
    else if (rvNewer(acked, p.rv))
      problems.push(`pod ${name}: acknowledged at ${acked}, listed at older ${p.rv}`);
    else if (status['phase'] !== 'Running' || spec['nodeName'] !== n.name)
      problems.push(
        `pod ${name}: listed ${String(status['phase'])} on ${String(spec['nodeName'])}`,
      );
  }
  return problems;
}

/** The listed pods by the node they are bound to (read once per check, not once per node). */
function byNode(pods: Map<string, Listed>): Map<string, Listed[]> {
  const out = new Map<string, Listed[]>();
  for (const p of pods.values()) {
    const node = String(((p.item['spec'] ?? {}) as Record<string, unknown>)['nodeName'] ?? '');
    const list = out.get(node);
    if (list === undefined) out.set(node, [p]);
    else list.push(p);
  }
  return out;
}

function watchProblems(n: SimNode, bound: readonly Listed[]): string[] {
  const w = n.watch;
  if (w === undefined) return [`${n.name}: no watch`];
  const problems: string[] = [];
  const c = w.counts;
  if (c.outOfOrder > 0)
    problems.push(
      `${n.name}: ${c.outOfOrder} watch events out of order (${c.disorder.join('; ')})`,
    );
  if (c.foreign > 0) problems.push(`${n.name}: ${c.foreign} pods of other nodes in its watch`);
  if (bound.length !== w.pods.size)
    problems.push(
      `${n.name}: its watch holds ${w.pods.size} pods, ${bound.length} are bound to it`,
    );
  for (const p of bound) {
    const seen = w.pods.get(p.name);
    if (seen?.rv !== p.rv)
      problems.push(`${n.name}: watch has ${p.name} at ${seen?.rv ?? 'none'}, listed at ${p.rv}`);
  }
  return problems;
}

/** True once every node's watch holds every listed pod at its listed version. */
function watchesCaughtUp(fleet: Fleet, bound: Map<string, Listed[]>): boolean {
  return fleet.nodes.every((n) => watchProblems(n, bound.get(n.name) ?? []).length === 0);
}

function condition(item: Record<string, unknown>, type: string): Record<string, unknown> {
  const status = (item['status'] ?? {}) as { conditions?: Record<string, unknown>[] };
  return (status.conditions ?? []).find((c) => c['type'] === type) ?? {};
}

async function heartbeatProblems(
  fleet: Fleet,
  client: SimClient,
  runId: string,
): Promise<string[]> {
  const sel = `labelSelector=${encodeURIComponent(`bench-run=${runId}`)}`;
  const leases = await listAll(
    client,
    `/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases?${sel}`,
  );
  const nodes = await listAll(client, `/api/v1/nodes?${sel}`);
  const problems: string[] = [];
  for (const n of fleet.nodes) {
    const renew = ((leases.get(n.name)?.item['spec'] ?? {}) as Record<string, unknown>)[
      'renewTime'
    ];
    if (renew !== n.ackedRenew)
      problems.push(`lease ${n.name}: renewTime ${String(renew)}, acknowledged ${n.ackedRenew}`);
    const ready = condition(nodes.get(n.name)?.item ?? {}, 'Ready');
    if (ready['lastHeartbeatTime'] !== n.ackedHeartbeat || ready['status'] !== 'True')
      problems.push(
        `node ${n.name}: Ready ${String(ready['status'])} at ${String(ready['lastHeartbeatTime'])}, acknowledged ${n.ackedHeartbeat}`,
      );
  }
  return problems;
}

/**
 * Checks the fleet (heartbeats stopped, writes settled) against what the server lists. Waits up
 * to `catchUpMs` for the watches to deliver the last writes before it judges them.
 */
export async function checkRun(
  fleet: Fleet,
  client: SimClient,
  ns: string,
  runId: string,
  perNode: number,
  catchUpMs: number,
): Promise<string[]> {
  const pods = await listAll(client, `/api/v1/namespaces/${ns}/pods`);
  const bound = byNode(pods);
  const deadline = Date.now() + catchUpMs;
  while (!watchesCaughtUp(fleet, bound) && Date.now() < deadline)
    await new Promise((r) => setTimeout(r, 200));
  const problems = fleet.nodes.flatMap((n) => [
    ...podProblems(n, pods, perNode),
    ...watchProblems(n, bound.get(n.name) ?? []),
  ]);
  return [...problems, ...(await heartbeatProblems(fleet, client, runId))];
}
