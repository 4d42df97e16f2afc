// kubectl 1.32 against the BUILT plat-apiserver and a BUILT agent running process:// pods:
// logs (-f, --tail, --since, --since-time, --timestamps, --limit-bytes, -c, --all-containers,
// --previous), exec (exit code, stdin) over WebSocket v5 (kubectl's default, translated to SPDY
// by plat-apiserver) and over SPDY (KUBECTL_REMOTE_COMMAND_WEBSOCKETS=false, passed through),
// port-forward over the WebSocket tunnel and over SPDY, cp both ways (tar through exec),
// nodes/proxy, the reference's refusals, and a client that vanishes mid-exec.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { connect as tlsConnect, type TLSSocket } from 'node:tls';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import WebSocket from 'ws';
import { spdyUpgrade } from '../helpers/spdy-client.js';
import { wsConnect } from '../helpers/ws-client.js';
import { join } from 'node:path';
import { kubectlSkipReason } from '../helpers/kubectl.js';
import { freePort, pidAlive } from '../helpers/processes.js';
import { waitFor } from '../helpers/server-https-request.js';
import {
  adminPems,
  openSockets,
  podRunning,
  startScene,
  type Scene,
} from './kubectl-streaming-harness.js';

const skip = kubectlSkipReason('the kubectl streaming suite') ?? false;
const NODE = 'stream-node-1';
let s: Scene;
let webPort: number;
let tokens: string;
const SPDY_EXEC = { KUBECTL_REMOTE_COMMAND_WEBSOCKETS: 'false' };
const SPDY_PF = { KUBECTL_PORT_FORWARD_WEBSOCKETS: 'false' };

function talker(trigger: string): string {
  const script = `console.log('one');console.log('two');console.log('three');const fs=require('fs');let done=false;setInterval(()=>{if(!done&&fs.existsSync(${JSON.stringify(trigger)})){done=true;console.log('after-trigger')}},100)`;
  return JSON.stringify({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'talker', namespace: 'default' },
    spec: {
      nodeName: NODE,
      terminationGracePeriodSeconds: 1,
      containers: [
        { name: 'c', image: 'busybox:local', command: ['node', '-e', script] },
        { name: 'd', image: 'busybox:local', command: ['sh', '-c', 'echo from d; exec sleep 600'] },
      ],
    },
  });
}

function web(port: number): string {
  const js = `require('http').createServer((q,r)=>r.end('hello from web '+q.url+'\\n')).listen(${port},'127.0.0.1')`;
  return JSON.stringify({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'web', namespace: 'default' },
    spec: {
      nodeName: NODE,
      terminationGracePeriodSeconds: 1,
      containers: [{ name: 'web', image: 'busybox:local', command: ['node', '-e', js] }],
    },
  });
}

before(async () => {
  if (skip !== false) return;
  tokens = await mkdtemp(join(tmpdir(), 'na-stream-tokens-'));
  await writeFile(join(tokens, 'tokens.csv'), 'getter-token,getter,3,"readers"\n');
  // Every call below goes to an agent whose serving certificate is verified (matching CA).
  s = await startScene(NODE, {
    serving: 'matching',
    apiArgs: [`--token-auth-file=${join(tokens, 'tokens.csv')}`],
  });
  webPort = await freePort();
  for (const manifest of [talker(join(s.dir, 'trigger')), web(webPort)]) {
    const r = await s.kubectl(['apply', '-f', '-'], { input: manifest });
    assert.equal(r.code, 0, r.stderr);
  }
  await podRunning(s, 'talker');
  await podRunning(s, 'web');
  await waitFor(
    async () => (await s.kubectl(['logs', 'talker', '-c', 'c'])).stdout.includes('three'),
    'talker wrote its lines',
    20_000,
    100,
  );
});

after(async () => {
  await s?.stop();
  if (tokens !== undefined) await rm(tokens, { recursive: true, force: true });
});

