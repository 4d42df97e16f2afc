// postStart and preStop hooks in the pod workers, with the reference's messages, events and
// grace period arithmetic (kuberuntime_container.go startContainer/killContainer, lifecycle/handlers.go).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { makeWorld, pod } from './harness.js';
import type { PodEvent } from '../../../../src/agent/worker/status-manager.js';
import {
  hookRequest,
  runLifecycleHook,
  LIFECYCLE_USER_AGENT,
} from '../../../../src/agent/worker/lifecycle-hooks.js';
import { ManualClock } from '../../../helpers/manual-clock.js';

/** Lets queued work run without waiting for the workers to be idle (a hook sleeps on the clock). */
async function turns(n = 20): Promise<void> {
  for (let i = 0; i < n; i++) await new Promise((r) => setImmediate(r));
}

function recordEvents(w: ReturnType<typeof makeWorld>): PodEvent[] {
  const events: PodEvent[] = [];
  w.statuses.onPodEvent((e) => events.push(e));
  return events;
}

test('postStart exec runs right after the start, before the status says Running', async () => {
  const w = makeWorld();
  const seen: string[] = [];
  w.statuses.onChange((_p, s) =>
    seen.push(s.containerStatuses[0]?.state.running ? 'running' : 'not'),
  );
  const p = pod('u1', {
    containers: [
      {
        name: 'app',
        command: ['serve'],
        lifecycle: { postStart: { exec: { command: ['hook', 'a'] } } },
      },
    ],
  });
  w.manager.handleUpdate({ op: 'ADD', source: 'file', pods: [p] });
  await w.settle();
  const app = w.runtime.running('app');
  assert.ok(app);
  assert.deepEqual(w.runtime.execLog, [{ id: app.id, command: ['hook', 'a'], state: 'running' }]);
  assert.equal(seen[0], 'running', 'the first status published already follows the hook');
  assert.equal(w.statuses.status('u1')?.phase, 'Running');
});

test('a failing postStart: FailedPostStartHook, the container killed, PostStartHookError with the reference message', async () => {
  const w = makeWorld();
  const events = recordEvents(w);
  w.runtime.execExit.set('false-hook', 1);
  w.runtime.execOutput.set('false-hook', 'oops');
  const p = pod('u1', {
    terminationGracePeriodSeconds: 30,
    containers: [
      {
        name: 'app',
        command: ['serve'],
        lifecycle: { postStart: { exec: { command: ['false-hook', 'x y'] } } },
      },
    ],
  });
  w.manager.handleUpdate({ op: 'ADD', source: 'file', pods: [p] });
  await w.settle();
  assert.equal(w.runtime.running('app'), undefined, 'the container was killed');
  const [killed] = w.runtime.instances('app');
  assert.deepEqual(w.runtime.stops, [{ id: killed?.id, grace: 30 }]);
  const st = w.statuses.status('u1')?.containerStatuses[0];
  assert.equal(st?.state.waiting?.reason, 'PostStartHookError');
  assert.equal(
    st?.state.waiting?.message,
    `Exec lifecycle hook ([false-hook x y]) for Container "app" in Pod "pod-u1_default(u1)" failed - error: command 'false-hook x y' exited with 1: oops, message: "oops"`,
  );
  assert.deepEqual(
    events.map((e) => [e.type, e.reason, e.message, e.fieldPath]),
    [
      ['Warning', 'FailedPostStartHook', 'PostStartHook failed', 'spec.containers{app}'],
      ['Normal', 'Killing', 'FailedPostStartHook', 'spec.containers{app}'],
    ],
  );
  // restarted with the crash-loop back-off (10 s first)
  await w.advance(10_000);
  assert.equal(w.runtime.instances('app').length, 2);
});

test('preStop runs before the stop signal, and the grace period left (at least 2 s) goes to the stop', async () => {
  const w = makeWorld();
  const events = recordEvents(w);
  const p = pod('u1', {
    terminationGracePeriodSeconds: 30,
    containers: [
      { name: 'app', command: ['serve'], lifecycle: { preStop: { sleep: { seconds: 5 } } } },
      { name: 'side', command: ['serve'], lifecycle: { preStop: { exec: { command: ['bye'] } } } },
    ],
  });
  w.manager.handleUpdate({ op: 'ADD', source: 'file', pods: [p] });
  await w.settle();
  const app = w.runtime.running('app');
  const side = w.runtime.running('side');
  w.manager.handleUpdate({ op: 'DELETE', source: 'file', pods: [p] });
  await turns();
  assert.deepEqual(w.runtime.execLog, [{ id: side?.id, command: ['bye'], state: 'running' }]);
  assert.ok(!w.runtime.stops.some((s) => s.id === app?.id), 'app waits for its 5 s sleep hook');
  assert.ok(w.runtime.stops.some((s) => s.id === side?.id && s.grace === 30));
  w.clock.advance(5_000);
  await w.settle();
  assert.ok(w.runtime.stops.some((s) => s.id === app?.id && s.grace === 25));
  assert.deepEqual(
    events.map((e) => `${e.reason} ${e.message}`),
    ['Killing Stopping container app', 'Killing Stopping container side'],
    'the kills, and no failed hook',
  );
});

