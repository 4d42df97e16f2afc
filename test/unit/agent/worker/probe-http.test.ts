// HTTP and TCP probes as the reference's prober runs them: the request (User-Agent
// kube-probe/1.32, Accept */*, the probe's headers), and the output a failure's Unhealthy event
// carries, in the reference's words ("HTTP probe failed with statuscode: 500", Go's dial errors).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import { createServer as createTcpServer, type AddressInfo } from 'node:net';
import {
  PROBE_USER_AGENT,
  ProbeManager,
  goDialError,
  runProbe,
} from '../../../../src/agent/worker/probes.js';
import { ManualClock } from '../../../helpers/manual-clock.js';
import { recordingLogger } from '../../../helpers/recording-logger.js';
import type { Container, Pod } from '../../../../src/agent/pod/types.js';
import type { ContainerRuntime } from '../../../../src/agent/runtime/types.js';

const seen: IncomingHttpHeaders[] = [];
const server = createServer((req, res) => {
  seen.push(req.headers);
  if (req.url === '/ok') res.end('fine');
  else if (req.url === '/moved') res.writeHead(302, { location: 'http://elsewhere/' }).end('gone');
  else if (req.url === '/hop') res.writeHead(301, { location: '/ok' }).end();
  else if (req.url === '/loop') res.writeHead(302, { location: '/loop' }).end();
  else res.writeHead(500).end('broken');
});
await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
const port = (server.address() as AddressInfo).port;
// a port nothing listens on: bound, then closed
const spare = createTcpServer();
await new Promise<void>((r) => spare.listen(0, '127.0.0.1', r));
const closed = (spare.address() as AddressInfo).port;
await new Promise<void>((r) => spare.close(() => r()));
after(() => server.close());

const container: Container = { name: 'c', ports: [{ name: 'web', containerPort: port }] };
const ctx = {
  runtime: {} as ContainerRuntime,
  containerId: 'id',
  container,
  host: '127.0.0.1',
  nowMs: 0,
};
const http = (path: string, extra: object = {}) =>
  runProbe({ httpGet: { port: 'web', path, ...extra }, timeoutSeconds: 2 }, ctx);

test("HTTP: the reference headers; 2xx succeeds with the body, a same-host redirect is followed, another host's is a success with a warning, 5xx fails with its code", async () => {
  assert.deepEqual(await http('/ok'), { ok: true, output: 'fine' });
  assert.equal(seen[0]?.['user-agent'], PROBE_USER_AGENT);
  assert.equal(PROBE_USER_AGENT, 'kube-probe/1.32');
  assert.equal(seen[0]?.accept, '*/*');
  // another host: not followed, a success with a warning (the ProbeWarning event)
  assert.deepEqual(await http('/moved'), {
    ok: true,
    warning: true,
    output: 'Probe terminated redirects, Response body: gone',
  });
  // the same host: followed, ten times at most, as Go's client in the reference's prober
  assert.deepEqual(await http('/hop'), { ok: true, output: 'fine' });
  assert.deepEqual(await http('/loop'), {
    ok: false,
    output: `Get "http://127.0.0.1:${port}/loop": stopped after 10 redirects`,
  });
  assert.deepEqual(await http('/bad'), {
    ok: false,
    output: 'HTTP probe failed with statuscode: 500',
  });
  await http('/ok', { httpHeaders: [{ name: 'User-Agent', value: 'mine' }] });
  assert.equal(seen.at(-1)?.['user-agent'], 'mine', "the probe's own header wins");
});

test("no answer: Go's words, as the reference's probe output", async () => {
  assert.deepEqual(
    await runProbe({ httpGet: { port: closed, path: '/x' }, timeoutSeconds: 2 }, ctx),
    {
      ok: false,
      output: `Get "http://127.0.0.1:${closed}/x": dial tcp 127.0.0.1:${closed}: connect: connection refused`,
    },
  );
  assert.deepEqual(await runProbe({ tcpSocket: { port: closed }, timeoutSeconds: 2 }, ctx), {
    ok: false,
    output: `dial tcp 127.0.0.1:${closed}: connect: connection refused`,
  });
  assert.deepEqual(await runProbe({ tcpSocket: { port: 'web' }, timeoutSeconds: 2 }, ctx), {
    ok: true,
    output: '',
  });
  assert.equal(
    goDialError(Object.assign(new Error('x'), { code: 'ENOTFOUND' }), 'db.invalid:5432'),
    'dial tcp: lookup db.invalid: no such host',
  );
});

test("a redirect to another host is the reference's Warning ProbeWarning, and the probe passes", async () => {
  const clock = new ManualClock();
  const events: string[] = [];
  const pm = new ProbeManager({
    runtime: {} as ContainerRuntime,
    clock,
    logger: recordingLogger(),
    onChange: () => undefined,
    recordEvent: (e) => events.push(`${e.type} ${e.reason}: ${e.message}`),
  });
  const pod: Pod = {
    metadata: { uid: 'u', name: 'p', namespace: 'n' },
    spec: { containers: [container] },
  };
  pm.ensure(
    pod,
    {
      ...container,
      readinessProbe: { httpGet: { port: 'web', path: '/moved' }, timeoutSeconds: 2 },
    },
    'id',
    '127.0.0.1',
  );
  await clock.waitForSleepers(1); // the initial delay, 0 s
  clock.advance(0);
  await waitUntil(() => events.length > 0 && pm.ready('id'));
  pm.stopAll();
  assert.deepEqual(events, [
    'Warning ProbeWarning: Readiness probe warning: Probe terminated redirects, Response body: gone',
  ]);
});

async function waitUntil(ok: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !ok(); i++) await new Promise((r) => setTimeout(r, 10));
}