test(
  'logs: whole, --tail, --limit-bytes, --timestamps, --since, --since-time, -c, --all-containers',
  { skip },
  async () => {
    assert.equal((await s.kubectl(['logs', 'talker', '-c', 'c'])).stdout, 'one\ntwo\nthree\n');
    assert.equal((await s.kubectl(['logs', 'talker', '-c', 'c', '--tail=1'])).stdout, 'three\n');
    assert.equal(
      (await s.kubectl(['logs', 'talker', '-c', 'c', '--limit-bytes=6'])).stdout,
      'one\ntw',
    );
    const stamped = (await s.kubectl(['logs', 'talker', '-c', 'c', '--timestamps'])).stdout
      .trimEnd()
      .split('\n');
    assert.equal(stamped.length, 3);
    for (const [i, word] of ['one', 'two', 'three'].entries())
      assert.match(
        stamped[i]!,
        new RegExp(
          `^\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d(\\.\\d+)?(Z|[+-]\\d\\d:\\d\\d) ${word}$`,
        ),
      );
    assert.equal(
      (await s.kubectl(['logs', 'talker', '-c', 'c', '--since=1h'])).stdout,
      'one\ntwo\nthree\n',
    );
    const hourAgo = new Date(Date.now() - 3600_000).toISOString().replace(/\.\d+Z$/, 'Z');
    assert.equal(
      (await s.kubectl(['logs', 'talker', '-c', 'c', `--since-time=${hourAgo}`])).stdout,
      'one\ntwo\nthree\n',
    );
    // process:// lines carry the time the agent saw them appear: none is at or after a time to come.
    const soon = new Date(Date.now() + 3600_000).toISOString().replace(/\.\d+Z$/, 'Z');
    assert.equal(
      (await s.kubectl(['logs', 'talker', '-c', 'c', `--since-time=${soon}`])).stdout,
      '',
    );
    assert.ok(
      stamped.every((l) => Date.parse(l.slice(0, l.indexOf(' '))) <= Date.now()),
      `times not in the future: ${stamped.join(' | ')}`,
    );
    assert.equal((await s.kubectl(['logs', 'talker', '-c', 'd'])).stdout, 'from d\n');
    const all = (await s.kubectl(['logs', 'talker', '--all-containers', '--prefix'])).stdout;
    assert.match(all, /^\[pod\/talker\/c\] three$/m);
    assert.match(all, /^\[pod\/talker\/d\] from d$/m);
  },
);

test(
  'logs -f sees a line written after it started, and stops when kubectl goes',
  { skip },
  async () => {
    const baseline = openSockets(s.api.process.pid!);
    const follow = s.kubectlRunning(['logs', '-f', 'talker', '-c', 'c']);
    await follow.waitOut(/three\n/, 'the lines so far');
    await writeFile(join(s.dir, 'trigger'), 'go');
    await follow.waitOut(/after-trigger\n/, 'the line written while following');
    follow.child.kill('SIGKILL');
    await waitFor(
      () => openSockets(s.api.process.pid!) <= baseline,
      `plat-apiserver closes the follow's connections (baseline ${baseline}, now ${openSockets(s.api.process.pid!)})`,
      10_000,
      50,
    );
  },
);

test(
  'logs: the reference refusals (--previous with no previous container, bad options, unknown container)',
  { skip },
  async () => {
    const prev = await s.kubectl(['logs', 'talker', '-c', 'c', '--previous']);
    assert.notEqual(prev.code, 0);
    assert.equal(
      prev.stderr.trim(),
      'Error from server (BadRequest): previous terminated container "c" in pod "talker" not found',
    );
    const r = await s.api.request(
      'GET',
      '/api/v1/namespaces/default/pods/talker/log?container=c&tailLines=-1',
    );
    assert.equal(r.status, 422);
    assert.equal(
      r.json?.['message'],
      'PodLogOptions "talker" is invalid: tailLines: Invalid value: -1: must be greater than or equal to 0',
    );
    const both = await s.api.request(
      'GET',
      '/api/v1/namespaces/default/pods/talker/log?container=c&sinceSeconds=5&sinceTime=2024-01-01T00:00:00Z',
    );
    assert.equal(
      both.json?.['message'],
      'PodLogOptions "talker" is invalid: : Forbidden: at most one of `sinceTime` or `sinceSeconds` may be specified',
    );
    const syntax = await s.api.request(
      'GET',
      '/api/v1/namespaces/default/pods/talker/log?container=c&limitBytes=x',
    );
    assert.deepEqual(
      [syntax.status, syntax.json?.['reason'], syntax.json?.['message']],
      [400, 'BadRequest', 'strconv.ParseInt: parsing "x": invalid syntax'],
    );
    const noCtr = await s.api.request(
      'GET',
      '/api/v1/namespaces/default/pods/talker/log?container=x',
    );
    assert.deepEqual(
      [noCtr.status, noCtr.json?.['message']],
      [400, 'container x is not valid for pod talker'],
    );
    const which = await s.api.request('GET', '/api/v1/namespaces/default/pods/talker/log');
    assert.deepEqual(
      [which.status, which.json?.['message']],
      [400, 'a container name must be specified for pod talker, choose one of: [c d]'],
    );
  },
);

