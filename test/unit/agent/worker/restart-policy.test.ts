import { test } from 'node:test';
import assert from 'node:assert/strict';
import { makeWorld, pod } from './harness.js';

test('restartPolicy Always: crash-loop back-off 10 s doubling to 5 min, reset after 10 min of running', async () => {
  const w = makeWorld();
  const p = pod('u1', { containers: [{ name: 'app', command: ['crash'] }] });
  w.manager.handleUpdate({ op: 'ADD', source: 'file', pods: [p] });
  await w.settle();
  assert.equal(w.statuses.status('u1')?.phase, 'Running');
  // first crash: restarted at once
  w.runtime.exit(w.runtime.running('app')!.id, 1);
  await w.settle();
  assert.ok(w.runtime.running('app'), 'first restart is immediate');
  const delays: number[] = [];
  for (let i = 0; i < 7; i++) {
    w.runtime.exit(w.runtime.running('app')!.id, 1);
    await w.settle();
    assert.equal(w.runtime.running('app'), undefined, 'no tight loop: waits for the back-off');
    const st = w.statuses.status('u1')!.containerStatuses[0]!;
    assert.equal(st.state.waiting?.reason, 'CrashLoopBackOff');
    assert.equal(st.lastState.terminated?.exitCode, 1);
    let waited = 0;
    while (!w.runtime.running('app') && waited < 400_000) {
      await w.advance(1000);
      waited += 1000;
    }
    delays.push(waited);
  }
  assert.deepEqual(delays, [10_000, 20_000, 40_000, 80_000, 160_000, 300_000, 300_000]);
  assert.equal(w.statuses.status('u1')!.containerStatuses[0]!.restartCount, 8);
  // ran 10 minutes: the back-off starts over (restart at once)
  await w.advance(600_000);
  w.runtime.exit(w.runtime.running('app')!.id, 1);
  await w.settle();
  assert.ok(w.runtime.running('app'), 'restarted at once after a long run');
});

test('restartPolicy OnFailure and Never: phases Succeeded and Failed, no restarts', async () => {
  const w = makeWorld();
  w.manager.handleUpdate({
    op: 'ADD',
    source: 'file',
    pods: [
      pod('ok', { restartPolicy: 'OnFailure', containers: [{ name: 'a', command: ['x'] }] }),
      pod('bad', { restartPolicy: 'Never', containers: [{ name: 'b', command: ['x'] }] }),
      pod('retry', { restartPolicy: 'OnFailure', containers: [{ name: 'c', command: ['x'] }] }),
    ],
  });
  await w.settle();
  w.runtime.exit(w.runtime.running('a')!.id, 0);
  w.runtime.exit(w.runtime.running('b')!.id, 2);
  w.runtime.exit(w.runtime.running('c')!.id, 2);
  await w.settle();
  assert.equal(w.statuses.status('ok')?.phase, 'Succeeded');
  assert.equal(w.statuses.status('bad')?.phase, 'Failed');
  assert.equal(w.statuses.status('bad')?.containerStatuses[0]?.state.terminated?.exitCode, 2);
  assert.equal(w.statuses.status('retry')?.phase, 'Running');
  assert.ok(w.runtime.running('c'), 'OnFailure restarts a failed container');
  assert.equal(w.runtime.instances('a').length, 1);
  assert.equal(w.runtime.instances('b').length, 1);
  // a periodic sync leaves finished pods alone
  w.manager.resync('ok');
  await w.settle();
  assert.equal(w.runtime.instances('a').length, 1);
});

test('init containers run in order before app containers; a failed init with Never fails the pod', async () => {
  const w = makeWorld();
  w.manager.handleUpdate({
    op: 'ADD',
    source: 'file',
    pods: [
      pod('i', {
        initContainers: [
          { name: 'init1', command: ['x'] },
          { name: 'init2', command: ['x'] },
        ],
        containers: [{ name: 'main', command: ['x'] }],
      }),
    ],
  });
  await w.settle();
  assert.ok(w.runtime.running('init1'));
  assert.equal(w.runtime.instances('init2').length, 0);
  assert.equal(w.runtime.instances('main').length, 0);
  assert.equal(w.statuses.status('i')?.phase, 'Pending');
  assert.equal(
    w.statuses.status('i')?.containerStatuses[0]?.state.waiting?.reason,
    'PodInitializing',
  );
  w.runtime.exit(w.runtime.running('init1')!.id, 0);
  await w.settle();
  assert.ok(w.runtime.running('init2'));
  assert.equal(w.runtime.instances('main').length, 0);
  w.runtime.exit(w.runtime.running('init2')!.id, 0);
  await w.settle();
  assert.ok(w.runtime.running('main'));
  const st = w.statuses.status('i')!;
  assert.equal(st.phase, 'Running');
  assert.equal(st.conditions.find((c) => c.type === 'Initialized')?.status, 'True');

  w.manager.handleUpdate({
    op: 'ADD',
    source: 'file',
    pods: [
      pod('f', {
        restartPolicy: 'Never',
        initContainers: [{ name: 'setup', command: ['x'] }],
        containers: [{ name: 'never', command: ['x'] }],
      }),
    ],
  });
  await w.settle();
  w.runtime.exit(w.runtime.running('setup')!.id, 1);
  await w.settle();
  assert.equal(w.statuses.status('f')?.phase, 'Failed');
  assert.equal(w.runtime.instances('never').length, 0);
});

