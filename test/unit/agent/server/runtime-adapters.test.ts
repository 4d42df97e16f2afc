import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { ManualClock } from '../../../helpers/manual-clock.js';
import {
  RuntimeCommandRunner,
  RuntimeContainerLogs,
  RuntimeRunningPods,
  RuntimeStats,
} from '../../../../src/agent/server/runtime-adapters.js';
import {
  ContainerNotFoundError,
  NoPreviousContainerError,
} from '../../../../src/agent/server/types.js';
import type { ContainerRuntime, RuntimeContainer } from '../../../../src/agent/runtime/types.js';
import { silentLogger, type Logger } from '../../../../src/common/log/types.js';

/** Container c of pod default/web, running, with `over` on top. */
function webContainer(over: Partial<RuntimeContainer> = {}): RuntimeContainer {
  return {
    id: 'c1',
    podUid: 'u1',
    podName: 'web',
    podNamespace: 'default',
    name: 'c',
    kind: 'app',
    attempt: 0,
    specHash: '',
    image: 'img',
    imageId: '',
    state: 'running',
    createdAtMs: 0,
    ...over,
  };
}

function fakeRuntime(state: { log: string; running: boolean }): ContainerRuntime {
  const c = (over: Partial<RuntimeContainer>): RuntimeContainer =>
    webContainer({ state: state.running ? 'running' : 'exited', ...over });
  return {
    listContainers: () => Promise.resolve([c({}), c({ id: 's1', kind: 'sandbox', name: '' })]),
    logs: (_id: string, opts?: { tailLines?: number }) => {
      const lines = state.log.split('\n').filter((l) => l !== '');
      const tail = opts?.tailLines === undefined ? lines : lines.slice(-opts.tailLines);
      return Promise.resolve(tail.map((l) => `${l}\n`).join(''));
    },
    exec: (_id: string, cmd: readonly string[]) =>
      Promise.resolve({ exitCode: 3, output: `ran ${cmd.join(' ')}\n` }),
  } as unknown as ContainerRuntime;
}

const pods = { pods: () => [{ metadata: { name: 'web', namespace: 'default', uid: 'u1' } }] };

test('container logs: tail, timestamps, follow until the container stops; unknown containers are not found', async () => {
  const state = { log: 'a\nb\nc\n', running: true };
  const clock = new ManualClock();
  const logs = new RuntimeContainerLogs({
    runtime: fakeRuntime(state),
    pods,
    clock,
    followPollMs: 1000,
  });
  const out = new PassThrough();
  let text = '';
  out.on('data', (d: Buffer) => (text += d.toString()));
  await logs.writeLogs(
    { namespace: 'default', pod: 'web', container: 'c' },
    { tailLines: 2, follow: false, timestamps: true },
    out,
    new AbortController().signal,
  );
  assert.equal(text, `${clock.now().toISOString()} b\n${clock.now().toISOString()} c\n`);
  text = '';
  const following = logs.writeLogs(
    { namespace: 'default', pod: 'web', container: 'c' },
    { follow: true, timestamps: false },
    out,
    new AbortController().signal,
  );
  await clock.waitForSleepers(1);
  state.log += 'd\n';
  clock.advance(1000);
  await clock.waitForSleepers(1);
  state.running = false;
  state.log += 'e\n';
  clock.advance(1000);
  await following;
  assert.equal(text, 'a\nb\nc\nd\ne\n');
  await assert.rejects(
    logs.writeLogs(
      { namespace: 'default', pod: 'web', container: 'x' },
      { follow: false, timestamps: false },
      out,
      new AbortController().signal,
    ),
    ContainerNotFoundError,
  );
  await assert.rejects(
    logs.writeLogs(
      { namespace: 'other', pod: 'web', container: 'c' },
      { follow: false, timestamps: false },
      out,
      new AbortController().signal,
    ),
    ContainerNotFoundError,
  );
});