for (const [protocol, env] of [
  ['WebSocket v5 (translated)', {}],
  ['SPDY (passed through)', SPDY_EXEC],
] as const) {
  test(`exec over ${protocol}: output, the exit code, stdin`, { skip }, async () => {
    const r = await s.kubectl(
      ['exec', 'talker', '-c', 'c', '--', 'sh', '-c', 'echo out; echo err >&2; exit 3'],
      { env },
    );
    assert.equal(r.code, 3, r.stderr);
    assert.equal(r.stdout, 'out\n');
    assert.match(r.stderr, /^err\n/);
    const ok = await s.kubectl(['-v=7', 'exec', 'talker', '-c', 'c', '--', 'true'], { env });
    assert.equal(ok.code, 0, ok.stderr);
    // Which protocol carried it (kubectl falls back to SPDY silently when a WebSocket upgrade fails).
    if (protocol.startsWith('WebSocket'))
      assert.match(ok.stderr, /The subprotocol is v5\.channel\.k8s\.io/);
    else assert.doesNotMatch(ok.stderr, /Sec-Websocket-Protocol/i);
    const cat = await s.kubectl(['exec', '-i', 'talker', '-c', 'c', '--', 'cat'], {
      env,
      input: 'hello through stdin\nsecond line\n',
    });
    assert.deepEqual([cat.code, cat.stdout], [0, 'hello through stdin\nsecond line\n']);
  });
}

test(
  "exec refusals: a container not in the pod (the reference's 400), no upgrade, a pod without a node",
  { skip },
  async () => {
    const bad = await s.kubectl(['exec', 'talker', '-c', 'nope', '--', 'true']);
    assert.notEqual(bad.code, 0);
    assert.match(bad.stderr, /container nope is not valid for pod talker/);
    const plain = await s.api.request(
      'POST',
      '/api/v1/namespaces/default/pods/talker/exec?container=c&command=true&stdout=true',
    );
    assert.deepEqual([plain.status, plain.json?.['message']], [400, 'Upgrade request required']);
    const loose = await s.kubectl(['apply', '-f', '-'], {
      input: JSON.stringify({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'unbound' },
        // a scheduler that does not run: plat-apiserver's binds only default-scheduler's pods
        spec: { schedulerName: 'none', containers: [{ name: 'c', image: 'busybox:local' }] },
      }),
    });
    assert.equal(loose.code, 0, loose.stderr);
    const unbound = await s.api.request(
      'POST',
      '/api/v1/namespaces/default/pods/unbound/exec?container=c&command=true&stdout=true',
    );
    assert.deepEqual(
      [unbound.status, unbound.json?.['message']],
      [400, 'pod unbound does not have a host assigned'],
    );
    const emptyLog = await s.api.request('GET', '/api/v1/namespaces/default/pods/unbound/log');
    assert.deepEqual([emptyLog.status, emptyLog.text], [200, '']);
  },
);

