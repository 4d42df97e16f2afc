// Hostile frames on the agent's streaming connections, against the real program: every frame of
// the corpora (test/fixtures/hostile-streams) is sent on its own upgraded exec connection. The
// agent closes that connection, the exec'd command is killed, the agent keeps serving, and its
// open descriptors come back to where they were.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { connect, type TLSSocket } from 'node:tls';
import { waitFor } from '../pods/agent-harness.js';
import { wsConnect } from '../../../helpers/ws-client.js';
import {
  commandQuery,
  processPod,
  startStreamingAgent,
  type StreamingAgent,
} from './streaming-agent-harness.js';
import { pidAlive } from '../../../helpers/processes.js';

interface WsCase {
  name: string;
  raw?: string;
  masked?: { b0: string; payload: string };
}
interface SpdyCase {
  name: string;
  hex: string;
}
const fixture = (name: string): unknown =>
  JSON.parse(
    readFileSync(
      new URL(`../../../../../test/fixtures/hostile-streams/${name}`, import.meta.url),
      'utf8',
    ),
  );
const WS_CASES = (fixture('websocket-frames.json') as { frames: WsCase[] }).frames;
const SPDY_CASES = (fixture('spdy-frames.json') as { frames: SpdyCase[] }).frames;

let a: StreamingAgent;

before(async () => {
  a = await startStreamingAgent({
    manifests: { target: processPod('target', [{ name: 'c', command: ['sleep', '300'] }]) },
  });
  await waitFor('the pod to run', async () => (await execOnce()) === 'ok\n', 60_000, 200);
});

after(async () => {
  await a?.stop();
});

async function execOnce(): Promise<string | undefined> {
  const r = await wsConnect(
    `${a.base}/exec/default/${a.pod('target')}/c?${commandQuery(['echo', 'ok'])}&output=1`,
    ['v5.channel.k8s.io'],
    a.tls,
  ).catch(() => undefined);
  if (r?.kind !== 'open') return undefined;
  await r.messages.closed();
  return r.messages.text(1);
}

/** An upgraded raw TLS connection running `sh -c 'echo $$; cat'`; resolves with the socket and the command's pid. */
async function upgradedWs(
  readPid: (bytes: Buffer) => number | undefined,
): Promise<{ socket: TLSSocket; pid: number; closed: Promise<void> }> {
  const socket = connect({
    host: '127.0.0.1',
    port: Number(new URL(a.base).port),
    ca: a.tls.ca,
    cert: a.tls.cert,
    key: a.tls.key,
    servername: 'localhost',
  });
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  socket.on('error', () => undefined);
  const path = `/exec/default/${a.pod('target')}/c?${commandQuery(['sh', '-c', 'echo $$; exec cat'])}&input=1&output=1`;
  socket.write(request(WS_HEADERS, path));
  let buf = Buffer.alloc(0);
  const pid = await new Promise<number>((resolve, reject) => {
    socket.on('data', (d: Buffer) => {
      buf = Buffer.concat([buf, d]);
      const end = buf.indexOf('\r\n\r\n');
      if (end < 0) return;
      if (!buf.subarray(0, 12).toString().includes('101')) reject(new Error(buf.toString()));
      const p = readPid(buf.subarray(end + 4));
      if (p !== undefined) resolve(p);
    });
    socket.once('close', () =>
      reject(new Error(`closed before the pid: ${buf.toString('latin1')}`)),
    );
  });
  socket.removeAllListeners('data');
  socket.resume();
  return { socket, pid, closed };
}

function request(template: string, path: string): string {
  const [first, ...rest] = template.split('\n');
  return `${first!.replace('PATH', path)}\r\nHost: localhost\r\n${rest.join('\r\n')}\r\n\r\n`;
}

function masked(b0: string, payloadHex: string): Buffer {
  const payload = Buffer.from(payloadHex, 'hex');
  const key = randomBytes(4);
  const body = Buffer.from(payload.map((b, i) => b ^ key[i % 4]!));
  const len =
    payload.length < 126
      ? Buffer.of(0x80 | payload.length)
      : Buffer.concat([
          Buffer.of(0x80 | 126),
          Buffer.of(payload.length >> 8, payload.length & 0xff),
        ]);
  return Buffer.concat([Buffer.from(b0, 'hex'), len, key, body]);
}

