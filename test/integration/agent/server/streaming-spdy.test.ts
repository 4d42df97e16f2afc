// The agent's streaming endpoints over SPDY/3.1 against the started secure server, with a real
// process:// pod (the process runtime, a running container) behind them: exec output, exit
// code in the v4 Status, stdin, the reference's refusals, a client that vanishes, and
// port-forward carrying an HTTP request to a server on the pod's port.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { ProcessRuntime } from '../../../../src/agent/runtime/process/runtime.js';
import { RuntimeStreaming } from '../../../../src/agent/server/streaming-adapters.js';
import type { LiveConnection } from '../../../../src/agent/server/streaming/session-start.js';
import { silentLogger } from '../../../../src/common/log/types.js';
import { systemClock } from '../../../../src/common/util/clock.js';
import type { Pod } from '../../../../src/agent/pod/types.js';
import {
  makeServerCerts,
  startServerFixture,
  FakeSarReviewer,
  type ServerCerts,
  type ServerFixture,
} from '../../../helpers/server-fixture.js';
import {
  openExecStreams,
  readAll,
  spdyUpgrade,
  type UpgradeResult,
} from '../../../helpers/spdy-client.js';
import { waitFor } from '../../../helpers/server-https-request.js';
import { ManualClock } from '../../../helpers/manual-clock.js';
import { wsConnect } from '../../../helpers/ws-client.js';
import { pidAlive } from '../../../helpers/processes.js';

const POD: Pod = {
  metadata: { name: 'web', namespace: 'default', uid: '0123456789abcdef0123456789abcdef' },
  spec: { containers: [{ name: 'c', command: ['sleep', '300'] }] },
};

let certs: ServerCerts;
let root: string;
let runtime: ProcessRuntime;
let f: ServerFixture;
const live = new Set<LiveConnection>();
const sar = new FakeSarReviewer((spec) => spec.user === 'alice');

before(async () => {
  certs = await makeServerCerts();
  root = await mkdtemp(join(tmpdir(), 'na-streaming-'));
  runtime = new ProcessRuntime({
    rootDir: root,
    logger: silentLogger(),
    clock: systemClock,
    pollIntervalMs: 200,
  });
  const sb = await runtime.runPodSandbox({ pod: POD, attempt: 0 });
  const id = await runtime.createContainer({
    pod: POD,
    container: POD.spec.containers[0]!,
    kind: 'app',
    attempt: 0,
    specHash: 'h',
    sandboxId: sb,
    volumePaths: {},
  });
  await runtime.startContainer(id);
  const streaming = new RuntimeStreaming({
    runtime,
    pods: { pods: () => [POD as Pod & { metadata: { uid: string; namespace: string } }] },
  });
  f = await startServerFixture({
    certs,
    anonymous: false,
    authorization: {
      mode: 'Webhook',
      reviewer: sar,
      authorizedTtlMs: 300_000,
      unauthorizedTtlMs: 30_000,
    },
    streaming,
    liveStreamingSessions: live,
  });
});

after(async () => {
  await f?.stop();
  for (const c of (await runtime?.listContainers()) ?? [])
    await runtime.stopContainer(c.id, 0).catch(() => undefined);
  await runtime?.close();
  await rm(root, { recursive: true, force: true });
});

const alice = (): { ca: string; cert: string; key: string } => ({
  ca: certs.ca.certPem,
  cert: certs.alice.certPem,
  key: certs.alice.keyPem,
});

function upgraded(r: UpgradeResult): Extract<UpgradeResult, { kind: 'upgraded' }> {
  if (r.kind !== 'upgraded') throw new Error(`expected 101, got ${r.status}: ${r.body}`);
  return r;
}

