// The Service lister against a fake API server speaking the reference's API: GET /api/v1/services
// (every namespace), then a watch from the list's resourceVersion; its events kept; waitForSync
// resolving at the first list; an API server without Services (404) read as none, said once.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { RestClient } from '../../../../src/agent/client/rest-client.js';
import { ServiceLister } from '../../../../src/agent/env/service-lister.js';
import { systemClock } from '../../../../src/common/util/clock.js';
import { recordingLogger } from '../../../helpers/recording-logger.js';
import { waitFor } from '../../../helpers/server-https-request.js';

async function fakeApi(
  t: TestContext,
  handle: (req: IncomingMessage, res: ServerResponse, u: URL) => void,
): Promise<RestClient> {
  const server = createServer((req, res) => handle(req, res, new URL(req.url ?? '/', 'http://x')));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.after(
    () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  );
  const rest = new RestClient({
    connection: {
      server: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      insecureSkipTlsVerify: false,
      userName: 'u',
      source: 's',
      token: 't',
    },
  });
  t.after(() => rest.close());
  return rest;
}

const svc = (ns: string, name: string, ip: string, rv: string): unknown => ({
  metadata: { namespace: ns, name, resourceVersion: rv },
  spec: { clusterIP: ip, ports: [{ name: 'http', port: 80, protocol: 'TCP' }] },
});

test('lists every namespace, then follows the watch (added, modified, deleted)', async (t) => {
  const paths: string[] = [];
  let push: ((type: string, o: unknown) => void) | undefined;
  const rest = await fakeApi(t, (req, res, u) => {
    paths.push(`${u.pathname}${u.searchParams.get('watch') === 'true' ? '?watch' : ''}`);
    res.writeHead(200, { 'content-type': 'application/json' });
    if (u.searchParams.get('watch') !== 'true') {
      res.end(
        JSON.stringify({
          kind: 'ServiceList',
          metadata: { resourceVersion: '5' },
          items: [svc('default', 'kubernetes', '10.0.0.1', '1'), svc('ns', 'web', 'None', '2')],
        }),
      );
      return;
    }
    assert.equal(u.searchParams.get('resourceVersion'), '5');
    push = (type, object) => res.write(JSON.stringify({ type, object }) + '\n');
  });
  const lister = new ServiceLister({ rest, clock: systemClock, logger: recordingLogger() });
  assert.equal(lister.synced(), false);
  const ac = new AbortController();
  t.after(() => ac.abort());
  lister.start(ac.signal);
  assert.equal(await lister.waitForSync(10_000), true);
  assert.deepEqual(
    lister.list().map((s) => `${s.namespace}/${s.name}=${s.clusterIP}`),
    ['default/kubernetes=10.0.0.1', 'ns/web=None'],
  );
  await waitFor(() => push !== undefined, 'the watch');
  push?.('ADDED', svc('ns', 'db', '10.0.0.7', '6'));
  push?.('MODIFIED', svc('ns', 'web', '10.0.0.3', '7'));
  push?.('DELETED', svc('default', 'kubernetes', '10.0.0.1', '8'));
  await waitFor(
    () => lister.list().length === 2 && lister.list()[0]?.clusterIP === '10.0.0.3',
    'the events',
  );
  assert.deepEqual(
    lister.list().map((s) => `${s.namespace}/${s.name}=${s.clusterIP}:${s.ports[0]?.port}`),
    ['ns/web=10.0.0.3:80', 'ns/db=10.0.0.7:80'],
  );
  assert.deepEqual(paths.slice(0, 2), ['/api/v1/services', '/api/v1/services?watch']);
});

test('an API server that serves no Services: synced with none, said once, asked again', async (t) => {
  let asks = 0;
  const rest = await fakeApi(t, (_req, res) => {
    asks++;
    res.writeHead(404, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        kind: 'Status',
        apiVersion: 'v1',
        status: 'Failure',
        message: 'the server could not find the requested resource',
        reason: 'NotFound',
        code: 404,
      }),
    );
  });
  const logger = recordingLogger();
  const lister = new ServiceLister({
    rest,
    clock: systemClock,
    logger,
    retry: { initialMs: 5, maxMs: 10 },
  });
  const ac = new AbortController();
  t.after(() => ac.abort());
  lister.start(ac.signal);
  assert.equal(await lister.waitForSync(10_000), true);
  assert.deepEqual(lister.list(), []);
  await waitFor(() => asks >= 3, 'the retries');
  assert.deepEqual(
    logger.lines.filter((l) => l.level === 'warn').map((l) => l.msg),
    [
      'the API server does not serve services: containers get no service environment variables until it does',
    ],
  );
});

test('waitForSync gives up after its bound when nothing answers', async (t) => {
  const rest = await fakeApi(t, () => {
    // never answers
  });
  const lister = new ServiceLister({ rest, clock: systemClock, logger: recordingLogger() });
  const ac = new AbortController();
  t.after(() => ac.abort());
  lister.start(ac.signal);
  assert.equal(await lister.waitForSync(50), false);
});