test('removal terminates with the grace period and removes everything; over capacity is rejected', async () => {
  const w = makeWorld({ capacity: 1 });
  const a = pod('a', {
    terminationGracePeriodSeconds: 7,
    containers: [{ name: 'x', command: ['x'] }],
  });
  const b = pod('b', { containers: [{ name: 'y', command: ['x'] }] });
  w.manager.handleUpdate({ op: 'ADD', source: 'file', pods: [a, b] });
  await w.settle();
  assert.ok(w.runtime.running('x'));
  assert.equal(w.runtime.instances('y').length, 0);
  const rej = w.statuses.status('b');
  assert.equal(rej?.phase, 'Failed');
  assert.equal(rej?.reason, 'OutOfpods');
  assert.match(rej?.message ?? '', /used: 1, capacity: 1/);
  w.manager.handleUpdate({ op: 'REMOVE', source: 'file', pods: [a] });
  await w.settle();
  assert.deepEqual(
    w.runtime.stops.filter((s) => s.grace !== 7 && w.runtime.containers.has(s.id)),
    [],
  );
  assert.ok(w.runtime.stops.some((s) => s.grace === 7));
  assert.equal(w.runtime.containers.size, 0);
  assert.equal(w.statuses.status('a'), undefined);
});

test("image pull failures: ErrImagePull, then ImagePullBackOff, each attempt's events once on the pod", async () => {
  const w = makeWorld();
  w.runtime.type = 'docker';
  w.runtime.failPulls = true;
  const events: string[] = [];
  w.statuses.onPodEvent((e) =>
    events.push(`${e.pod.metadata.name} ${e.fieldPath ?? ''} ${e.reason}: ${e.message}`),
  );
  w.manager.handleUpdate({
    op: 'ADD',
    source: 'file',
    pods: [
      pod('img', {
        containers: [{ name: 'c', image: 'example.com/x:1', imagePullPolicy: 'Always' }],
      }),
    ],
  });
  await w.settle();
  assert.equal(
    w.statuses.status('img')?.containerStatuses[0]?.state.waiting?.reason,
    'ErrImagePull',
  );
  w.manager.resync('img');
  await w.settle();
  assert.equal(
    w.statuses.status('img')?.containerStatuses[0]?.state.waiting?.reason,
    'ImagePullBackOff',
  );
  w.runtime.failPulls = false;
  await w.advance(10_000);
  assert.ok(w.runtime.running('c'));
  const image = 'example.com/x:1';
  assert.deepEqual(events, [
    `pod-img spec.containers{c} Pulling: Pulling image "${image}"`,
    `pod-img spec.containers{c} Failed: Failed to pull image "${image}": no registry`,
    'pod-img spec.containers{c} Failed: Error: ErrImagePull',
    `pod-img spec.containers{c} BackOff: Back-off pulling image "${image}"`,
    'pod-img spec.containers{c} Failed: Error: ImagePullBackOff',
    `pod-img spec.containers{c} Pulling: Pulling image "${image}"`,
    `pod-img spec.containers{c} Pulled: Successfully pulled image "${image}" in 0s (0s including waiting). Image size: 0 bytes.`,
  ]);
});

test('a changed container spec replaces the container', async () => {
  const w = makeWorld();
  const p1 = pod('s', { containers: [{ name: 'c', command: ['v1'] }] });
  w.manager.handleUpdate({ op: 'ADD', source: 'api', pods: [p1] });
  await w.settle();
  const first = w.runtime.running('c')!.id;
  w.manager.handleUpdate({
    op: 'UPDATE',
    source: 'api',
    pods: [pod('s', { containers: [{ name: 'c', command: ['v2'] }] })],
  });
  await w.settle();
  const now = w.runtime.running('c')!;
  assert.notEqual(now.id, first);
  assert.deepEqual(now.command, ['v2']);
});

test('a pod removed and re-added with the same UID runs again (not stuck)', async () => {
  const w = makeWorld();
  const p = pod('same', { containers: [{ name: 'again', command: ['x'] }] });
  w.manager.handleUpdate({ op: 'ADD', source: 'file', pods: [p] });
  await w.settle();
  const first = w.runtime.running('again')!.id;
  w.manager.handleUpdate({ op: 'REMOVE', source: 'file', pods: [p] });
  w.manager.handleUpdate({ op: 'ADD', source: 'file', pods: [p] });
  await w.settle();
  assert.ok(w.runtime.running('again'), 'running after remove + add');
  w.manager.handleUpdate({ op: 'REMOVE', source: 'file', pods: [p] });
  await w.settle();
  assert.equal(w.runtime.running('again'), undefined);
  w.manager.handleUpdate({ op: 'ADD', source: 'file', pods: [p] });
  await w.settle();
  const now = w.runtime.running('again');
  assert.ok(now && now.id !== first, 'a new container after a completed removal');
  assert.equal(w.statuses.status('same')?.phase, 'Running');
});