test('exec over SPDY v4: stdout, stderr, and the exit code in the Status on the error stream', async () => {
  const cmd = ['sh', '-c', 'echo out; echo err >&2; exit 3']
    .map((c) => `command=${encodeURIComponent(c)}`)
    .join('&');
  const r = upgraded(
    await spdyUpgrade({
      url: `${f.base}/exec/default/web/c?${cmd}&output=1&error=1`,
      protocols: ['v4.channel.k8s.io', 'channel.k8s.io'],
      ...alice(),
    }),
  );
  assert.equal(r.protocol, 'v4.channel.k8s.io');
  const s = await openExecStreams(r.session, ['stdout', 'stderr']);
  const [status, out, err] = await Promise.all([
    readAll(s.get('error')!),
    readAll(s.get('stdout')!),
    readAll(s.get('stderr')!),
  ]);
  assert.deepEqual([out, err, status.slice(0, 40)], ['out\n', 'err\n', status.slice(0, 40)]);
  assert.equal(out, 'out\n');
  assert.equal(err, 'err\n');
  // The reference's remotecommand v4 Status for a non-zero exit (kubectl reads the ExitCode cause).
  const parsed = JSON.parse(status) as {
    status: string;
    reason: string;
    details: { causes: { reason: string; message: string }[] };
  };
  assert.equal(parsed.status, 'Failure');
  assert.equal(parsed.reason, 'NonZeroExitCode');
  assert.deepEqual(parsed.details.causes, [{ reason: 'ExitCode', message: '3' }]);
  // The upgrade was authorized as the reference does it: nodes/proxy, verb create.
  const spec = sar.specs.find(
    (x) => x.user === 'alice' && x.resourceAttributes?.subresource === 'proxy',
  );
  assert.equal(spec?.resourceAttributes?.verb, 'create');
  await waitFor(() => r.session.isClosed(), 'the agent closes the session after the exit');
});

test('exec success: v4 Status Success; stdin reaches the command and its end closes stdin', async () => {
  const r = upgraded(
    await spdyUpgrade({
      url: `${f.base}/exec/default/web/c?command=cat&input=1&output=1`,
      protocols: ['v4.channel.k8s.io'],
      ...alice(),
    }),
  );
  const s = await openExecStreams(r.session, ['stdin', 'stdout']);
  const statusP = readAll(s.get('error')!);
  const outP = readAll(s.get('stdout')!);
  s.get('stdin')!.end('hello through stdin\n');
  assert.equal(await outP, 'hello through stdin\n');
  assert.deepEqual(JSON.parse(await statusP), { metadata: {}, status: 'Success' });
});

test('older protocols: v2 gets the plain message on the error stream', async () => {
  const cmd = ['sh', '-c', 'exit 2'].map((c) => `command=${encodeURIComponent(c)}`).join('&');
  const r = upgraded(
    await spdyUpgrade({
      url: `${f.base}/exec/default/web/c?${cmd}&output=1`,
      protocols: ['v2.channel.k8s.io'],
      ...alice(),
    }),
  );
  assert.equal(r.protocol, 'v2.channel.k8s.io');
  const s = await openExecStreams(r.session, ['stdout']);
  assert.match(
    await readAll(s.get('error')!),
    /^command terminated with non-zero exit code: .*exited with 2/,
  );
});

test('refusals as the reference answers them', async () => {
  // No common subprotocol: httpstream.Handshake's 403 listing what the server accepts.
  const none = await spdyUpgrade({
    url: `${f.base}/exec/default/web/c?command=true&output=1`,
    protocols: ['v9.channel.k8s.io'],
    ...alice(),
  });
  assert.equal(none.kind, 'refused');
  if (none.kind === 'refused') {
    assert.equal(none.status, 403);
    const msg =
      'unable to upgrade: unable to negotiate protocol: client supports [v9.channel.k8s.io], server accepts [v4.channel.k8s.io v3.channel.k8s.io v2.channel.k8s.io channel.k8s.io]';
    assert.equal(none.body, `${msg}\n${msg}\n`);
    assert.equal(
      none.headers['x-accepted-stream-protocol-versions'],
      'v4.channel.k8s.io, v3.channel.k8s.io, v2.channel.k8s.io, channel.k8s.io',
    );
  }
  // No X-Stream-Protocol-Version: 400 "unable to upgrade: X-Stream-Protocol-Version is required".
  const missing = await spdyUpgrade({
    url: `${f.base}/exec/default/web/c?command=true&output=1`,
    protocols: [],
    ...alice(),
  });
  assert.deepEqual(missing.kind === 'refused' ? [missing.status, missing.body] : [], [
    400,
    'unable to upgrade: X-Stream-Protocol-Version is required\n',
  ]);
  // The reference's NewOptions: no stream asked for.
  const nostream = await spdyUpgrade({
    url: `${f.base}/exec/default/web/c?command=true`,
    protocols: ['v4.channel.k8s.io'],
    ...alice(),
  });
  assert.deepEqual(nostream.kind === 'refused' ? [nostream.status, nostream.body] : [], [
    400,
    'you must specify at least 1 of stdin, stdout, stderr\n',
  ]);
  // The kubelet's answers for a missing pod (404 "pod does not exist") and container (container not found ("x")).
  const noPod = await spdyUpgrade({
    url: `${f.base}/exec/default/nope/c?command=true&output=1`,
    protocols: ['v4.channel.k8s.io'],
    ...alice(),
  });
  assert.deepEqual(noPod.kind === 'refused' ? [noPod.status, noPod.body] : [], [
    404,
    'pod does not exist',
  ]);
  const noCtr = await spdyUpgrade({
    url: `${f.base}/exec/default/web/x?command=true&output=1`,
    protocols: ['v4.channel.k8s.io'],
    ...alice(),
  });
  assert.deepEqual(noCtr.kind === 'refused' ? [noCtr.status, noCtr.body] : [], [
    500,
    'container not found ("x")',
  ]);
  // Unauthenticated and unauthorized upgrades never reach the endpoint.
  const anon = await spdyUpgrade({
    url: `${f.base}/exec/default/web/c?command=true&output=1`,
    protocols: ['v4.channel.k8s.io'],
    ca: certs.ca.certPem,
  });
  assert.deepEqual(anon.kind === 'refused' ? [anon.status, anon.body] : [], [401, 'Unauthorized']);
  const bob = await spdyUpgrade({
    url: `${f.base}/exec/default/web/c?command=true&output=1`,
    protocols: ['v4.channel.k8s.io'],
    ca: certs.ca.certPem,
    cert: certs.bob.certPem,
    key: certs.bob.keyPem,
  });
  assert.deepEqual(bob.kind === 'refused' ? [bob.status, bob.body] : [], [
    403,
    'Forbidden (user=bob, verb=create, resource=nodes, subresource=proxy)',
  ]);
});