for (const [protocol, env] of [
  ['the WebSocket tunnel', {}],
  ['SPDY', SPDY_PF],
] as const) {
  test(
    `port-forward over ${protocol} carries HTTP requests to the pod's server; kubectl gone, nothing held`,
    { skip },
    async () => {
      const baseline = openSockets(s.api.process.pid!);
      const pf = s.kubectlRunning(['-v=7', 'port-forward', 'pod/web', `:${webPort}`], env);
      const m = await pf.waitOut(
        /Forwarding from 127\.0\.0\.1:(\d+) -> \d+/,
        'kubectl port-forward listening',
      );
      const local = Number(m[1]);
      for (const path of ['/first', '/second']) {
        const res = await fetch(`http://127.0.0.1:${local}${path}`);
        assert.equal(await res.text(), `hello from web ${path}\n`);
      }
      // Which protocol carried it (kubectl falls back to SPDY silently when the tunnel's upgrade fails).
      if (protocol.includes('WebSocket'))
        assert.match(pf.err(), /negotiated protocol: portforward\.k8s\.io/);
      else assert.doesNotMatch(pf.err(), /Sec-Websocket-Protocol/i);
      pf.child.kill('SIGKILL');
      await waitFor(
        () => openSockets(s.api.process.pid!) <= baseline,
        `plat-apiserver's sockets back to ${baseline} (now ${openSockets(s.api.process.pid!)})`,
        15_000,
        50,
      );
    },
  );
}

test('cp both ways (tar through exec)', { skip }, async () => {
  const src = join(s.dir, 'to-pod.txt');
  await writeFile(src, 'carried by kubectl cp\n');
  const up = await s.kubectl(['cp', src, `talker:${join(s.dir, 'in-pod.txt')}`, '-c', 'c']);
  assert.equal(up.code, 0, up.stderr);
  assert.equal(await readFile(join(s.dir, 'in-pod.txt'), 'utf8'), 'carried by kubectl cp\n');
  const back = join(s.dir, 'back.txt');
  const down = await s.kubectl(['cp', `talker:${join(s.dir, 'in-pod.txt')}`, back, '-c', 'c']);
  assert.equal(down.code, 0, down.stderr);
  assert.equal(await readFile(back, 'utf8'), 'carried by kubectl cp\n');
});

test("nodes/proxy reaches the agent's endpoints", { skip }, async () => {
  const r = await s.kubectl(['get', '--raw', `/api/v1/nodes/${NODE}/proxy/healthz`]);
  assert.deepEqual([r.code, r.stdout.trim()], [0, 'ok']);
  const pods = JSON.parse(
    (await s.kubectl(['get', '--raw', `/api/v1/nodes/${NODE}/proxy/pods`])).stdout,
  ) as { items: { metadata: { name: string } }[] };
  assert.ok(pods.items.some((p) => p.metadata.name === 'talker'));
});

test(
  'a kubectl exec that vanishes: the command ends and plat-apiserver lets go of every connection',
  { skip },
  async () => {
    for (const env of [{}, SPDY_EXEC]) {
      const pidFile = join(s.dir, `vanish-${Object.keys(env).length}.pid`);
      const baseline = openSockets(s.api.process.pid!);
      const run = s.kubectlRunning(
        [
          'exec',
          '-i',
          'talker',
          '-c',
          'c',
          '--',
          'sh',
          '-c',
          `echo $$ > ${pidFile}; echo started; cat > /dev/null`,
        ],
        env,
      );
      await run.waitOut(/started/, 'the command started');
      const pid = Number((await readFile(pidFile, 'utf8')).trim());
      assert.ok(pidAlive(pid));
      run.child.kill('SIGKILL');
      await waitFor(() => !pidAlive(pid), 'the command ends once its client is gone', 15_000, 50);
      await waitFor(
        () => openSockets(s.api.process.pid!) <= baseline,
        `plat-apiserver's sockets back to ${baseline} (now ${openSockets(s.api.process.pid!)})`,
        15_000,
        50,
      );
    }
  },
);

test(
  "the kubelet client certificate: issued from the cluster CA as kubeadm's apiserver-kubelet-client (O system:masters), key 0600",
  { skip },
  async () => {
    const cert = new X509Certificate(
      await readFile(join(s.api.certDir, 'apiserver-kubelet-client.crt')),
    );
    assert.equal(cert.subject, 'O=system:masters\nCN=plat-apiserver-kubelet-client');
    assert.ok(cert.checkIssued(new X509Certificate(await readFile(s.api.clusterCaFile))));
    assert.equal(
      (await stat(join(s.api.certDir, 'apiserver-kubelet-client.key'))).mode & 0o777,
      0o600,
    );
  },
);

