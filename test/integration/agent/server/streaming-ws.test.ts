// The agent's streaming endpoints over WebSocket, against the real program (node bin/nodeagent)
// with static process:// pods: exec over v5 (close signal), v4 and base64 with the reference's
// framing and Status, a terminal with resize, attach to a container's stdio, port-forward
// with the port prefix frames, the reference's refusals, and a client that vanishes.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { waitFor } from '../pods/agent-harness.js';
import { frame, wsConnect, type WsResult } from '../../../helpers/ws-client.js';
import { openExecStreams, spdyUpgrade } from '../../../helpers/spdy-client.js';
import {
  commandQuery,
  processPod,
  startStreamingAgent,
  untilExecRuns,
  type StreamingAgent,
} from './streaming-agent-harness.js';
import { pidAlive } from '../../../helpers/processes.js';

const STDIN = 0;
const STDOUT = 1;
const STDERR = 2;
const ERROR = 3;
const RESIZE = 4;

let a: StreamingAgent;
let web: Server;

function opened(r: WsResult): Extract<WsResult, { kind: 'open' }> {
  if (r.kind !== 'open') throw new Error(`expected 101, got ${r.status}: ${r.body}`);
  return r;
}

before(async () => {
  web = createServer((req, res) => res.end(`hello from ${req.url}`));
  await new Promise<void>((resolve) => web.listen(0, '127.0.0.1', resolve));
  a = await startStreamingAgent({
    manifests: {
      echo: processPod('echo', [
        {
          name: 'main',
          command: [
            'sh',
            '-c',
            'echo ready; while read line; do echo "got:$line"; done; echo "stdin closed"; sleep 300',
          ],
          stdin: true,
          stdinOnce: true,
        },
        { name: 'side', command: ['sleep', '300'] },
        {
          name: 'keep',
          command: [
            'sh',
            '-c',
            'while read line; do echo "kept:$line"; done; echo "keep: stdin closed"; sleep 300',
          ],
          stdin: true,
        },
      ]),
    },
  });
  await untilExecRuns(a, 'echo', 'side', 60_000, 200);
});

after(async () => {
  await a?.stop();
  web?.close();
});

const execUrl = (container: string, argv: readonly string[], q: string): string =>
  `${a.base}/exec/default/${a.pod('echo')}/${container}?${commandQuery(argv)}&${q}`;

test('exec over v5.channel.k8s.io: the empty first message on stdout, output by channel, the exit code in the v4 Status, then close 1000', async () => {
  const r = opened(
    await wsConnect(
      execUrl('side', ['sh', '-c', 'echo out; echo err >&2; exit 3'], 'output=1&error=1'),
      ['v5.channel.k8s.io'],
      a.tls,
    ),
  );
  assert.equal(r.protocol, 'v5.channel.k8s.io');
  await r.messages.closed();
  // The reference's remotecommand websocket server announces the session with an empty message on the lowest output channel.
  assert.deepEqual(r.messages.order[0], { channel: STDOUT, data: Buffer.alloc(0) });
  assert.equal(r.messages.text(STDOUT), 'out\n');
  assert.equal(r.messages.text(STDERR), 'err\n');
  assert.deepEqual(JSON.parse(r.messages.text(ERROR)), {
    metadata: {},
    status: 'Failure',
    message:
      "command terminated with non-zero exit code: command 'sh -c echo out; echo err >&2; exit 3' exited with 3",
    reason: 'NonZeroExitCode',
    details: { causes: [{ reason: 'ExitCode', message: '3' }] },
  });
  assert.equal(r.messages.closeCode, 1000);
});

test("v5 close signal: [255, 0] closes the command's stdin (cat ends, Success)", async () => {
  const r = opened(
    await wsConnect(execUrl('side', ['cat'], 'input=1&output=1'), ['v5.channel.k8s.io'], a.tls),
  );
  r.ws.send(frame(STDIN, 'through stdin\n'));
  await r.messages.until(() => r.messages.text(STDOUT) === 'through stdin\n', 'the echo');
  r.ws.send(Buffer.of(255, STDIN));
  await r.messages.closed();
  assert.deepEqual(JSON.parse(r.messages.text(ERROR)), { metadata: {}, status: 'Success' });
});