test('a failing preStop: FailedPreStopHook "PreStopHook failed", then the stop; a hook over the grace period ends at 2 s', async () => {
  const w = makeWorld();
  const events = recordEvents(w);
  w.runtime.execExit.set('fail', 2);
  const p = pod('u1', {
    terminationGracePeriodSeconds: 3,
    containers: [
      { name: 'a', command: ['serve'], lifecycle: { preStop: { exec: { command: ['fail'] } } } },
      { name: 'b', command: ['serve'], lifecycle: { preStop: { sleep: { seconds: 100 } } } },
    ],
  });
  w.manager.handleUpdate({ op: 'ADD', source: 'file', pods: [p] });
  await w.settle();
  const b = w.runtime.running('b');
  w.manager.handleUpdate({ op: 'DELETE', source: 'file', pods: [p] });
  await turns();
  // each kill begins with the reference's Killing, then the failed hook's warning
  assert.deepEqual(
    events.map((e) => [e.type, e.reason, e.message, e.fieldPath]),
    [
      ['Normal', 'Killing', 'Stopping container a', 'spec.containers{a}'],
      ['Normal', 'Killing', 'Stopping container b', 'spec.containers{b}'],
      ['Warning', 'FailedPreStopHook', 'PreStopHook failed', 'spec.containers{a}'],
    ],
  );
  w.clock.advance(3_000);
  await w.settle();
  assert.ok(w.runtime.stops.some((s) => s.id === b?.id && s.grace === 2));
  assert.equal(events.length, 3, 'a hook cut short by the grace period is no failure');
});

test('httpGet hook: the reference URL and headers (User-Agent kube-lifecycle/1.32, Accept */*), any status passes', async (t) => {
  const got: { url?: string; headers: IncomingHttpHeaders }[] = [];
  const server = createServer((req, res) => {
    got.push({ ...(req.url !== undefined ? { url: req.url } : {}), headers: req.headers });
    res.statusCode = 500;
    res.end('no');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.after(() => server.close());
  const port = (server.address() as AddressInfo).port;
  const container = { name: 'app', ports: [{ name: 'web', containerPort: port }] };
  const p = pod('u1', { containers: [container] });
  const ctx = {
    runtime: { exec: () => Promise.reject(new Error('no exec')) },
    clock: new ManualClock(),
    pod: p,
    container,
    containerId: 'c1',
    podIP: '127.0.0.1',
    signal: new AbortController().signal,
    execTimeoutMs: 1000,
  };
  const ok = await runLifecycleHook(
    {
      httpGet: {
        path: '/echo?msg=poststart',
        port: 'web',
        httpHeaders: [{ name: 'X-A', value: 'b' }],
      },
    },
    ctx,
  );
  assert.equal(ok, undefined);
  assert.equal(got[0]?.url, '/echo?msg=poststart');
  assert.equal(got[0]?.headers['user-agent'], LIFECYCLE_USER_AGENT);
  assert.equal(got[0]?.headers.accept, '*/*');
  assert.equal(got[0]?.headers['x-a'], 'b');
  server.closeAllConnections();
  const failed = await runLifecycleHook(
    { httpGet: { path: '/x', port: 1, host: '127.0.0.1' } },
    ctx,
  );
  assert.match(
    failed ?? '',
    /^HTTP lifecycle hook \(\/x\) for Container "app" in Pod "pod-u1_default\(u1\)" failed - error: /,
  );
  assert.deepEqual(
    hookRequest(
      {
        port: 8080,
        scheme: 'HTTPS',
        host: 'fd00::1',
        httpHeaders: [{ name: 'Accept', value: '' }],
      },
      container,
      '10.0.0.1',
    ),
    { url: 'https://[fd00::1]:8080', headers: { 'user-agent': LIFECYCLE_USER_AGENT } },
  );
});

test('a sleep hook cut short says so as the reference does', async () => {
  const ac = new AbortController();
  const clock = new ManualClock();
  const p = pod('u1', { containers: [{ name: 'app' }] });
  const run = runLifecycleHook(
    { sleep: { seconds: 10 } },
    {
      runtime: { exec: () => Promise.reject(new Error('unused')) },
      clock,
      pod: p,
      container: { name: 'app' },
      containerId: 'c',
      podIP: undefined,
      signal: ac.signal,
      execTimeoutMs: 1,
    },
  );
  ac.abort();
  assert.equal(
    await run,
    'Sleep lifecycle hook (10) for Container "app" in Pod "pod-u1_default(u1)" failed - error: container terminated before sleep hook finished',
  );
});
