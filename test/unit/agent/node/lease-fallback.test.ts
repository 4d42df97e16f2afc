// The heartbeat split, on the manual clock: while the node lease is renewed, an unchanged node
// status is sent only every nodeStatusReportFrequency (5m); against a server that answers 404 on
// the lease resource (an older server, as before leases) the agent warns once and sends the
// status every nodeStatusUpdateFrequency (10s), as the reference did before leases; when the lease
// API appears, the lease is the heartbeat again and the status goes back to the long period.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError } from '../../../../src/common/util/errors.js';
import {
  NodeLeaseController,
  type Lease,
  type LeaseApi,
} from '../../../../src/agent/node/lease.js';
import { NodeStatusManager } from '../../../../src/agent/node/status-manager.js';
import type { Node, NodeApi } from '../../../../src/agent/node/types.js';
import { ManualClock } from '../../../helpers/manual-clock.js';
import { recordingLogger } from '../../../helpers/recording-logger.js';
import { fixedNodeSources } from '../../../helpers/node-status-sources.js';

class Leases implements LeaseApi {
  readonly group = 'coordination.k8s.io';
  served = false;
  private stored: Lease | undefined;
  private answer<T>(v: () => T): Promise<T> {
    if (!this.served)
      return Promise.reject(
        new ApiError('the server could not find the requested resource', {
          status: 404,
          reason: 'NotFound',
        }),
      );
    return Promise.resolve(v());
  }
  get(): Promise<Lease> {
    if (this.served && this.stored === undefined)
      return Promise.reject(
        new ApiError('leases "n1" not found', { status: 404, reason: 'NotFound' }),
      );
    return this.answer(() => structuredClone(this.stored as Lease));
  }
  create(obj: Lease): Promise<Lease> {
    return this.answer(() => (this.stored = structuredClone(obj)));
  }
  update(obj: Lease): Promise<Lease> {
    return this.answer(() => (this.stored = structuredClone(obj)));
  }
}

class Nodes implements NodeApi {
  statusAt: number[] = [];
  constructor(private readonly clock: ManualClock) {}
  get(): Promise<Node> {
    return Promise.reject(new Error('not used'));
  }
  create(n: Node): Promise<Node> {
    return Promise.resolve(n);
  }
  patch(): Promise<Node> {
    return Promise.resolve({} as Node);
  }
  patchStatus(): Promise<Node> {
    this.statusAt.push(this.clock.nowMs());
    return Promise.resolve({} as Node);
  }
}

function setup(): {
  clock: ManualClock;
  leases: Leases;
  nodes: Nodes;
  lines: ReturnType<typeof recordingLogger>['lines'];
  start(signal: AbortSignal): Promise<unknown>;
} {
  const clock = new ManualClock();
  const leases = new Leases();
  const nodes = new Nodes(clock);
  const logger = recordingLogger();
  const lease = new NodeLeaseController({
    leases,
    nodeUid: () => Promise.resolve('uid-1'),
    nodeName: 'n1',
    namespace: 'kube-node-lease',
    durationSeconds: 40,
    clock,
    logger,
  });
  const status = new NodeStatusManager({
    api: nodes,
    clock,
    logger,
    nodeName: 'n1',
    updateFrequencyMs: 10_000,
    reportFrequencyMs: 5 * 60_000,
    leaseActive: () => lease.active(),
    maxImages: -1,
    daemonPort: 10250,
    sources: fixedNodeSources(),
  });
  return {
    clock,
    leases,
    nodes,
    lines: logger.lines,
    start: (signal) => Promise.all([lease.run(signal), status.run(signal)]),
  };
}

/** Advances the clock 10 s at a time for `seconds`, each time once both loops sleep again. */
async function run(clock: ManualClock, seconds: number): Promise<void> {
  for (let s = 0; s < seconds; s += 10) {
    await clock.waitForSleepers(2);
    clock.advance(10_000);
  }
  await clock.waitForSleepers(2);
}

test('lease API 404: warned once, the unchanged status sent every nodeStatusUpdateFrequency; lease served: every nodeStatusReportFrequency', async () => {
  const { clock, leases, nodes, lines, start } = setup();
  const stop = new AbortController();
  const loops = start(stop.signal);
  const t0 = clock.nowMs();
  await run(clock, 60);
  // 404: one send per 10 s tick (t = 0, 10, ..., 60 s), the warning once.
  assert.deepEqual(
    nodes.statusAt.map((t) => (t - t0) / 1000),
    [0, 10, 20, 30, 40, 50, 60],
  );
  const fallback = lines.filter((l) => l.level === 'warn');
  assert.equal(fallback.length, 1, JSON.stringify(fallback));
  assert.match(
    fallback[0]?.msg ?? '',
    /does not serve node leases \(404\): falling back to node status updates every nodeStatusUpdateFrequency/,
  );

  // The server learns leases: the lease is the heartbeat again (said once); the unchanged status
  // is then sent only when 5 minutes have passed since the last send.
  leases.served = true;
  const before = nodes.statusAt.length;
  const t1 = clock.nowMs();
  await run(clock, 6 * 60);
  assert.ok(lines.some((l) => l.msg === 'node lease created: the lease is the heartbeat again'));
  const later = nodes.statusAt.slice(before).map((t) => (t - t1) / 1000);
  // The first tick may still race the first renewal (sent at 10 s); from then on, an unchanged
  // status waits 5 minutes after the last send: [10, 310], or [300] after the send at t1.
  assert.ok(
    [[10, 310], [300]].some((want) => JSON.stringify(want) === JSON.stringify(later)),
    `sends after the lease returned (s): ${later.join(', ')}`,
  );
  stop.abort();
  await loops;
});