test('commands run in the running container; running pods are grouped from the runtime', async () => {
  const runner = new RuntimeCommandRunner({
    runtime: fakeRuntime({ log: '', running: true }),
    pods,
  });
  const r = await runner.run({ namespace: 'default', pod: 'web', container: 'c' }, ['echo', 'hi'], {
    timeoutMs: 1000,
  });
  assert.equal(r.stdout.toString(), 'ran echo hi\n');
  assert.equal(r.exitCode, 3);
  const stopped = new RuntimeCommandRunner({
    runtime: fakeRuntime({ log: '', running: false }),
    pods,
  });
  await assert.rejects(
    stopped.run({ namespace: 'default', pod: 'web', container: 'c' }, ['x'], { timeoutMs: 1000 }),
    /is not running/,
  );
  const running = await new RuntimeRunningPods({
    runtime: fakeRuntime({ log: '', running: true }),
  }).runningPods();
  assert.deepEqual(
    running.map((p) => (p as { metadata: { name: string } }).metadata.name),
    ['web'],
  );
});

test("/stats/summary start times are real: the pod's reported startTime (else its sandbox's creation), the node's boot time", async () => {
  const clock = new ManualClock();
  const now = clock.nowMs();
  const containers: Partial<RuntimeContainer>[] = [
    { id: 's1', podUid: 'u1', kind: 'sandbox', name: '', createdAtMs: now - 60_000 },
    { id: 'c1', podUid: 'u1', createdAtMs: now - 50_000, startedAtMs: now - 49_000 },
    {
      id: 'c2',
      podUid: 'u2',
      podName: 'other',
      createdAtMs: now - 30_000,
      startedAtMs: now - 29_000,
    },
  ];
  const runtime = {
    listContainers: () =>
      Promise.resolve(containers.map((c) => webContainer(c as Partial<RuntimeContainer>))),
  } as unknown as ContainerRuntime;
  const reported = new Date(now - 55_000).toISOString();
  const stats = new RuntimeStats({
    runtime,
    nodeName: 'n1',
    clock,
    podStartTime: (uid) => (uid === 'u1' ? reported : undefined),
    hostUptimeSeconds: () => 3600.4,
  });
  const s = (await stats.summary()) as {
    node: { startTime: string };
    pods: { podRef: { uid: string }; startTime: string; containers: { startTime: string }[] }[];
  };
  assert.equal(
    s.node.startTime,
    new Date(Math.floor((now - 3_600_400) / 1000) * 1000).toISOString(),
    'the host boot time, at whole seconds',
  );
  const byUid = new Map(s.pods.map((p) => [p.podRef.uid, p]));
  assert.equal(byUid.get('u1')?.startTime, reported, 'the status the agent reported');
  assert.equal(byUid.get('u1')?.containers[0]?.startTime, new Date(now - 49_000).toISOString());
  assert.equal(
    byUid.get('u2')?.startTime,
    new Date(now - 30_000).toISOString(),
    'no status yet: the earliest container',
  );
  assert.notEqual(byUid.get('u2')?.startTime, clock.now().toISOString());
});