// The issue asked 503 for a node the API server cannot reach; the reference 1.32 answers 500 on
// every path (checked in its source): a dial error is not an API status, so ErrorToAPIStatus
// makes it code 500 with reason StatusReasonUnknown (""), message err.Error():
// - pods/log: LocationStreamer.InputStream returns client.Do's *url.Error (`Get "<url>": ...`);
// - pods/exec, attach, portforward over SPDY and nodes/proxy upgrades: UpgradeAwareHandler's dial()
//   wraps it as `error dialing backend: ...` and hands it to the ErrorResponder;
// - nodes/proxy without upgrade: httputil.ReverseProxy's ErrorHandler gets the transport's error;
// - exec/attach over WebSocket v5: the StreamTranslatorHandler has upgraded the client already, so
//   the status goes on the error channel: NewInternalError (500, reason InternalError) of the SPDY
//   executor's error, `error sending request: Post "<url>": ...` (spdy.Negotiate).
test(
  "a node plat-apiserver cannot reach: the reference's 500 on every path (no 503), with its reason and message per path; a node without addresses",
  { skip },
  async () => {
    const closed = await freePort();
    const node = {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name: 'ghost' },
      status: {
        addresses: [{ type: 'InternalIP', address: '127.0.0.1' }],
        daemonEndpoints: { kubeletEndpoint: { Port: closed } },
      },
    };
    assert.equal((await s.api.request('POST', '/api/v1/nodes', { body: node })).status, 201);
    assert.equal(
      (
        await s.api.request('POST', '/api/v1/nodes', {
          body: { apiVersion: 'v1', kind: 'Node', metadata: { name: 'nowhere' } },
        })
      ).status,
      201,
    );
    for (const [pod, nodeName] of [
      ['ghostpod', 'ghost'],
      ['lostpod', 'nowhere'],
    ]) {
      const body = {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: pod },
        spec: { nodeName, containers: [{ name: 'c', image: 'busybox:local' }] },
      };
      assert.equal(
        (await s.api.request('POST', '/api/v1/namespaces/default/pods', { body })).status,
        201,
      );
    }
    // Over WebSocket the stream translator has upgraded the client before it dials the agent: the
    // failure is the Status on the error channel (NewInternalError); over SPDY the upgrade-aware
    // proxy answers it (500, "error dialing backend").
    const ws = await s.kubectl(['exec', 'ghostpod', '--', 'true']);
    assert.notEqual(ws.code, 0);
    assert.equal(
      ws.stderr,
      `error: Internal error occurred: error sending request: Post "https://127.0.0.1:${closed}/exec/default/ghostpod/c?command=true&error=1&output=1": dial tcp 127.0.0.1:${closed}: connect: connection refused\n`,
    );
    const wsr = await wsConnect(
      `${s.api.url}/api/v1/namespaces/default/pods/ghostpod/exec?command=true&stdout=true&stderr=true`,
      ['v5.channel.k8s.io'],
      await adminPems(s.api),
    );
    assert.equal(wsr.kind, 'open');
    if (wsr.kind !== 'open') return;
    await wsr.messages.closed();
    const wsStatus = JSON.parse(wsr.messages.text(3)) as Record<string, unknown>;
    assert.deepEqual(
      [wsStatus['code'], wsStatus['reason'], wsStatus['message']],
      [
        500,
        'InternalError',
        `Internal error occurred: error sending request: Post "https://127.0.0.1:${closed}/exec/default/ghostpod/c?command=true&error=1&output=1": dial tcp 127.0.0.1:${closed}: connect: connection refused`,
      ],
    );
    const spdy = await s.kubectl(['exec', 'ghostpod', '--', 'true'], { env: SPDY_EXEC });
    assert.notEqual(spdy.code, 0);
    assert.equal(
      spdy.stderr,
      `Error from server: error dialing backend: dial tcp 127.0.0.1:${closed}: connect: connection refused\n`,
    );
    const upgrade = await spdyUpgrade({
      url: `${s.api.url}/api/v1/namespaces/default/pods/ghostpod/exec?command=true&stdout=true`,
      protocols: ['v4.channel.k8s.io'],
      ...(await adminPems(s.api)),
    });
    assert.equal(upgrade.kind, 'refused');
    if (upgrade.kind === 'refused') {
      const st = JSON.parse(upgrade.body) as Record<string, unknown>;
      assert.deepEqual(
        [upgrade.status, st['code'], st['reason'], st['message']],
        [
          500,
          500,
          undefined,
          `error dialing backend: dial tcp 127.0.0.1:${closed}: connect: connection refused`,
        ],
      );
    }
    const log = await s.api.request('GET', '/api/v1/namespaces/default/pods/ghostpod/log');
    assert.deepEqual(
      [log.status, log.json?.['code'], log.json?.['reason'], log.json?.['message']],
      [
        500,
        500,
        undefined,
        `Get "https://127.0.0.1:${closed}/containerLogs/default/ghostpod/c": dial tcp 127.0.0.1:${closed}: connect: connection refused`,
      ],
    );
    const lost = await s.api.request('GET', '/api/v1/namespaces/default/pods/lostpod/log');
    assert.deepEqual(
      [lost.status, lost.json?.['message']],
      [500, 'no preferred addresses found; known addresses: []'],
    );
    const proxy = await s.api.request('GET', '/api/v1/nodes/ghost/proxy/healthz');
    assert.deepEqual(
      [proxy.status, proxy.json?.['reason'], proxy.json?.['message']],
      [500, undefined, `dial tcp 127.0.0.1:${closed}: connect: connection refused`],
    );
  },
);