test('a client that disappears mid-stream: the command is gone, and so are the session and every handle', async () => {
  const handles = (): number =>
    process
      .getActiveResourcesInfo()
      .filter((h) => ['ProcessWrap', 'PipeWrap', 'TLSWrap', 'TCPSocketWrap', 'TCPWrap'].includes(h))
      .length;
  const baseline = handles();
  const pidFile = join(root, `exec-pid-${process.pid}`);
  const sleeperFile = `${pidFile}.sleeper`;
  const script = `echo $$ > ${pidFile}; sleep 300 & echo $! > ${sleeperFile}; echo started; cat > /dev/null; wait`;
  const r = upgraded(
    await spdyUpgrade({
      url: `${f.base}/exec/default/web/c?command=sh&command=-c&command=${encodeURIComponent(script)}&input=1&output=1`,
      protocols: ['v4.channel.k8s.io'],
      ...alice(),
    }),
  );
  const s = await openExecStreams(r.session, ['stdin', 'stdout']);
  await new Promise<void>((resolve) => s.get('stdout')!.once('data', () => resolve()));
  const pid = Number((await readFile(pidFile, 'utf8')).trim());
  const sleeper = Number((await readFile(sleeperFile, 'utf8')).trim());
  assert.ok(pidAlive(pid), 'the command runs while the client is there');
  assert.equal(live.size, 1, 'one session in flight');
  assert.ok(handles() > baseline, 'the exec holds a process, its pipes and the connection');
  r.socket.destroy();
  await waitFor(() => live.size === 0, 'the agent drops the session of a vanished client');
  await waitFor(() => !pidAlive(pid), 'the command is killed');
  await waitFor(() => !pidAlive(sleeper), 'and what it started (its process group)');
  await waitFor(
    () => handles() <= baseline,
    `every handle released (baseline ${baseline}, now ${handles()})`,
  );
  assert.ok(
    (await runtime.listContainers()).some((c) => c.state === 'running' && c.kind !== 'sandbox'),
    'the pod itself is untouched',
  );
});