test("/stats/summary from a runtime's listStats: the pod's own measure and network where it has one, else its containers' sums", async () => {
  const clock = new ManualClock();
  const base = {
    podNamespace: 'default',
    name: 'c',
    kind: 'app',
    attempt: 0,
    specHash: '',
    image: 'img',
    imageId: '',
    state: 'running',
    createdAtMs: clock.nowMs(),
  } as const;
  const containers: RuntimeContainer[] = [
    { ...base, id: 'a1', podUid: 'u1', podName: 'measured' },
    { ...base, id: 'b1', podUid: 'u2', podName: 'summed' },
    { ...base, id: 'b2', podUid: 'u2', podName: 'summed', name: 'd' },
  ];
  let asked = 0;
  const runtime = {
    listContainers: () => Promise.resolve(containers),
    stats: () => Promise.reject(new Error('one container at a time is not asked')),
    listStats: () => {
      asked++;
      return Promise.resolve({
        containers: new Map([
          ['a1', { cpuUsageNanoCores: 5, memoryWorkingSetBytes: 50 }],
          ['b1', { cpuUsageNanoCores: 1, memoryWorkingSetBytes: 10 }],
          ['b2', { cpuUsageNanoCores: 2, memoryWorkingSetBytes: 20, memoryRssBytes: 7 }],
        ]),
        pods: new Map([
          [
            'u1',
            {
              cpuUsageNanoCores: 6,
              cpuUsageCoreNanoSeconds: 600,
              memoryWorkingSetBytes: 70,
              network: {
                defaultInterface: { name: 'eth0', rxBytes: 100, txBytes: 40 },
                interfaces: [{ name: 'eth0', rxBytes: 100, txBytes: 40 }],
              },
            },
          ],
        ]),
      });
    },
  } as unknown as ContainerRuntime;
  const s = (await new RuntimeStats({ runtime, nodeName: 'n1', clock }).summary()) as {
    pods: (Record<string, unknown> & { podRef: { name: string } })[];
  };
  assert.equal(asked, 1, 'one listStats for the whole summary');
  const time = clock.now().toISOString();
  const byName = new Map(s.pods.map((p) => [p.podRef.name, p]));
  const measured = byName.get('measured');
  assert.deepEqual(measured?.['cpu'], { time, usageNanoCores: 6, usageCoreNanoSeconds: 600 });
  assert.deepEqual(measured?.['memory'], { time, workingSetBytes: 70 });
  assert.deepEqual(measured?.['network'], {
    time,
    name: 'eth0',
    rxBytes: 100,
    txBytes: 40,
    interfaces: [{ name: 'eth0', rxBytes: 100, txBytes: 40 }],
  });
  const summed = byName.get('summed');
  assert.deepEqual(summed?.['cpu'], { time, usageNanoCores: 3 });
  assert.deepEqual(summed?.['memory'], { time, workingSetBytes: 30 });
  assert.equal(summed?.['network'], undefined);
  assert.deepEqual((summed?.['containers'] as { memory: unknown }[])[1]?.memory, {
    time,
    workingSetBytes: 20,
    rssBytes: 7,
  });
});

test("container logs --previous: the instance before the current one; none yet is the reference's 400 text", async () => {
  const make = (id: string, attempt: number, state: 'running' | 'exited'): RuntimeContainer =>
    webContainer({ id, attempt, state, createdAtMs: attempt });
  let containers = [make('c0', 0, 'running')];
  const runtime = {
    listContainers: () => Promise.resolve(containers),
    logs: (id: string) => Promise.resolve(`log of ${id}\n`),
  } as unknown as ContainerRuntime;
  const logs = new RuntimeContainerLogs({ runtime, pods, clock: new ManualClock() });
  const read = async (previous: boolean): Promise<string> => {
    const out = new PassThrough();
    let text = '';
    out.on('data', (d: Buffer) => (text += d.toString()));
    await logs.writeLogs(
      { namespace: 'default', pod: 'web', container: 'c' },
      { follow: false, timestamps: false, previous },
      out,
      new AbortController().signal,
    );
    return text;
  };
  await assert.rejects(
    read(true),
    (err: unknown) =>
      err instanceof NoPreviousContainerError &&
      err.message === 'previous terminated container "c" in pod "web" not found',
  );
  containers = [make('c0', 0, 'exited'), make('c1', 1, 'running')];
  assert.equal(await read(true), 'log of c0\n');
  assert.equal(await read(false), 'log of c1\n');
});