test(
  "an unknown SPDY subprotocol through plat-apiserver: the agent's 403 naming what it accepts, relayed as is",
  { skip },
  async () => {
    const pems = await adminPems(s.api);
    const r = await spdyUpgrade({
      url: `${s.api.url}/api/v1/namespaces/default/pods/talker/exec?container=c&command=true&stdout=true`,
      protocols: ['v9.channel.k8s.io'],
      ...pems,
    });
    assert.equal(r.kind, 'refused');
    if (r.kind !== 'refused') return;
    const msg =
      'unable to upgrade: unable to negotiate protocol: client supports [v9.channel.k8s.io], server accepts [v4.channel.k8s.io v3.channel.k8s.io v2.channel.k8s.io channel.k8s.io]';
    assert.deepEqual([r.status, r.body], [403, `${msg}\n${msg}\n`]);
    assert.equal(
      r.headers['x-accepted-stream-protocol-versions'],
      'v4.channel.k8s.io, v3.channel.k8s.io, v2.channel.k8s.io, channel.k8s.io',
    );
  },
);

test(
  'a WebSocket GET to pods/exec needs create as well as get (AuthorizePodWebsocketUpgradeCreatePermission)',
  { skip },
  async () => {
    const role = {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: { name: 'exec-getter', namespace: 'default' },
      rules: [{ apiGroups: [''], resources: ['pods', 'pods/exec'], verbs: ['get'] }],
    };
    const binding = {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: 'exec-getter', namespace: 'default' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'exec-getter' },
      subjects: [{ kind: 'User', name: 'getter', apiGroup: 'rbac.authorization.k8s.io' }],
    };
    for (const o of [role, binding])
      assert.equal((await s.kubectl(['apply', '-f', '-'], { input: JSON.stringify(o) })).code, 0);
    const pems = await adminPems(s.api);
    const url = `${s.api.url.replace('https', 'wss')}/api/v1/namespaces/default/pods/talker/exec?container=c&command=true&stdout=true`;
    const refused = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const ws = new WebSocket(url, ['v5.channel.k8s.io'], {
        ca: pems.ca,
        headers: { authorization: 'Bearer getter-token' },
      });
      ws.once('unexpected-response', (_req, res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      });
      ws.once('open', () => reject(new Error('the upgrade was allowed')));
      ws.once('error', () => undefined);
    });
    assert.equal(refused.status, 403);
    assert.equal(
      (JSON.parse(refused.body) as { message: string }).message,
      'pods "talker" is forbidden: User "getter" cannot create resource "pods/exec" in API group "" in the namespace "default"',
    );
  },
);

