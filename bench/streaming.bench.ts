// The agent's streaming endpoints over SPDY/3.1, in this process on loopback (TLS, client
// certificate, AlwaysAllow) with a real process:// pod:
// - exec round trip (upgrade, streams, `true`, the v4 Status) p50, against a direct spawn of
//   `true` in the same run, interleaved;
// - port-forward throughput (a server on the pod's port writes BENCH_PF_MB MiB), against a
//   direct TCP connection to the same server in the same run.
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, connect, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ProcessRuntime } from '../src/agent/runtime/process/runtime.js';
import { RuntimeStreaming } from '../src/agent/server/streaming-adapters.js';
import { silentLogger } from '../src/common/log/types.js';
import { systemClock } from '../src/common/util/clock.js';
import type { Pod } from '../src/agent/pod/types.js';
import { makeServerCerts, startServerFixture } from '../test/helpers/server-fixture.js';
import { openExecStreams, readAll, spdyUpgrade } from '../test/helpers/spdy-client.js';

const EXECS = Number(process.env['BENCH_EXECS'] ?? 40);
const PF_MB = Number(process.env['BENCH_PF_MB'] ?? 64);
const POD: Pod = { metadata: { name: 'bench', namespace: 'default', uid: 'bench0000000000000000000000000000' }, spec: { containers: [{ name: 'c', command: ['sleep', '600'] }] } };

const p50 = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

const root = await mkdtemp(join(tmpdir(), 'na-bench-streaming-'));
const runtime = new ProcessRuntime({ rootDir: root, logger: silentLogger(), clock: systemClock, pollIntervalMs: 1000 });
const sb = await runtime.runPodSandbox({ pod: POD, attempt: 0 });
const cid = await runtime.createContainer({ pod: POD, container: POD.spec.containers[0]!, kind: 'app', attempt: 0, specHash: 'h', sandboxId: sb, volumePaths: {} });
await runtime.startContainer(cid);
const certs = await makeServerCerts();
const f = await startServerFixture({ certs, anonymous: false, authorization: { mode: 'AlwaysAllow' }, streaming: new RuntimeStreaming({ runtime, pods: { pods: () => [POD as Pod & { metadata: { uid: string; namespace: string } }] } }) });
const tls = { ca: certs.ca.certPem, cert: certs.alice.certPem, key: certs.alice.keyPem };

async function execOnce(): Promise<number> {
  const t0 = performance.now();
  const r = await spdyUpgrade({ url: `${f.base}/exec/default/bench/c?command=true&output=1`, protocols: ['v4.channel.k8s.io'], ...tls });
  if (r.kind !== 'upgraded') throw new Error(`exec refused: ${r.status} ${r.body}`);
  const s = await openExecStreams(r.session, ['stdout']);
  const [status] = await Promise.all([readAll(s.get('error')!), readAll(s.get('stdout')!)]);
  if (!status.includes('Success')) throw new Error(`exec failed: ${status}`);
  return performance.now() - t0;
}

function spawnOnce(): Promise<number> {
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    const c = spawn('true', [], { stdio: ['pipe', 'pipe', 'pipe'] });
    c.once('error', reject);
    c.once('close', () => resolve(performance.now() - t0));
  });
}

const sink = Buffer.alloc(1024 * 1024, 7);
const source = createServer((sock) => {
  let left = PF_MB;
  const pump = (): void => {
    while (left > 0) {
      left--;
      if (!sock.write(sink)) {
        sock.once('drain', pump);
        return;
      }
    }
    sock.end();
  };
  pump();
});
await new Promise<void>((resolve) => source.listen(0, '127.0.0.1', resolve));
const port = (source.address() as AddressInfo).port;

function directRead(): Promise<number> {
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    let n = 0;
    const c = connect(port, '127.0.0.1');
    c.on('data', (d: Buffer) => (n += d.length));
    c.once('error', reject);
    c.once('close', () => resolve(n / 1048576 / ((performance.now() - t0) / 1000)));
  });
}

async function tunnelRead(): Promise<number> {
  const t0 = performance.now();
  const r = await spdyUpgrade({ url: `${f.base}/portForward/default/bench`, protocols: ['portforward.k8s.io'], ...tls });
  if (r.kind !== 'upgraded') throw new Error(`port-forward refused: ${r.status}`);
  const h = (t: string): Map<string, string[]> => new Map([['streamtype', [t]], ['port', [String(port)]], ['requestid', ['0']]]);
  const errorStream = await r.session.openStream(h('error'));
  const data = await r.session.openStream(h('data'));
  let n = 0;
  await new Promise<void>((resolve) => {
    data.on('data', (d: Buffer) => (n += d.length));
    data.once('end', () => resolve());
    data.once('close', () => resolve());
  });
  const rate = n / 1048576 / ((performance.now() - t0) / 1000);
  errorStream.end();
  data.end();
  await r.session.close();
  if (n !== PF_MB * 1048576) throw new Error(`port-forward carried ${n} bytes, expected ${PF_MB} MiB`);
  return rate;
}

try {
  await execOnce();
  const viaAgent: number[] = [];
  const direct: number[] = [];
  for (let i = 0; i < EXECS; i++) {
    viaAgent.push(await execOnce());
    direct.push(await spawnOnce());
  }
  console.log(`exec round trip over SPDY (TLS, upgrade, 2 streams, \`true\`, v4 Status): p50 ${p50(viaAgent).toFixed(1)} ms; direct spawn of \`true\` p50 ${p50(direct).toFixed(1)} ms; ratio ${(p50(viaAgent) / p50(direct)).toFixed(1)}x (${EXECS} each, interleaved)`);
  const tunnel: number[] = [];
  const tcp: number[] = [];
  for (let i = 0; i < 3; i++) {
    tunnel.push(await tunnelRead());
    tcp.push(await directRead());
  }
  const best = (xs: number[]): number => Math.max(...xs);
  console.log(`port-forward over SPDY (TLS): ${best(tunnel).toFixed(0)} MiB/s; direct TCP ${best(tcp).toFixed(0)} MiB/s; ratio ${(best(tunnel) / best(tcp)).toFixed(2)}x (${PF_MB} MiB, best of 3 interleaved)`);
} finally {
  await new Promise<void>((resolve) => source.close(() => resolve()));
  await f.stop();
  for (const c of await runtime.listContainers()) await runtime.stopContainer(c.id, 0).catch(() => undefined);
  await runtime.close();
  await rm(root, { recursive: true, force: true });
}
