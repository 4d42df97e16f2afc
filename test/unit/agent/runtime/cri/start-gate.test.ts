// The bound on pod-start calls in flight (RunPodSandbox, CreateContainer, StartContainer): it
// holds, a later stage is served before an earlier one, a failed call gives its slot back, and
// many pods starting through it at once all finish (no deadlock).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  START_STAGE,
  StartGate,
  defaultStartLimit,
  type StartStage,
} from '../../../../../src/agent/runtime/cri/start-gate.js';

/** A call that settles when its `finish` is called, and says when it began. */
function pendingCall(log: string[], name: string) {
  let finish!: (fail?: Error) => void;
  const call = () =>
    new Promise<string>((resolve, reject) => {
      log.push(name);
      finish = (fail) => (fail === undefined ? resolve(name) : reject(fail));
    });
  return { call, finish: (fail?: Error) => finish(fail) };
}

const turn = () => new Promise((r) => setImmediate(r));

test('at most `limit` calls run at once; the others wait and start as slots free', async () => {
  const gate = new StartGate(2);
  const began: string[] = [];
  const calls = ['a', 'b', 'c', 'd'].map((n) => pendingCall(began, n));
  const done = calls.map((c) => gate.run(START_STAGE.sandbox, c.call));
  await turn();
  assert.deepEqual(began, ['a', 'b']);
  assert.equal(gate.inFlight, 2);
  assert.equal(gate.queued, 2);
  calls[0]!.finish();
  await turn();
  assert.deepEqual(began, ['a', 'b', 'c']);
  assert.equal(gate.inFlight, 2);
  for (const c of calls.slice(1)) {
    c.finish();
    await turn();
  }
  assert.deepEqual(await Promise.all(done), ['a', 'b', 'c', 'd']);
  assert.equal(gate.inFlight, 0);
});

test('a waiting container start goes before a waiting sandbox; arrival order within a stage', async () => {
  const gate = new StartGate(1);
  const began: string[] = [];
  const first = pendingCall(began, 'sandbox-1');
  const waiting: [StartStage, string][] = [
    [START_STAGE.sandbox, 'sandbox-2'],
    [START_STAGE.create, 'create-1'],
    [START_STAGE.sandbox, 'sandbox-3'],
    [START_STAGE.start, 'start-1'],
    [START_STAGE.create, 'create-2'],
  ];
  const running = [gate.run(START_STAGE.sandbox, first.call)];
  const calls = waiting.map(([stage, name]) => {
    const c = pendingCall(began, name);
    running.push(gate.run(stage, c.call));
    return c;
  });
  await turn();
  first.finish();
  // each call ends as soon as it begins: the order of beginnings is the gate's order
  for (let i = 0; i < calls.length; i++) {
    await turn();
    const name = began[began.length - 1];
    calls[waiting.findIndex(([, n]) => n === name)]!.finish();
  }
  await Promise.all(running);
  assert.deepEqual(began, [
    'sandbox-1',
    'start-1',
    'create-1',
    'create-2',
    'sandbox-2',
    'sandbox-3',
  ]);
});

test('a failed call gives its slot back and its error to its caller', async () => {
  const gate = new StartGate(1);
  const began: string[] = [];
  const failing = pendingCall(began, 'fails');
  const next = pendingCall(began, 'next');
  const a = gate.run(START_STAGE.start, failing.call);
  const b = gate.run(START_STAGE.start, next.call);
  await turn();
  failing.finish(new Error('CRI StartContainer: boom'));
  await assert.rejects(a, /boom/);
  await turn();
  assert.deepEqual(began, ['fails', 'next']);
  next.finish();
  assert.equal(await b, 'next');
  assert.equal(gate.inFlight, 0);
});

test('30 pods started at once through a gate of 4 all finish, never more than 4 in flight', async () => {
  const gate = new StartGate(4);
  let inFlight = 0;
  let most = 0;
  const step = async (stage: StartStage): Promise<void> =>
    gate.run(stage, async () => {
      most = Math.max(most, ++inFlight);
      await turn();
      inFlight--;
    });
  const finished: number[] = [];
  const podStart = async (i: number): Promise<void> => {
    await step(START_STAGE.sandbox);
    await step(START_STAGE.create);
    await step(START_STAGE.start);
    finished.push(i);
  };
  await Promise.all(Array.from({ length: 30 }, (_, i) => podStart(i)));
  assert.equal(finished.length, 30);
  assert.equal(most, 4);
  assert.equal(gate.inFlight, 0);
  assert.equal(gate.queued, 0);
  // progressive: the first pods are done before the last pods got their sandboxes
  assert.ok(finished.indexOf(0) < 10, `pod 0 finished ${finished.indexOf(0) + 1}th`);
});

test('0 is no bound; the default is four per CPU, at least 8; a bad limit is refused', async () => {
  const gate = new StartGate(0);
  const began: string[] = [];
  const calls = Array.from({ length: 50 }, (_, i) => pendingCall(began, String(i)));
  const done = calls.map((c) => gate.run(START_STAGE.sandbox, c.call));
  await turn();
  assert.equal(began.length, 50);
  for (const c of calls) c.finish();
  await Promise.all(done);
  assert.equal(defaultStartLimit(1), 8);
  assert.equal(defaultStartLimit(2), 8);
  assert.equal(defaultStartLimit(8), 32);
  assert.throws(() => new StartGate(-1), /whole number >= 0, not -1/);
  assert.throws(() => new StartGate(1.5), /whole number >= 0, not 1.5/);
});