test(
  "exec into a container that is not running: the agent's `container not found`, as the reference reports it on each protocol",
  { skip },
  async () => {
    const pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'done' },
      spec: {
        nodeName: NODE,
        restartPolicy: 'Never',
        containers: [{ name: 'c', image: 'busybox:local', command: ['true'] }],
      },
    };
    assert.equal((await s.kubectl(['apply', '-f', '-'], { input: JSON.stringify(pod) })).code, 0);
    await waitFor(
      async () =>
        (
          (await s.api.request('GET', '/api/v1/namespaces/default/pods/done')).json?.['status'] as
            { phase?: string } | undefined
        )?.phase === 'Succeeded',
      'pod done to finish',
      30_000,
      100,
    );
    // kubectl itself refuses a completed pod before it asks; the raw paths show plat-apiserver's answers.
    const kubectl = await s.kubectl(['exec', 'done', '--', 'true']);
    assert.equal(
      kubectl.stderr,
      'error: cannot exec into a container in a completed pod; current phase is Succeeded\n',
    );
    const pems = await adminPems(s.api);
    const spdy = await spdyUpgrade({
      url: `${s.api.url}/api/v1/namespaces/default/pods/done/exec?container=c&command=true&stdout=true`,
      protocols: ['v4.channel.k8s.io'],
      ...pems,
    });
    assert.deepEqual(spdy.kind === 'refused' ? [spdy.status, spdy.body] : [], [
      500,
      'container not found ("c")',
    ]);
    const status = await new Promise<string>((resolve, reject) => {
      const ws = new WebSocket(
        `${s.api.url.replace('https', 'wss')}/api/v1/namespaces/default/pods/done/exec?container=c&command=true&stdout=true`,
        ['v5.channel.k8s.io'],
        { ca: pems.ca, cert: pems.cert, key: pems.key },
      );
      ws.on('message', (data: Buffer) => {
        if (data[0] === 3) resolve(data.subarray(1).toString());
      });
      ws.once('error', reject);
    });
    assert.deepEqual(JSON.parse(status), {
      metadata: {},
      status: 'Failure',
      message: 'Internal error occurred: unable to upgrade connection: container not found ("c")',
      reason: 'InternalError',
      details: { causes: [{ message: 'unable to upgrade connection: container not found ("c")' }] },
      code: 500,
    });
  },
);

test(
  'hostile WebSocket messages to the translator: ignored or the connection closed; the session and the server carry on',
  { skip },
  async () => {
    const pems = await adminPems(s.api);
    const url = `${s.api.url.replace('https', 'wss')}/api/v1/namespaces/default/pods/talker/exec?container=c&command=cat&stdin=true&stdout=true`;
    const open = (): Promise<WebSocket> =>
      new Promise((resolve, reject) => {
        const ws = new WebSocket(url, ['v5.channel.k8s.io'], {
          ca: pems.ca,
          cert: pems.cert,
          key: pems.key,
        });
        ws.once('open', () => resolve(ws));
        ws.once('error', reject);
      });
    const ws = await open();
    const out: string[] = [];
    const done = new Promise<string>((resolve) => {
      ws.on('message', (d: Buffer) => {
        if (d[0] === 1 && d.length > 1) out.push(d.subarray(1).toString());
        if (d[0] === 3) resolve(d.subarray(1).toString());
      });
    });
    ws.send('a text frame');
    for (const m of [[], [9, 1, 2], [255], [255, 7], [4, ...Buffer.from('{"Width":"x"}')], [2, 65]])
      ws.send(Buffer.from(m));
    ws.send(Buffer.from([0, ...Buffer.from('still here\n')]));
    ws.send(Buffer.from([255, 0]));
    assert.deepEqual(JSON.parse(await done), { metadata: {}, status: 'Success' });
    assert.equal(out.join(''), 'still here\n');
    // Over the 1 MiB message bound: the WebSocket is closed (1009), the command with it.
    const big = await open();
    big.on('error', () => undefined); // the server may reset the connection after its close frame
    const closed = new Promise<number>((resolve) => big.once('close', (code) => resolve(code)));
    big.send(Buffer.alloc(2 << 20, 0));
    assert.equal(await closed, 1009);
    assert.equal((await s.api.request('GET', '/healthz')).text, 'ok');
  },
);

