// HTTP and TCP probes as the reference's prober runs them: the request (User-Agent
// kube-probe/1.32, Accept */*, the probe's headers), and the output a failure's Unhealthy event
// carries, in the reference's words ("HTTP probe failed with statuscode: 500", Go's dial errors).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import { createServer as createTcpServer, type AddressInfo } from 'node:net';
import { PROBE_USER_AGENT, goDialError, runProbe } from '../../../../src/agent/worker/probes.js';
import type { Container } from '../../../../src/agent/pod/types.js';
import type { ContainerRuntime } from '../../../../src/agent/runtime/types.js';

const seen: IncomingHttpHeaders[] = [];
const server = createServer((req, res) => {
  seen.push(req.headers);
  if (req.url === '/ok') res.end('fine');
  else if (req.url === '/moved') res.writeHead(302, { location: 'http://elsewhere/' }).end('gone');
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

test('HTTP: the reference headers; 2xx succeeds with the body, 3xx with a warning, 5xx fails with its code', async () => {
  assert.deepEqual(await http('/ok'), { ok: true, output: 'fine' });
  assert.equal(seen[0]?.['user-agent'], PROBE_USER_AGENT);
  assert.equal(PROBE_USER_AGENT, 'kube-probe/1.32');
  assert.equal(seen[0]?.accept, '*/*');
  assert.deepEqual(await http('/moved'), {
    ok: true,
    output: 'Probe terminated redirects, Response body: gone',
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