test('a dead sandbox is recreated with its containers; restart counts continue', async () => {
  const w = makeWorld();
  w.manager.handleUpdate({
    op: 'ADD',
    source: 'file',
    pods: [pod('sb', { containers: [{ name: 'inside', command: ['x'] }] })],
  });
  await w.settle();
  const sandbox = [...w.runtime.containers.values()].find(
    (c) => c.kind === 'sandbox' && c.podUid === 'sb',
  )!;
  sandbox.state = 'exited';
  w.manager.resync('sb');
  await w.settle();
  const sandboxes = [...w.runtime.containers.values()].filter(
    (c) => c.kind === 'sandbox' && c.podUid === 'sb',
  );
  assert.equal(sandboxes.filter((c) => c.state === 'running').length, 1);
  assert.equal(sandboxes.find((c) => c.state === 'running')?.attempt, 1);
  const now = w.runtime.running('inside')!;
  assert.notEqual(now.sandboxId, sandbox.id);
  assert.equal(w.statuses.status('sb')?.containerStatuses[0]?.restartCount, 1);
});

test('an edited static pod (same name, new UID) starts only after the old one is gone', async () => {
  const w = makeWorld();
  const old = pod('v1', { containers: [{ name: 'web', command: ['v1'] }] });
  old.metadata.name = 'web';
  const edited = pod('v2', { containers: [{ name: 'web', command: ['v2'] }] });
  edited.metadata.name = 'web';
  w.manager.handleUpdate({ op: 'ADD', source: 'file', pods: [old] });
  await w.settle();
  // the old pod's stop is slow: hold it
  let release: () => void = () => undefined;
  const stopped = new Promise<void>((r) => (release = r));
  const realStop = w.runtime.stopContainer.bind(w.runtime);
  w.runtime.stopContainer = async (id: string, grace: number) => {
    await stopped;
    return realStop(id, grace);
  };
  w.manager.handleUpdate({ op: 'REMOVE', source: 'file', pods: [old] });
  w.manager.handleUpdate({ op: 'ADD', source: 'file', pods: [edited] });
  await new Promise((r) => setImmediate(r));
  assert.equal(
    w.runtime.instances('web').filter((c) => c.podUid === 'v2').length,
    0,
    'the new pod waits',
  );
  release();
  await w.settle();
  await w.settle();
  assert.deepEqual(w.runtime.running('web')?.command, ['v2']);
  assert.equal(w.runtime.instances('web').filter((c) => c.podUid === 'v1').length, 0);
});

test('containers of pods no source asks for are removed, but only once every source has been seen', async () => {
  let seen = false;
  const w = makeWorld({ seenAllSources: () => seen });
  // left by a previous agent: a pod whose manifest was deleted while the agent was down
  const gone = pod('gone', { containers: [{ name: 'leftover', command: ['x'] }] });
  const sb = await w.runtime.runPodSandbox({ pod: gone, attempt: 0 });
  const id = await w.runtime.createContainer({
    pod: gone,
    container: gone.spec.containers[0]!,
    kind: 'app',
    attempt: 0,
    specHash: 'h',
    sandboxId: sb,
    volumePaths: {},
  });
  await w.runtime.startContainer(id);
  await w.manager.cleanupOrphans();
  await w.settle();
  assert.ok(w.runtime.running('leftover'), 'kept while a source has not reported yet');
  seen = true;
  await w.manager.cleanupOrphans();
  await w.settle();
  assert.equal(w.runtime.containers.size, 0, 'removed once all sources were seen');
});

test('each housekeeping pass reports its start and duration to onHousekeeping (the sync-loop health and metric)', async () => {
  const w = makeWorld();
  const passes: [number, number][] = [];
  w.manager.onHousekeeping((startedMs, durationMs) => passes.push([startedMs, durationMs]));
  const slow = w.runtime.listContainers.bind(w.runtime);
  w.runtime.listContainers = async (filter) => {
    w.clock.advance(250); // the runtime takes 250 ms to answer
    return slow(filter);
  };
  const stop = new AbortController();
  const t0 = w.clock.nowMs();
  w.manager.start(stop.signal);
  try {
    await w.advance(2000);
    await w.settle();
    assert.deepEqual(passes, [[t0 + 2000, 250]]);
    await w.advance(2000);
    await w.settle();
    assert.equal(passes.length, 2);
    assert.equal(passes[1]![1], 250);
  } finally {
    stop.abort();
  }
});
