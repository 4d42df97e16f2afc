// A node that disappears from the API server while the lease is the heartbeat (an in-memory
// plat-apiserver restarted empty, or `kubectl delete node`): the unchanged status is not due for
// 5 minutes, but each update period reads the Node, as the reference's tryUpdateNodeStatus reads
// it every nodeStatusUpdateFrequency before deciding to patch, so the agent registers it again
// at the next update (10 s), saying why, instead of at the next report.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError } from '../../../../src/common/util/errors.js';
import { NodeStatusManager } from '../../../../src/agent/node/status-manager.js';
import type { Node, NodeApi } from '../../../../src/agent/node/types.js';
import { ManualClock } from '../../../helpers/manual-clock.js';
import { recordingLogger } from '../../../helpers/recording-logger.js';
import { fixedNodeSources } from '../../../helpers/node-status-sources.js';

class Nodes implements NodeApi {
  present = true;
  gets = 0;
  /** How each read asked: from the server's cache (resourceVersion=0) or not. */
  cachedReads: boolean[] = [];
  statusSends = 0;
  get(_name: string, _signal?: AbortSignal, opts?: { cached?: boolean }): Promise<Node> {
    this.gets++;
    this.cachedReads.push(opts?.cached === true);
    if (this.present) return Promise.resolve({ metadata: { name: 'n1' } });
    return Promise.reject(
      new ApiError('nodes "n1" not found', { status: 404, reason: 'NotFound' }),
    );
  }
  create(n: Node): Promise<Node> {
    return Promise.resolve(n);
  }
  patch(n: unknown): Promise<Node> {
    return Promise.resolve(n as Node);
  }
  patchStatus(): Promise<Node> {
    this.statusSends++;
    return Promise.resolve({ metadata: { name: 'n1' } });
  }
}

function manager(nodes: Nodes, clock: ManualClock, registeredAt: number[]) {
  const logger = recordingLogger();
  const status = new NodeStatusManager({
    api: nodes,
    clock,
    logger,
    nodeName: 'n1',
    updateFrequencyMs: 10_000,
    reportFrequencyMs: 5 * 60_000,
    leaseActive: () => true,
    maxImages: -1,
    daemonPort: 10250,
    reregister: () => {
      registeredAt.push(clock.nowMs());
      nodes.present = true;
      return Promise.resolve();
    },
    sources: fixedNodeSources(),
  });
  return { status, lines: logger.lines };
}

test('a node gone from the API server under a live lease is registered again at the next update, not the next report', async () => {
  const clock = new ManualClock();
  const nodes = new Nodes();
  const registeredAt: number[] = [];
  const { status, lines } = manager(nodes, clock, registeredAt);
  const stop = new AbortController();
  const loop = status.run(stop.signal);
  const t0 = clock.nowMs();
  for (let s = 0; s < 30; s += 10) {
    await clock.waitForSleepers(1);
    clock.advance(10_000);
  }
  await clock.waitForSleepers(1);
  // t = 0: the first status sent; 10, 20, 30 s: nothing due, the Node read each time.
  assert.equal(nodes.statusSends, 1);
  assert.equal(nodes.gets, 3);
  // The reference's first try reads with resourceVersion=0 (its watch cache answers).
  assert.deepEqual(nodes.cachedReads, [true, true, true]);
  assert.deepEqual(registeredAt, []);
  nodes.present = false; // the server restarted empty
  clock.advance(10_000);
  await clock.waitForSleepers(1);
  assert.deepEqual(
    registeredAt.map((t) => (t - t0) / 1000),
    [40],
    'registered again at the first update after the node went',
  );
  const said = lines.filter((l) => l.level === 'warn').map((l) => l.msg);
  assert.deepEqual(said, [
    'node not found on the API server (deleted, or the server lost its data); registering it again',
  ]);
  stop.abort();
  await loop;
});