test("v4.channel.k8s.io and base64.channel.k8s.io: the client's order decides; base64 frames are text with an ASCII channel digit; pre-v4 errors are plain text", async () => {
  const v4 = opened(
    await wsConnect(
      execUrl('side', ['sh', '-c', 'exit 2'], 'output=1'),
      ['v4.channel.k8s.io', 'v5.channel.k8s.io'],
      a.tls,
    ),
  );
  assert.equal(v4.protocol, 'v4.channel.k8s.io');
  await v4.messages.closed();
  assert.equal(
    (JSON.parse(v4.messages.text(ERROR)) as { reason: string }).reason,
    'NonZeroExitCode',
  );
  const raw: { text: boolean; data: string }[] = [];
  const b64 = opened(
    await wsConnect(
      execUrl('side', ['sh', '-c', 'printf "\\001\\377bin"; exit 4'], 'output=1'),
      ['base64.channel.k8s.io'],
      a.tls,
    ),
  );
  b64.ws.on('message', (d: Buffer, isBinary: boolean) =>
    raw.push({ text: !isBinary, data: d.toString('latin1') }),
  );
  await b64.messages.closed();
  assert.ok(
    raw.every((m) => m.text),
    'every message is a text message',
  );
  assert.deepEqual(
    b64.messages.byChannel
      .get(STDOUT)
      ?.map((b) => [...b])
      .flat(),
    [1, 255, 98, 105, 110],
  );
  assert.equal(
    b64.messages.text(ERROR),
    'command terminated with non-zero exit code: command \'sh -c printf "\\001\\377bin"; exit 4\' exited with 4',
  );
});

test("an unknown subprotocol: 403 with an empty body, as x/net/websocket answers the handshake function's refusal", async () => {
  const r = await wsConnect(
    execUrl('side', ['true'], 'output=1'),
    ['v9.channel.k8s.io'],
    a.tls,
  ).catch((err: unknown) => err as Error);
  assert.ok(
    !(r instanceof Error) && r.kind === 'refused',
    String(r instanceof Error ? r.message : r.kind),
  );
  if (r.kind === 'refused') assert.deepEqual([r.status, r.body], [403, '']);
  // Port-forward over WebSocket speaks v4.channel.k8s.io, not portforward.k8s.io (the reference's kubelet).
  const pf = await wsConnect(
    `${a.base}/portForward/default/${a.pod('echo')}?port=80`,
    ['portforward.k8s.io'],
    a.tls,
  );
  assert.deepEqual(pf.kind === 'refused' ? [pf.status, pf.body] : [], [403, '']);
  // The reference's NewOptions and pod lookup, before any upgrade.
  const nostream = await wsConnect(
    `${a.base}/exec/default/${a.pod('echo')}/side?command=true`,
    ['v5.channel.k8s.io'],
    a.tls,
  );
  assert.deepEqual(nostream.kind === 'refused' ? [nostream.status, nostream.body] : [], [
    400,
    'you must specify at least 1 of stdin, stdout, stderr\n',
  ]);
  const noCtr = await wsConnect(
    `${a.base}/exec/default/${a.pod('echo')}/nope?command=true&output=1`,
    ['v5.channel.k8s.io'],
    a.tls,
  );
  assert.deepEqual(noCtr.kind === 'refused' ? [noCtr.status, noCtr.body] : [], [
    500,
    'container not found ("nope")',
  ]);
});

test("exec with a terminal (node-pty): resize from channel 4 reaches the terminal, stdin is the terminal's", async () => {
  const r = opened(
    await wsConnect(
      execUrl(
        'side',
        ['sh', '-c', 'read x; stty size; echo "x=$x"; tty'],
        'input=1&output=1&tty=1',
      ),
      ['v5.channel.k8s.io'],
      a.tls,
    ),
  );
  r.ws.send(frame(RESIZE, JSON.stringify({ Width: 123, Height: 45 })));
  r.ws.send(frame(STDIN, 'hello\r'));
  await r.messages.closed();
  const out = r.messages.text(STDOUT);
  assert.match(out, /^45 123\r$/m, out);
  assert.match(out, /^x=hello\r$/m);
  assert.match(out, /^\/dev\/pts\/\d+\r$/m);
  assert.equal(r.messages.text(STDERR), '', 'a terminal merges stderr into stdout');
  assert.deepEqual(JSON.parse(r.messages.text(ERROR)), { metadata: {}, status: 'Success' });
});

test('attach (v5) to a process:// container with stdin: what the client types reaches the process, its output comes back; stdinOnce closes its stdin at the end', async () => {
  const r = opened(
    await wsConnect(
      `${a.base}/attach/default/${a.pod('echo')}/main?input=1&output=1`,
      ['v5.channel.k8s.io'],
      a.tls,
    ),
  );
  await r.messages.until(() => r.messages.order.length > 0, 'the first message');
  r.ws.send(frame(STDIN, 'first line\n'));
  await r.messages.until(
    () => r.messages.text(STDOUT).includes('got:first line\n'),
    'the echo of the first line',
  );
  r.ws.send(Buffer.of(255, STDIN));
  await r.messages.until(
    () => r.messages.text(STDOUT).includes('stdin closed\n'),
    'the container to see the end of its stdin (stdinOnce)',
  );
  r.ws.close();
  await r.messages.closed();
});

