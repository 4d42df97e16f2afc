// The agent's streaming endpoints on the Docker runtime, against the real program: exec over
// WebSocket (output, exit code), a terminal with resize through the engine, attach to a
// container that keeps stdin open, and port-forward into the pod's network namespace (nc in
// the sandbox) over WebSocket and SPDY, to a server that listens on the pod's 127.0.0.1 only.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { DOCKER_ENDPOINT, dockerSkipReason } from '../pods/runtimes.js';
import { frame, wsConnect, type WsResult } from '../../../helpers/ws-client.js';
import { readAll, spdyUpgrade } from '../../../helpers/spdy-client.js';
import {
  commandQuery,
  processPod,
  startStreamingAgent,
  untilExecRuns,
  type StreamingAgent,
} from './streaming-agent-harness.js';

const STDIN = 0;
const STDOUT = 1;
const ERROR = 3;
const RESIZE = 4;
const BUSYBOX = { image: 'busybox:local', imagePullPolicy: 'Never' };

const skip = await dockerSkipReason();
let a: StreamingAgent;

function opened(r: WsResult): Extract<WsResult, { kind: 'open' }> {
  if (r.kind !== 'open') throw new Error(`expected 101, got ${r.status}: ${r.body}`);
  return r;
}

before(async () => {
  if (skip !== undefined) return;
  a = await startStreamingAgent({
    runtimeEndpoint: DOCKER_ENDPOINT,
    manifests: {
      dk: processPod('dk', [
        {
          name: 'main',
          command: [
            'sh',
            '-c',
            'echo ready; while read line; do echo "got:$line"; done; echo "stdin closed"; sleep 300',
          ],
          stdin: true,
          stdinOnce: true,
          ...BUSYBOX,
        },
        {
          name: 'web',
          command: [
            'sh',
            '-c',
            'mkdir -p /www && echo inside-the-pod > /www/index.html && exec httpd -f -p 127.0.0.1:8080 -h /www',
          ],
          ...BUSYBOX,
        },
      ]),
    },
  });
  await untilExecRuns(a, 'dk', 'web', 90_000, 500);
});

after(async () => {
  await a?.stop();
});

test(
  'Docker exec over WebSocket v5: output by channel and the exit code in the Status',
  { skip },
  async () => {
    const r = opened(
      await wsConnect(
        `${a.base}/exec/default/${a.pod('dk')}/web?${commandQuery(['sh', '-c', 'echo out; echo err >&2; exit 5'])}&output=1&error=1`,
        ['v5.channel.k8s.io'],
        a.tls,
      ),
    );
    await r.messages.closed();
    assert.equal(r.messages.text(STDOUT), 'out\n');
    assert.equal(r.messages.text(2), 'err\n');
    assert.deepEqual((JSON.parse(r.messages.text(ERROR)) as { details: unknown }).details, {
      causes: [{ reason: 'ExitCode', message: '5' }],
    });
  },
);

test(
  "Docker exec with a terminal: the size sent on the resize channel reaches the engine's terminal",
  { skip },
  async () => {
    const r = opened(
      await wsConnect(
        `${a.base}/exec/default/${a.pod('dk')}/web?${commandQuery(['sh', '-c', 'while [ "$(stty size)" != "31 101" ]; do sleep 0.05; done; read x; stty size; echo "x=$x"'])}&input=1&output=1&tty=1`,
        ['v5.channel.k8s.io'],
        a.tls,
      ),
    );
    await r.messages.until(() => r.messages.order.length > 0, 'the session');
    r.ws.send(frame(RESIZE, JSON.stringify({ Width: 101, Height: 31 })));
    // The engine applies the size asynchronously: the command waits for it (a size never applied fails the test on its timeout).
    r.ws.send(frame(STDIN, 'typed\r'));
    await r.messages.closed();
    const out = r.messages.text(STDOUT);
    assert.match(out, /^31 101\r$/m, out);
    assert.match(out, /^x=typed\r$/m);
  },
);

test(
  "Docker attach with stdin: typed lines reach the container's process, its output comes back; stdinOnce ends its stdin",
  { skip },
  async () => {
    const r = opened(
      await wsConnect(
        `${a.base}/attach/default/${a.pod('dk')}/main?input=1&output=1`,
        ['v5.channel.k8s.io'],
        a.tls,
      ),
    );
    await r.messages.until(() => r.messages.order.length > 0, 'the session');
    r.ws.send(frame(STDIN, 'over docker\n'));
    await r.messages.until(() => r.messages.text(STDOUT).includes('got:over docker\n'), 'the echo');
    r.ws.send(Buffer.of(255, STDIN));
    await r.messages.until(
      () => r.messages.text(STDOUT).includes('stdin closed\n'),
      'the end of stdin (stdinOnce)',
    );
    r.ws.close();
  },
);

test(
  "Docker port-forward into the pod's network namespace (a server on the pod's 127.0.0.1), over WebSocket and SPDY; a closed port gets nc's reason",
  { skip },
  async () => {
    const r = opened(
      await wsConnect(
        `${a.base}/portForward/default/${a.pod('dk')}?port=8080`,
        ['v4.channel.k8s.io'],
        a.tls,
      ),
    );
    await r.messages.until(() => r.messages.order.length >= 2, 'the port frames');
    r.ws.send(frame(0, 'GET /index.html HTTP/1.0\r\n\r\n'));
    await r.messages.closed();
    assert.match(r.messages.afterPortPrefix(0), /^HTTP\/1\.[01] 200 OK[\s\S]*inside-the-pod\n$/);
    const s = await spdyUpgrade({
      url: `${a.base}/portForward/default/${a.pod('dk')}`,
      protocols: ['portforward.k8s.io'],
      ...a.tls,
    });
    if (s.kind !== 'upgraded') throw new Error(`expected 101, got ${s.status}`);
    const errorStream = await s.session.openStream(
      new Map([
        ['streamtype', ['error']],
        ['port', ['8080']],
        ['requestid', ['0']],
      ]),
    );
    const data = await s.session.openStream(
      new Map([
        ['streamtype', ['data']],
        ['port', ['8080']],
        ['requestid', ['0']],
      ]),
    );
    const answer = readAll(data);
    data.end('GET /index.html HTTP/1.0\r\n\r\n');
    assert.match(await answer, /^HTTP\/1\.[01] 200 OK[\s\S]*inside-the-pod\n$/);
    errorStream.end();
    const e2 = await s.session.openStream(
      new Map([
        ['streamtype', ['error']],
        ['port', ['9']],
        ['requestid', ['1']],
      ]),
    );
    const d2 = await s.session.openStream(
      new Map([
        ['streamtype', ['data']],
        ['port', ['9']],
        ['requestid', ['1']],
      ]),
    );
    d2.resume();
    assert.match(
      await readAll(e2),
      /^error forwarding port 9 to pod .*, uid [0-9a-f-]+: .*(refused|can't connect)/i,
    );
    await s.session.close();
  },
);