test('port-forward over SPDY carries an HTTP request to a server on the pod port', async (t) => {
  const server: Server = createServer((req, res) => res.end(`hello from ${req.url}`));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const port = (server.address() as AddressInfo).port;
  const r = upgraded(
    await spdyUpgrade({
      url: `${f.base}/portForward/default/web`,
      protocols: ['portforward.k8s.io'],
      ...alice(),
    }),
  );
  assert.equal(r.protocol, 'portforward.k8s.io');
  const errorStream = await r.session.openStream(
    new Map([
      ['streamtype', ['error']],
      ['port', [String(port)]],
      ['requestid', ['0']],
    ]),
  );
  const data = await r.session.openStream(
    new Map([
      ['streamtype', ['data']],
      ['port', [String(port)]],
      ['requestid', ['0']],
    ]),
  );
  const answer = readAll(data);
  data.end(`GET /through-the-tunnel HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
  assert.match(await answer, /^HTTP\/1\.1 200 OK[\s\S]*hello from \/through-the-tunnel$/);
  errorStream.end();
  // A closed port: the reference's wording on the error stream.
  const e2 = await r.session.openStream(
    new Map([
      ['streamtype', ['error']],
      ['port', ['1']],
      ['requestid', ['1']],
    ]),
  );
  await r.session.openStream(
    new Map([
      ['streamtype', ['data']],
      ['port', ['1']],
      ['requestid', ['1']],
    ]),
  );
  assert.match(
    await readAll(e2),
    /^error forwarding port 1 to pod web, uid 0123456789abcdef0123456789abcdef: connect ECONNREFUSED 127\.0\.0\.1:1$/,
  );
  await r.session.close();
});

test('--streaming-connection-idle-timeout (on the Clock): a session that moves bytes lives on; one idle for the timeout is closed and its command killed', async (t) => {
  const idleLive = new Set<LiveConnection>();
  const clock = new ManualClock(Date.now()); // the client certificates are valid from now
  const streaming = new RuntimeStreaming({
    runtime,
    pods: { pods: () => [POD as Pod & { metadata: { uid: string; namespace: string } }] },
  });
  const g = await startServerFixture({
    certs,
    anonymous: false,
    authorization: { mode: 'AlwaysAllow' },
    streaming,
    liveStreamingSessions: idleLive,
    streamingIdleTimeoutMs: 60_000,
    clock,
  });
  t.after(() => g.stop());
  const pidFile = join(root, `idle-pid-${process.pid}`);
  const script = `echo $$ > ${pidFile}; echo started; exec sleep 300`;
  const r = upgraded(
    await spdyUpgrade({
      url: `${g.base}/exec/default/web/c?command=sh&command=-c&command=${encodeURIComponent(script)}&input=1&output=1`,
      protocols: ['v4.channel.k8s.io'],
      ...alice(),
    }),
  );
  const s = await openExecStreams(r.session, ['stdin', 'stdout']);
  await new Promise<void>((resolve) => s.get('stdout')!.once('data', () => resolve()));
  const pid = Number((await readFile(pidFile, 'utf8')).trim());
  await clock.waitForSleepers(1);
  // The streams were opened and output sent during this first period: not idle.
  clock.advance(60_000);
  await clock.waitForSleepers(1);
  assert.equal(r.session.isClosed(), false, 'bytes moved during the period: the session stays');
  assert.ok(pidAlive(pid));
  // Nothing moves during the next period: closed.
  clock.advance(60_000);
  await waitFor(() => r.session.isClosed(), 'the agent closes the idle session');
  await waitFor(
    () => idleLive.size === 0 && !pidAlive(pid),
    'the session is dropped and the command killed',
  );
});

test('--streaming-connection-idle-timeout over WebSocket (on the Clock): an idle exec connection is closed, its command killed', async (t) => {
  const idleLive = new Set<LiveConnection>();
  const clock = new ManualClock(Date.now());
  const streaming = new RuntimeStreaming({
    runtime,
    pods: { pods: () => [POD as Pod & { metadata: { uid: string; namespace: string } }] },
  });
  const g = await startServerFixture({
    certs,
    anonymous: false,
    authorization: { mode: 'AlwaysAllow' },
    streaming,
    liveStreamingSessions: idleLive,
    streamingIdleTimeoutMs: 60_000,
    clock,
  });
  t.after(() => g.stop());
  const r = await wsConnect(
    `${g.base}/exec/default/web/c?command=sh&command=-c&command=${encodeURIComponent('echo $$; exec sleep 300')}&input=1&output=1`,
    ['v5.channel.k8s.io'],
    alice(),
  );
  if (r.kind !== 'open') throw new Error(`expected 101, got ${r.status}`);
  await r.messages.until(() => /^\d+\n/.test(r.messages.text(1)), 'the pid');
  const pid = Number(r.messages.text(1).trim());
  await clock.waitForSleepers(1);
  clock.advance(60_000); // the pid was sent during this period
  await clock.waitForSleepers(1);
  assert.equal(
    r.messages.closeCode,
    undefined,
    'bytes moved during the period: the connection stays',
  );
  clock.advance(60_000);
  await r.messages.closed();
  await waitFor(
    () => idleLive.size === 0 && !pidAlive(pid),
    'the connection is dropped and the command killed',
  );
});
