// A lease renewal that reads the Node (its uid, for the owner reference) while the API server is
// away ends on the stop signal: the read carries it, so the agent's stop does not wait for it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError } from '../../../../src/common/util/errors.js';
import {
  NodeLeaseController,
  type Lease,
  type LeaseApi,
} from '../../../../src/agent/node/lease.js';
import { ManualClock } from '../../../helpers/manual-clock.js';
import { recordingLogger } from '../../../helpers/recording-logger.js';

/** A call to a server that never answers: it settles only when its signal aborts. */
function unanswered<T>(signal: AbortSignal | undefined): Promise<T> {
  if (signal?.aborted === true) return Promise.reject(signal.reason as Error);
  return new Promise<T>((_resolve, reject) =>
    signal?.addEventListener('abort', () => reject(signal.reason as Error), { once: true }),
  );
}

test('the Node read of a lease renewal carries the stop signal: the loop ends when it aborts', async () => {
  const signals: (AbortSignal | undefined)[] = [];
  const leases: LeaseApi = {
    group: 'coordination.k8s.io',
    // no lease yet: the renewal creates one, and reads the Node for its owner reference first
    get: () =>
      Promise.reject(new ApiError('leases "n1" not found', { status: 404, reason: 'NotFound' })),
    create: (_obj, o) => unanswered<Lease>(o.signal),
    update: (_obj, o) => unanswered<Lease>(o.signal),
  };
  const lease = new NodeLeaseController({
    leases,
    nodeUid: (signal) => {
      signals.push(signal);
      return unanswered<string>(signal);
    },
    nodeName: 'n1',
    namespace: 'kube-node-lease',
    durationSeconds: 40,
    clock: new ManualClock(),
    logger: recordingLogger(),
  });
  const stop = new AbortController();
  let ended = false;
  const run = lease.run(stop.signal).then(() => (ended = true));
  // the renewal reads the Node: it waits for the server
  while (signals.length === 0) await new Promise((r) => setImmediate(r));
  assert.equal(signals[0], stop.signal);
  stop.abort();
  await run;
  assert.equal(ended, true);
  assert.equal(lease.failures, 0, 'a renewal the stop ended is not a failure');
});
