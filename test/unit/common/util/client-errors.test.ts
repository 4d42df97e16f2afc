// A request whose headers pass the limit is answered 431 and the connection drains what the client
// still sends: the parser reports its error again for each further chunk, and the connection must
// not be destroyed then (a reset can take the answer away from a client still writing).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { connect, type Socket } from 'node:net';
import { once } from 'node:events';
import { answerClientErrors } from '../../../../src/common/util/client-errors.js';

const MAX_HEADER_BYTES = 1 << 20;

test('over the header limit: 431, then the further chunks are drained, not a reset', async (t) => {
  const server = createServer({ maxHeaderSize: MAX_HEADER_BYTES }, (_req, res) => res.end('ok'));
  answerClientErrors(server);
  const serverSide: Socket[] = [];
  const destroyedOnLater: boolean[] = [];
  let answered = false;
  server.on('connection', (s: Socket) => {
    serverSide.push(s);
    // runs after the HTTP parser's own listener for each chunk
    s.on('data', () => {
      if (answered) destroyedOnLater.push(s.destroyed);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.after(() => server.close());
  const { port } = server.address() as { port: number };
  // half-open: a client still writing its request goes on after the server's end
  const client = connect({ port, host: '127.0.0.1', allowHalfOpen: true });
  t.after(() => client.destroy());
  await once(client, 'connect');
  let reply = '';
  const gotAnswer = new Promise<void>((resolve) =>
    client.on('data', (c: Buffer) => {
      reply += c.toString();
      if (reply.includes('\r\n\r\n')) resolve();
    }),
  );
  client.write(`GET / HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(MAX_HEADER_BYTES + 1024)}`);
  await gotAnswer;
  answered = true;
  assert.match(reply, /^HTTP\/1\.1 431 Request Header Fields Too Large\r\n/);
  await waitUntil(() => reply.endsWith('\r\n\r\n431 Request Header Fields Too Large'));
  for (let i = 0; i < 3; i++) {
    client.write('a'.repeat(64 * 1024));
    await waitUntil(() => destroyedOnLater.length > i);
    if (destroyedOnLater.includes(true)) break;
  }
  assert.deepEqual(destroyedOnLater, [false, false, false], 'still open after each later chunk');
  client.end();
  await once(serverSide[0] as Socket, 'close');
});

async function waitUntil(ok: () => boolean, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error(`not within ${ms} ms: ${ok.toString()}`);
    await new Promise((r) => setImmediate(r));
  }
}
