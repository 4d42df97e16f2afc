// The node lease controller against a fake lease API and the manual clock: created when missing
// with the reference's fields, renewed every quarter of its duration, retried with a doubling
// back-off while the API server is away, and a 404 from a server without leases warned once.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError } from '../../../../src/common/util/errors.js';
import {
  NodeLeaseController,
  microTime,
  type Lease,
  type LeaseApi,
} from '../../../../src/agent/node/lease.js';
import { ManualClock } from '../../../helpers/manual-clock.js';
import { recordingLogger } from '../../../helpers/recording-logger.js';

const notFound = (): ApiError =>
  new ApiError('leases "n1" not found', { status: 404, reason: 'NotFound' });

class FakeLeases implements LeaseApi {
  readonly group = 'coordination.k8s.io';
  stored: Lease | undefined;
  down = false;
  /** A server without the lease resource: every call answers 404. */
  noResource = false;
  calls: string[] = [];
  private check(op: string): void {
    this.calls.push(op);
    if (this.down) throw new Error('connect ECONNREFUSED 127.0.0.1:6443');
    if (this.noResource) throw notFound();
  }
  get(): Promise<Lease> {
    this.check('get');
    if (this.stored === undefined) return Promise.reject(notFound());
    return Promise.resolve(structuredClone(this.stored));
  }
  create(obj: Lease): Promise<Lease> {
    this.check('create');
    this.stored = structuredClone(obj);
    return Promise.resolve(structuredClone(obj));
  }
  /** The next update answers 409, as when another writer changed the lease. */
  conflictOnce = false;
  update(obj: Lease): Promise<Lease> {
    this.check('update');
    if (this.conflictOnce) {
      this.conflictOnce = false;
      return Promise.reject(new ApiError('conflict', { status: 409, reason: 'Conflict' }));
    }
    this.stored = structuredClone(obj);
    return Promise.resolve(structuredClone(obj));
  }
}

function setup(nodeUid: () => Promise<string | undefined> = () => Promise.resolve('uid-1')): {
  clock: ManualClock;
  api: FakeLeases;
  lines: ReturnType<typeof recordingLogger>['lines'];
  lease: NodeLeaseController;
} {
  const clock = new ManualClock();
  const api = new FakeLeases();
  const logger = recordingLogger();
  const lease = new NodeLeaseController({
    leases: api,
    nodeUid,
    nodeName: 'n1',
    namespace: 'kube-node-lease',
    durationSeconds: 40,
    clock,
    logger,
  });
  return { clock, api, lines: logger.lines, lease };
}

test('microTime: RFC 3339 with six fractional digits, as the reference MicroTime', () => {
  assert.equal(microTime(Date.UTC(2026, 0, 1, 10, 0, 0, 123)), '2026-01-01T10:00:00.123000Z');
});

test('the lease is created with the reference fields, then renewed every quarter of its duration', async () => {
  const { clock, api, lease } = setup();
  const stop = new AbortController();
  const run = lease.run(stop.signal);
  await clock.waitForSleepers();
  assert.deepEqual(api.stored, {
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: {
      name: 'n1',
      namespace: 'kube-node-lease',
      ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: 'n1', uid: 'uid-1' }],
    },
    spec: {
      holderIdentity: 'n1',
      leaseDurationSeconds: 40,
      renewTime: '2026-01-01T00:00:00.000000Z',
    },
  });
  assert.equal(lease.active(), true);
  clock.advance(9_999);
  assert.deepEqual(api.calls, ['get', 'create']);
  clock.advance(1);
  await clock.waitForSleepers();
  assert.deepEqual(api.calls, ['get', 'create', 'update']);
  assert.equal(api.stored?.spec?.renewTime, '2026-01-01T00:00:10.000000Z');
  stop.abort();
  await run;
});

test('the API server away: retries 200 ms doubling to 7 s, the lease resumes when it returns', async () => {
  const { clock, api, lease, lines } = setup();
  api.down = true;
  const stop = new AbortController();
  const run = lease.run(stop.signal);
  const waits: number[] = [];
  for (let i = 0; i < 8; i++) {
    await clock.waitForSleepers();
    const before = clock.nowMs();
    const calls = api.calls.length;
    // Advance 100 ms at a time until the next attempt: the wait the controller chose.
    while (api.calls.length === calls) {
      clock.advance(100);
      await clock.waitForSleepers().catch(() => undefined);
    }
    waits.push(clock.nowMs() - before);
  }
  assert.deepEqual(waits, [200, 400, 800, 1600, 3200, 6400, 7000, 7000]);
  assert.ok(
    lines.some(
      (l) => l.level === 'warn' && /failed to renew the node lease, will retry/.test(l.msg),
    ),
  );
  assert.equal(lease.active(), false);
  api.down = false;
  clock.advance(7_000);
  await clock.waitForSleepers();
  assert.equal(lease.active(), true);
  assert.equal(api.stored?.spec?.holderIdentity, 'n1');
  stop.abort();
  await run;
});

test('a server without the lease API (404): warned once, tried again each interval, never active', async () => {
  const { clock, api, lease, lines } = setup();
  api.noResource = true;
  const stop = new AbortController();
  const run = lease.run(stop.signal);
  for (let i = 0; i < 3; i++) {
    await clock.waitForSleepers();
    clock.advance(10_000);
  }
  await clock.waitForSleepers();
  const warnings = lines.filter((l) => l.level === 'warn');
  assert.equal(warnings.length, 1);
  assert.match(
    warnings[0]?.msg ?? '',
    /does not serve node leases \(404\): falling back to node status updates every nodeStatusUpdateFrequency/,
  );
  assert.equal(api.calls.filter((c) => c === 'create').length, 4);
  assert.equal(lease.active(), false);
  stop.abort();
  await run;
});

test('the Node is read for the owner reference only while the lease has none, as the reference sets it', async () => {
  let reads = 0;
  let fail = true;
  const { clock, api, lease, lines } = setup(() => {
    reads++;
    return fail ? Promise.reject(new Error('connect ECONNREFUSED')) : Promise.resolve('uid-1');
  });
  const stop = new AbortController();
  const run = lease.run(stop.signal);
  await clock.waitForSleepers();
  // The node could not be read: the lease is created without an owner, and that is said.
  assert.equal(api.stored?.metadata?.ownerReferences, undefined);
  assert.deepEqual(
    lines.filter((l) => l.level === 'warn').map((l) => l.msg),
    ["failed to read the node for the lease's owner reference; renewing without it"],
  );
  fail = false;
  for (let i = 0; i < 4; i++) {
    clock.advance(10_000);
    await clock.waitForSleepers();
  }
  // The first renewal after it reads the node and sets the owner; the three after it do not read.
  assert.equal(reads, 2);
  assert.deepEqual(api.stored?.metadata?.ownerReferences, [
    { apiVersion: 'v1', kind: 'Node', name: 'n1', uid: 'uid-1' },
  ]);
  assert.deepEqual(api.calls, ['get', 'create', 'update', 'update', 'update', 'update']);
  // An owner someone else set is kept as it is, without a read.
  api.stored = {
    ...api.stored,
    metadata: {
      ...api.stored?.metadata,
      ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: 'n1', uid: 'other' }],
    },
  };
  api.conflictOnce = true; // the renewal reads the lease again and renews what it found
  clock.advance(10_000);
  await clock.waitForSleepers();
  assert.equal(reads, 2);
  assert.deepEqual(api.stored.metadata?.ownerReferences, [
    { apiVersion: 'v1', kind: 'Node', name: 'n1', uid: 'other' },
  ]);
  stop.abort();
  await run;
});
