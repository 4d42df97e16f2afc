// The streaming endpoints' path shapes, read before any protocol is spoken: /portForward/{ns}/{pod}
// with an optional uid, /exec and /attach with {ns}/{pod}[/{uid}]/{container}; any other number of
// segments is a 400 naming the accepted shape. A recording runtime refuses every target with a
// 404 whose text is the reference it was handed, so each test sees how the path was read.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { silentLogger } from '../../../../src/common/log/types.js';
import { responseOnUpgrade } from '../../../../src/common/util/upgrade-response.js';
import { serveStreaming } from '../../../../src/agent/server/streaming/serve.js';
import {
  StreamTargetError,
  type StreamingRuntime,
} from '../../../../src/agent/server/streaming/types.js';

const refused = (ref: unknown): Promise<never> =>
  Promise.reject(new StreamTargetError(404, `ref ${JSON.stringify(ref)}`));

const runtime: StreamingRuntime = {
  exec: (ref) => refused(ref),
  attach: (ref) => refused(ref),
  portForward: (ref) => refused(ref),
  supportsTty: false,
};

let server: Server;
let port = 0;

before(async () => {
  server = createServer();
  server.on('upgrade', (req, socket, head) => {
    const res = responseOnUpgrade(req, socket);
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    void serveStreaming(
      req,
      res,
      url,
      { socket, head },
      { runtime, logger: silentLogger(), idleTimeoutMs: 0 },
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

after(() => {
  server.close();
});

/** A WebSocket upgrade of `path`; the refusal's status and text (the runtime refuses every target). */
function upgrade(path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({
      host: '127.0.0.1',
      port,
      path,
      headers: {
        connection: 'Upgrade',
        upgrade: 'websocket',
        'sec-websocket-version': '13',
        'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==',
      },
    });
    req.on('upgrade', () => reject(new Error(`${path}: upgraded, expected a refusal`)));
    req.on('response', (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

test('portForward: {ns}/{pod} and {ns}/{pod}/{uid} reach the runtime as such; other shapes are 400 naming the accepted one', async () => {
  assert.deepEqual(await upgrade('/portForward/ns1/pod1?port=80'), {
    status: 404,
    body: 'ref {"namespace":"ns1","pod":"pod1"}\n',
  });
  assert.deepEqual(await upgrade('/portForward/ns1/pod1/uid-1?port=80'), {
    status: 404,
    body: 'ref {"namespace":"ns1","pod":"pod1","uid":"uid-1"}\n',
  });
  for (const path of [
    '/portForward/ns1?port=80',
    '/portForward/ns1/pod1/uid-1/extra?port=80',
    '/portForward/?port=80',
    '/portForward/ns1/%E0%A4%A?port=80',
  ]) {
    assert.deepEqual(
      await upgrade(path),
      { status: 400, body: 'expected /portForward/{namespace}/{pod}[/{uid}]\n' },
      path,
    );
  }
});

test('exec and attach: {ns}/{pod}/{container} and {ns}/{pod}/{uid}/{container} reach the runtime as such; other shapes are 400 naming the accepted one', async () => {
  assert.deepEqual(await upgrade('/exec/ns1/pod1/c1?command=true&output=1'), {
    status: 404,
    body: 'ref {"namespace":"ns1","pod":"pod1","container":"c1"}',
  });
  assert.deepEqual(await upgrade('/exec/ns1/pod1/uid-1/c1?command=true&output=1'), {
    status: 404,
    body: 'ref {"namespace":"ns1","pod":"pod1","uid":"uid-1","container":"c1"}',
  });
  assert.deepEqual(await upgrade('/attach/ns1/pod1/c1?output=1'), {
    status: 404,
    body: 'ref {"namespace":"ns1","pod":"pod1","container":"c1"}',
  });
  for (const kind of ['exec', 'attach']) {
    for (const rest of ['ns1/pod1', 'ns1/pod1/uid-1/c1/extra', 'ns1', '']) {
      const path = `/${kind}/${rest}?command=true&output=1`;
      assert.deepEqual(
        await upgrade(path),
        { status: 400, body: `expected /${kind}/{namespace}/{pod}[/{uid}]/{container}\n` },
        path,
      );
    }
  }
});