const WS_HEADERS =
  'GET PATH HTTP/1.1\nConnection: Upgrade\nUpgrade: websocket\nSec-WebSocket-Version: 13\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\nSec-WebSocket-Protocol: v5.channel.k8s.io';
const SPDY_HEADERS =
  'POST PATH HTTP/1.1\nConnection: Upgrade\nUpgrade: SPDY/3.1\nX-Stream-Protocol-Version: v4.channel.k8s.io';

/** The pid from the server's WebSocket messages (short, unmasked frames): "<pid>\n" on the stdout channel (1). */
function wsPid(bytes: Buffer): number | undefined {
  let out = '';
  for (let at = 0; at + 2 <= bytes.length;) {
    const len = bytes[at + 1]! & 0x7f;
    if (len >= 126 || at + 2 + len > bytes.length) break;
    const payload = bytes.subarray(at + 2, at + 2 + len);
    if (payload[0] === 1) out += payload.subarray(1).toString();
    at += 2 + len;
  }
  const m = /^(\d+)\n/.exec(out);
  return m === null ? undefined : Number(m[1]);
}

test(
  'malformed WebSocket frames: the connection is closed, the exec killed, the agent unaffected, no descriptor left',
  { timeout: 120_000 },
  async () => {
    const baseline = a.fds();
    for (const c of WS_CASES) {
      const { socket, pid, closed } = await upgradedWs(wsPid);
      socket.write(
        c.raw !== undefined ? Buffer.from(c.raw, 'hex') : masked(c.masked!.b0, c.masked!.payload),
      );
      await Promise.race([
        closed,
        new Promise((_, reject) =>
          setTimeout(
            () => reject(new Error(`${c.name}: the agent kept the connection open`)),
            10_000,
          ),
        ),
      ]);
      await waitFor(`${c.name}: the exec to be killed`, () => !pidAlive(pid));
    }
    assert.equal(await execOnce(), 'ok\n', 'the agent still serves');
    await waitFor(`the agent's descriptors back to ${baseline}`, () => a.fds() <= baseline);
  },
);

test(
  'malformed SPDY frames: GOAWAY and close, the exec killed, the agent unaffected, no descriptor left',
  { timeout: 120_000 },
  async () => {
    const baseline = a.fds();
    for (const c of SPDY_CASES) {
      // The agent starts the command before its 101 (as the reference); the test finds it by its command line.
      const socket = connect({
        host: '127.0.0.1',
        port: Number(new URL(a.base).port),
        ca: a.tls.ca,
        cert: a.tls.cert,
        key: a.tls.key,
        servername: 'localhost',
      });
      socket.on('error', () => undefined);
      const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
      const path = `/exec/default/${a.pod('target')}/c?${commandQuery(['sleep', '301'])}&input=1&output=1`;
      const got: Buffer[] = [];
      socket.on('data', (d: Buffer) => got.push(d));
      socket.write(request(SPDY_HEADERS, path));
      await waitFor(`${c.name}: the 101`, () => Buffer.concat(got).includes('\r\n\r\n'));
      assert.match(Buffer.concat(got).toString('latin1'), /^HTTP\/1\.1 101 /);
      socket.write(Buffer.from(c.hex, 'hex'));
      await Promise.race([
        closed,
        new Promise((_, reject) =>
          setTimeout(
            () => reject(new Error(`${c.name}: the agent kept the connection open`)),
            10_000,
          ),
        ),
      ]);
    }
    await waitFor('every sleep 301 to be killed', () => !processesNamed('sleep 301'));
    assert.equal(await execOnce(), 'ok\n', 'the agent still serves');
    await waitFor(`the agent's descriptors back to ${baseline}`, () => a.fds() <= baseline);
  },
);

function processesNamed(cmdline: string): boolean {
  return readdirSync('/proc').some((p) => {
    if (!/^\d+$/.test(p)) return false;
    try {
      return readFileSync(`/proc/${p}/cmdline`, 'latin1').replace(/\0/g, ' ').trim() === cmdline;
    } catch {
      return false;
    }
  });
}