test("container logs with the runtime's time per line: the tail, then since; timestamps print each line's recorded time; limitBytes; follow keeps the since filter", async () => {
  const lines: { time: string; text: string }[] = [
    { time: '2026-01-01T00:00:01.000000001Z', text: 'one\n' },
    { time: '2026-01-01T00:00:02.5Z', text: 'two\n' },
    { time: '2026-01-01T00:00:03.999999999Z', text: 'three\n' },
  ];
  let running = true;
  const runtime = {
    listContainers: () =>
      Promise.resolve([webContainer({ state: running ? 'running' : 'exited' })]),
    logs: () => Promise.reject(new Error('the timed path must be used')),
    timedLogs: (_id: string, opts?: { tailLines?: number; sinceMs?: number }) => {
      const tail = opts?.tailLines === undefined ? lines : lines.slice(-opts.tailLines);
      return Promise.resolve(
        tail.filter((l) => opts?.sinceMs === undefined || Date.parse(l.time) >= opts.sinceMs),
      );
    },
  } as unknown as ContainerRuntime;
  const clock = new ManualClock();
  const logs = new RuntimeContainerLogs({ runtime, pods, clock, followPollMs: 1000 });
  const read = async (
    o: Partial<{ tailLines: number; sinceMs: number; limitBytes: number; timestamps: boolean }>,
  ): Promise<string> => {
    const out = new PassThrough();
    let text = '';
    out.on('data', (d: Buffer) => (text += d.toString()));
    await logs.writeLogs(
      { namespace: 'default', pod: 'web', container: 'c' },
      { follow: false, timestamps: false, ...o },
      out,
      new AbortController().signal,
    );
    return text;
  };
  assert.equal(
    await read({ sinceMs: Date.parse('2026-01-01T00:00:02.5Z') }),
    'two\nthree\n',
    'a line at since is kept',
  );
  assert.equal(
    await read({ timestamps: true, tailLines: 1 }),
    '2026-01-01T00:00:03.999999999Z three\n',
  );
  assert.equal(
    await read({ timestamps: true, limitBytes: 40 }),
    '2026-01-01T00:00:01.000000001Z one\n2026-',
  );
  const out = new PassThrough();
  let text = '';
  out.on('data', (d: Buffer) => (text += d.toString()));
  const following = logs.writeLogs(
    { namespace: 'default', pod: 'web', container: 'c' },
    { follow: true, timestamps: false, sinceMs: Date.parse('2026-01-01T00:00:03Z') },
    out,
    new AbortController().signal,
  );
  await clock.waitForSleepers(1);
  lines.push({ time: '2026-01-01T00:00:04Z', text: 'four\n' });
  running = false;
  clock.advance(1000);
  await following;
  assert.equal(text, 'three\nfour\n');
});

test('a runtime without per-line times: sinceSeconds/sinceTime are said once in the log not to apply; the log is sent', async () => {
  const warnings: string[] = [];
  const logger = {
    ...silentLogger(),
    warn: (_o: unknown, msg: string) => warnings.push(msg),
  } as unknown as Logger;
  const logs = new RuntimeContainerLogs({
    runtime: fakeRuntime({ log: 'a\n', running: true }),
    pods,
    clock: new ManualClock(),
    logger,
  });
  for (let i = 0; i < 2; i++) {
    const out = new PassThrough();
    let text = '';
    out.on('data', (d: Buffer) => (text += d.toString()));
    await logs.writeLogs(
      { namespace: 'default', pod: 'web', container: 'c' },
      { follow: false, timestamps: false, sinceMs: 0 },
      out,
      new AbortController().signal,
    );
    assert.equal(text, 'a\n');
  }
  assert.deepEqual(warnings, [
    'container logs: sinceSeconds/sinceTime cannot be applied: this runtime records no time per line; the whole log is sent',
  ]);
});

test('a follow with tailLines sends every line once: one written just after the first read is not lost', async () => {
  // each read of the log finds one line more, as a container writing steadily would
  let written = 3;
  let reads = 0;
  const line = (i: number) => ({ time: `2026-01-01T00:00:0${i}Z`, text: `line ${i}\n` });
  const runtime = {
    listContainers: () =>
      Promise.resolve([webContainer({ state: reads < 3 ? 'running' : 'exited' })]),
    logs: () => Promise.reject(new Error('the timed path must be used')),
    timedLogs: (_id: string, opts?: { tailLines?: number }) => {
      reads++;
      const all = Array.from({ length: written++ }, (_, i) => line(i + 1));
      return Promise.resolve(opts?.tailLines === undefined ? all : all.slice(-opts.tailLines));
    },
  } as unknown as ContainerRuntime;
  const clock = new ManualClock();
  const logs = new RuntimeContainerLogs({ runtime, pods, clock, followPollMs: 1000 });
  const out = new PassThrough();
  let text = '';
  out.on('data', (d: Buffer) => (text += d.toString()));
  const following = logs.writeLogs(
    { namespace: 'default', pod: 'web', container: 'c' },
    { follow: true, timestamps: false, tailLines: 1 },
    out,
    new AbortController().signal,
  );
  for (let i = 0; i < 2; i++) {
    await clock.waitForSleepers(1);
    clock.advance(1000);
  }
  await following;
  assert.equal(text, 'line 3\nline 4\nline 5\n');
});
