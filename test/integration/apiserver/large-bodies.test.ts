// A request with a large body that arrives while the answer before it on the same TLS connection is
// still unflushed is served, not refused. Node pauses its HTTP parser then; fed straight from the
// TLS stream, the parser was still handed the decrypted rest of the body, failed with HPE_PAUSED,
// and a valid create got a bare "400 Bad Request" (seen with 16 KiB to 256 KiB bodies on kept-alive
// connections under load). https-server.ts reads TLS connections through data events since,
// which wait while paused. A pipelined pair (a list of several MB that the client does not read
// yet, then a create) gives that moment every time.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { connect, type TLSSocket } from 'node:tls';
import { once } from 'node:events';
import { setTimeout as delay } from 'node:timers/promises';
import { startApiServer, type StartedApiServer } from '../../helpers/apiserver.js';

const CMS = '/api/v1/namespaces/default/configmaps';
let api: StartedApiServer;

function configMap(name: string): string {
  const data: Record<string, string> = {};
  for (let k = 0; k < 2000; k++) data[`key-${k}`] = `${name}-${k}-`.padEnd(120, 'x');
  return JSON.stringify({ metadata: { name }, data });
}

before(async () => {
  api = await startApiServer({});
  // About 5 MB of list to answer: more than the socket buffers hold while the client waits.
  for (let i = 0; i < 20; i++)
    assert.equal((await api.request('POST', CMS, { body: configMap(`large-${i}`) })).status, 201);
});
after(async () => {
  await api?.stop();
});

/** The status lines read off `s` until `n` answers have come whole (each has Content-Length). */
async function statuses(s: TLSSocket, n: number): Promise<string[]> {
  let buf = Buffer.alloc(0);
  const out: string[] = [];
  s.on('data', (d: Buffer) => (buf = Buffer.concat([buf, d])));
  s.resume();
  while (out.length < n) {
    const head = buf.indexOf('\r\n\r\n');
    const length =
      head < 0
        ? undefined
        : /content-length: (\d+)/i.exec(buf.subarray(0, head).toString('latin1'));
    if (head >= 0 && length?.[1] !== undefined && buf.length >= head + 4 + Number(length[1])) {
      out.push(buf.subarray(0, buf.indexOf('\r\n')).toString('latin1'));
      buf = buf.subarray(head + 4 + Number(length[1]));
      continue;
    }
    if (s.closed) break;
    await Promise.race([once(s, 'data'), once(s, 'close')]);
  }
  return out;
}

test('a create pipelined behind an unread answer of several MB is created, not refused 400', async () => {
  const u = new URL(api.url);
  const s = connect({
    host: u.hostname,
    port: Number(u.port),
    ...api.adminTls,
    servername: 'localhost',
  });
  try {
    await once(s, 'secureConnect');
    s.pause();
    const body = configMap('pipelined');
    s.write(`GET ${CMS} HTTP/1.1\r\nHost: test\r\n\r\n`);
    s.write(
      `POST ${CMS} HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
    // The server must meet the create while the list is still unflushed; nothing a client can
    // observe says when it has, so the client waits before it starts reading.
    await delay(1000);
    assert.deepEqual(await statuses(s, 2), ['HTTP/1.1 200 OK', 'HTTP/1.1 201 Created']);
  } finally {
    s.destroy();
  }
});