test("port-forward over WebSocket: port i on channels 2i and 2i+1, each opened with the port (2 bytes, little endian); a closed port gets the reference's message", async () => {
  const port = (web.address() as AddressInfo).port;
  const r = opened(
    await wsConnect(
      `${a.base}/portForward/default/${a.pod('echo')}?port=${port},1`,
      ['v4.channel.k8s.io'],
      a.tls,
    ),
  );
  const le = (p: number): Buffer => Buffer.of(p & 0xff, p >> 8);
  await r.messages.until(() => r.messages.order.length >= 4, 'the four port frames');
  assert.deepEqual(
    r.messages.order
      .slice(0, 4)
      .sort((x, y) => x.channel - y.channel)
      .map((m) => [m.channel, [...m.data]]),
    [
      [0, [...le(port)]],
      [1, [...le(port)]],
      [2, [...le(1)]],
      [3, [...le(1)]],
    ],
  );
  r.ws.send(frame(0, 'GET /through-ws HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'));
  await r.messages.closed();
  assert.match(r.messages.afterPortPrefix(0), /^HTTP\/1\.1 200 OK[\s\S]*hello from \/through-ws$/);
  assert.match(
    r.messages.afterPortPrefix(3),
    /^error forwarding port 1 to pod .*, uid [0-9a-f-]+: connect ECONNREFUSED 127\.0\.0\.1:1$/,
  );
  // The reference's NewV4Options refusals (400).
  const none = await wsConnect(
    `${a.base}/portForward/default/${a.pod('echo')}`,
    ['v4.channel.k8s.io'],
    a.tls,
  );
  assert.deepEqual(none.kind === 'refused' ? [none.status, none.body] : [], [
    400,
    'query parameter "port" is required\n',
  ]);
  const zero = await wsConnect(
    `${a.base}/portForward/default/${a.pod('echo')}?port=0`,
    ['v4.channel.k8s.io'],
    a.tls,
  );
  assert.deepEqual(zero.kind === 'refused' ? [zero.status, zero.body] : [], [
    400,
    'port "0" must be > 0\n',
  ]);
  const junk = await wsConnect(
    `${a.base}/portForward/default/${a.pod('echo')}?port=http`,
    ['v4.channel.k8s.io'],
    a.tls,
  );
  assert.ok(
    junk.kind === 'refused' &&
      junk.status === 400 &&
      junk.body.startsWith('unable to parse "http" as a port'),
  );
});

test("a WebSocket client that disappears mid-exec: the command's stdin is closed and it is killed; the agent holds no more descriptors than before", async () => {
  const baseline = a.fds();
  const r = opened(
    await wsConnect(
      execUrl('side', ['sh', '-c', 'echo $$; cat; echo never'], 'input=1&output=1'),
      ['v5.channel.k8s.io'],
      a.tls,
    ),
  );
  await r.messages.until(() => /^\d+\n/.test(r.messages.text(STDOUT)), 'the pid');
  const pid = Number(r.messages.text(STDOUT).trim());
  assert.ok(pidAlive(pid));
  assert.ok(a.fds() > baseline, 'the exec holds the connection and the pipes');
  r.ws.terminate();
  await waitFor('the command to be gone', () => !pidAlive(pid));
  await waitFor(`the agent's descriptors back to ${baseline}`, () => a.fds() <= baseline);
});

test("a client that disappears from a terminal exec: the command on the pty is killed and the agent's descriptors (the pty too) come back", async () => {
  const baseline = a.fds();
  const r = opened(
    await wsConnect(
      execUrl('side', ['sh', '-c', 'echo $$; exec cat'], 'input=1&output=1&tty=1'),
      ['v5.channel.k8s.io'],
      a.tls,
    ),
  );
  await r.messages.until(() => /^\d+\r?\n/.test(r.messages.text(STDOUT)), 'the pid');
  const pid = Number(r.messages.text(STDOUT).trim().split(/\s/)[0]);
  assert.ok(pidAlive(pid));
  assert.ok(a.fds() > baseline, 'the exec holds the connection and the pty');
  r.ws.terminate();
  await waitFor('the command on the pty to be gone', () => !pidAlive(pid));
  await waitFor(`the agent's descriptors back to ${baseline}`, () => a.fds() <= baseline);
});

test("attach over SPDY (what kube-apiserver speaks to the agent), container without stdinOnce: the end of one attacher's stdin leaves the container's stdin open for the next", async () => {
  const attachOnce = async (line: string): Promise<void> => {
    const r = await spdyUpgrade({
      url: `${a.base}/attach/default/${a.pod('echo')}/keep?input=1&output=1`,
      protocols: ['v4.channel.k8s.io'],
      ...a.tls,
    });
    if (r.kind !== 'upgraded') throw new Error(`expected 101, got ${r.status}: ${r.body}`);
    const s = await openExecStreams(r.session, ['stdin', 'stdout']);
    let out = '';
    s.get('stdout')!.on('data', (d: Buffer) => (out += d.toString()));
    s.get('stdin')!.end(`${line}\n`);
    await waitFor(`the echo of ${line}`, () => out.includes(`kept:${line}\n`));
    r.socket.destroy();
    await waitFor('the session to end', () => r.session.isClosed());
  };
  await attachOnce('first attacher');
  await attachOnce('second attacher');
});