/** One masked client frame (RFC 6455 5.2), binary; `declared` may claim more than `payload` holds. */
function clientFrame(payload: Buffer, declared = payload.length): Buffer {
  const mask = Buffer.from([1, 2, 3, 4]);
  const head =
    declared < 126
      ? Buffer.from([0x82, 0x80 | declared])
      : Buffer.concat([
          Buffer.from([0x82, 0x80 | 127]),
          (() => {
            const b = Buffer.alloc(8);
            b.writeBigUInt64BE(BigInt(declared));
            return b;
          })(),
        ]);
  return Buffer.concat([head, mask, Buffer.from(payload.map((b, i) => b ^ mask[i % 4]!))]);
}

/** A raw WebSocket upgrade offering `SPDY/3.1+portforward.k8s.io` (ws's client refuses that name; kubectl sends it). */
async function rawTunnel(pems: {
  ca: string;
  cert: string;
  key: string;
}): Promise<{ socket: TLSSocket; head: string }> {
  const url = new URL(s.api.url);
  const socket = tlsConnect({
    host: url.hostname,
    port: Number(url.port),
    ca: pems.ca,
    cert: pems.cert,
    key: pems.key,
  });
  await new Promise<void>((resolve, reject) =>
    socket.once('secureConnect', resolve).once('error', reject),
  );
  socket.write(
    [
      'GET /api/v1/namespaces/default/pods/web/portforward HTTP/1.1',
      `Host: ${url.host}`,
      'Connection: Upgrade',
      'Upgrade: websocket',
      'Sec-WebSocket-Version: 13',
      'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==',
      'Sec-WebSocket-Protocol: SPDY/3.1+portforward.k8s.io',
      '',
      '',
    ].join('\r\n'),
  );
  let head = '';
  await new Promise<void>((resolve) => {
    const onData = (d: Buffer): void => {
      head += d.toString('latin1');
      if (head.includes('\r\n\r\n')) {
        socket.off('data', onData);
        resolve();
      }
    };
    socket.on('data', onData);
  });
  return { socket, head };
}

test(
  'hostile bytes into the port-forward tunnel: garbage SPDY ends the tunnel, an oversized message closes it (1009); the server carries on',
  { skip },
  async () => {
    const pems = await adminPems(s.api);
    const baseline = openSockets(s.api.process.pid!);
    const garbage = await rawTunnel(pems);
    assert.match(garbage.head, /^HTTP\/1\.1 101 .*\r\n/);
    assert.match(garbage.head, /\r\nSec-WebSocket-Protocol: SPDY\/3\.1\+portforward\.k8s\.io\r\n/i);
    const ended = new Promise<void>((resolve) => garbage.socket.once('close', () => resolve()));
    garbage.socket.on('error', () => undefined);
    garbage.socket.write(
      clientFrame(Buffer.from('this is not a SPDY frame at all, not even close')),
    );
    await ended;
    const big = await rawTunnel(pems);
    big.socket.on('error', () => undefined);
    let back = Buffer.alloc(0);
    big.socket.on('data', (d: Buffer) => (back = Buffer.concat([back, d])));
    const closed = new Promise<void>((resolve) => big.socket.once('close', () => resolve()));
    big.socket.write(clientFrame(Buffer.alloc(16), 2 << 20));
    await closed;
    // The server's close frame: opcode 8, status 1009 (message too big).
    const at = back.indexOf(0x88);
    assert.ok(
      at >= 0 && back.readUInt16BE(at + 2) === 1009,
      `close frame with 1009 in ${back.toString('hex')}`,
    );
    assert.equal((await s.api.request('GET', '/healthz')).text, 'ok');
    await waitFor(
      () => openSockets(s.api.process.pid!) <= baseline,
      `plat-apiserver's sockets back to ${baseline} (now ${openSockets(s.api.process.pid!)})`,
      15_000,
      50,
    );
  },
);
