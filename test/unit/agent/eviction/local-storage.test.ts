// --local-storage-capacity-isolation: the reference's localStorageEviction. Each monitoring
// interval, before any threshold, a pod over its emptyDir sizeLimit, over the sum of its
// containers' ephemeral-storage limits, or with a container over its own limit is evicted at once
// (grace 0) with the reference's message; false disables it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ManualClock } from '../../../helpers/manual-clock.js';
import { recordingLogger } from '../../../helpers/recording-logger.js';
import { EvictionManager, type EvictionCandidate } from '../../../../src/agent/eviction/manager.js';
import {
  localStorageLimits,
  podEphemeralLimit,
  type PodStorageUsage,
} from '../../../../src/agent/eviction/local-storage.js';
import type { Pod } from '../../../../src/agent/pod/types.js';

const Ki = 1024;
const Mi = 1024 * Ki;

function pod(uid: string, spec: Record<string, unknown>, priority = 0): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { uid, name: uid, namespace: 'default' },
    spec: { priority, ...spec },
  } as unknown as Pod;
}
const limit = (q: string): Record<string, unknown> => ({ limits: { 'ephemeral-storage': q } });

const PODS: readonly Pod[] = [
  pod('cache-pod', {
    volumes: [{ name: 'scratch', emptyDir: { sizeLimit: '1Mi' } }],
    containers: [{ name: 'c', image: 'i' }],
  }),
  pod('total-pod', {
    volumes: [{ name: 'data', emptyDir: {} }],
    containers: [
      { name: 'a', image: 'i', resources: limit('1Mi') },
      { name: 'b', image: 'i', resources: limit('1024Ki') },
    ],
  }),
  pod('container-pod', {
    containers: [
      { name: 'app', image: 'i', resources: limit('100Ki') },
      { name: 'side', image: 'i', resources: limit('1Mi') },
    ],
  }),
  pod(
    'critical-pod',
    {
      volumes: [{ name: 'scratch', emptyDir: { sizeLimit: '1Ki' } }],
      containers: [{ name: 'c', image: 'i' }],
    },
    2_000_000_000,
  ),
];

function harness(enabled: boolean): {
  manager: EvictionManager;
  usage: Map<string, PodStorageUsage>;
  evicted: { name: string; grace: number; message: string }[];
  events: string[];
  clock: ManualClock;
} {
  const clock = new ManualClock();
  const usage = new Map<string, PodStorageUsage>([
    ['cache-pod', { volumes: { scratch: 512 * Ki }, containers: {} }],
    ['total-pod', { volumes: { data: Mi }, containers: {} }],
    ['container-pod', { volumes: {}, containers: { app: 50 * Ki } }],
    ['critical-pod', { volumes: { scratch: Mi }, containers: {} }],
  ]);
  const evicted: { name: string; grace: number; message: string }[] = [];
  const candidates = (): EvictionCandidate[] =>
    PODS.filter((p) => !evicted.some((e) => e.name === p.metadata.name)).map((p) => ({
      uid: p.metadata.uid,
      namespace: 'default',
      name: p.metadata.name,
      priority: p.spec.priority ?? 0,
      gracePeriodSeconds: 30,
      critical: (p.spec.priority ?? 0) >= 2_000_000_000,
    }));
  const localStorage = localStorageLimits(enabled, {
    candidates,
    pod: (uid) => PODS.find((p) => p.metadata.uid === uid),
    usage: (uid) => usage.get(uid),
  });
  const events: string[] = [];
  const manager = new EvictionManager({
    thresholds: [],
    observer: { observe: () => Promise.resolve(new Map()) },
    pods: {
      candidates,
      evict: (p, o) =>
        Promise.resolve(
          void evicted.push({ name: p.name, grace: o.gracePeriodSeconds, message: o.message }),
        ),
    },
    clock,
    logger: recordingLogger(),
    pressureTransitionPeriodMs: 300_000,
    maxPodGracePeriodSeconds: -1,
    events: {
      event: (o, type, reason, message) => events.push(`${o.name} ${type} ${reason} ${message}`),
    },
    ...(localStorage !== undefined ? { localStorage } : {}),
  });
  return { manager, usage, evicted, events, clock };
}

/** Resolves once the manager waits for its next monitoring interval (an eviction's timeout is a sleep too). */
async function passDone(clock: ManualClock): Promise<void> {
  for (;;) {
    await clock.waitForSleepers(1);
    if (clock.pendingSleepers === 1 && clock.sleeps.at(-1) === 10_000) return;
    await new Promise((r) => setImmediate(r));
  }
}

function overLimits(usage: Map<string, PodStorageUsage>): void {
  usage.set('cache-pod', { volumes: { scratch: Mi + 1 }, containers: {} });
  usage.set('total-pod', { volumes: { data: Mi }, containers: { a: Mi, b: 1 } });
  usage.set('container-pod', { volumes: {}, containers: { app: 101 * Ki, side: 0 } });
}

test('--local-storage-capacity-isolation: pods over an emptyDir sizeLimit, the pod total or a container limit are evicted with the reference messages', async () => {
  const h = harness(true);
  const ac = new AbortController();
  const running = h.manager.run(ac.signal);
  await passDone(h.clock);
  assert.deepEqual(h.evicted, [], 'all pods within their limits');
  overLimits(h.usage);
  h.clock.advance(9_999);
  assert.deepEqual(h.evicted, [], 'nothing before the next monitoring interval');
  h.clock.advance(1);
  await passDone(h.clock);
  assert.deepEqual(h.evicted, [
    {
      name: 'cache-pod',
      grace: 0,
      message: 'Usage of EmptyDir volume "scratch" exceeds the limit "1Mi". ',
    },
    {
      name: 'total-pod',
      grace: 0,
      message: 'Pod ephemeral local storage usage exceeds the total limit of containers 2Mi. ',
    },
    {
      name: 'container-pod',
      grace: 0,
      message: 'Container app exceeded its local ephemeral storage limit "100Ki". ',
    },
  ]);
  assert.ok(
    h.events.includes(
      'cache-pod Warning Evicted Usage of EmptyDir volume "scratch" exceeds the limit "1Mi". ',
    ),
  );
  assert.equal(h.evicted.length, 3, 'a critical pod is never evicted');
  ac.abort();
  await running;
});

test('--local-storage-capacity-isolation=false: the same usage evicts nothing', async () => {
  const h = harness(false);
  overLimits(h.usage);
  const ac = new AbortController();
  const running = h.manager.run(ac.signal);
  for (let i = 0; i < 3; i++) {
    await passDone(h.clock);
    h.clock.advance(10_000);
  }
  await passDone(h.clock);
  assert.deepEqual(h.evicted, []);
  ac.abort();
  await running;
});

test("the pod ephemeral-storage limit is the sum of the containers, at least each init container, in the first one's format", () => {
  assert.deepEqual(
    podEphemeralLimit(
      pod('p', {
        containers: [
          { name: 'a', resources: limit('1Mi') },
          { name: 'b', resources: limit('1Mi') },
        ],
        initContainers: [{ name: 'i', resources: limit('3Mi') }],
      }),
    ),
    { bytes: 3 * Mi, text: '3Mi' },
  );
  assert.deepEqual(
    podEphemeralLimit(
      pod('p', { containers: [{ name: 'a', resources: limit('1G') }, { name: 'b' }] }),
    ),
    { bytes: 1e9, text: '1G' },
  );
  assert.equal(podEphemeralLimit(pod('p', { containers: [{ name: 'a' }] })), undefined);
});
