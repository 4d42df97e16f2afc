// The simulator's workload: `perNode` pods for each node, created through the API and bound by
// the simulator (pods/binding, as a scheduler binds), the nodes taken in turn so that every node
// fills at the same pace, `concurrency` pods at a time. `command` is the container's (real agents
// on process:// run it).

import type { SimClient } from './node-sim-calls.js';
import type { SimNode } from './node-sim-fleet.js';
import { bindingObject, podObject } from './node-sim-objects.js';

export async function createAndBind(
  client: SimClient,
  nodes: readonly SimNode[],
  ns: string,
  runId: string,
  perNode: number,
  concurrency: number,
  command?: readonly string[],
): Promise<void> {
  const total = nodes.length * perNode;
  let next = 0;
  const worker = async (): Promise<void> => {
    for (let k = next++; k < total; k = next++) {
      const node = nodes[k % nodes.length];
      if (node === undefined) continue;
      const name = `${node.name}-${Math.floor(k / nodes.length)}`;
      await client.call('pod create', 'mutating', {
        method: 'POST',
        path: `/api/v1/namespaces/${ns}/pods`,
        body: podObject(name, ns, runId, command, node.name),
      });
      await client.call('pod binding', 'mutating', {
        method: 'POST',
        path: `/api/v1/namespaces/${ns}/pods/${name}/binding`,
        body: bindingObject(name, ns, node.name),
      });
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}
