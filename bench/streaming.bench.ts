// The agent's streaming endpoints over SPDY/3.1 and WebSocket, in this process on loopback (TLS,
// client certificate, AlwaysAllow) with a real process:// pod:
// - exec round trip (upgrade, streams, `true`, the v4 Status) p50, against a direct spawn of
//   `true` in the same run, interleaved;
// - port-forward throughput (a server on the pod's port writes BENCH_PF_MB MiB), against a
//   direct TCP connection to the same server and against a plain TCP-to-TLS relay (the floor of
//   any port-forward over TLS: bench/tls-relay.ts) in the same run;
// - with a Docker engine (busybox:local): exec round trip through the agent against the
//   `docker exec` command line on the same container, interleaved.
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { startPumpServer } from './pump-server.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ProcessRuntime } from '../src/agent/runtime/process/runtime.js';
import { RuntimeStreaming } from '../src/agent/server/streaming-adapters.js';
import { silentLogger } from '../src/common/log/types.js';
import { systemClock } from '../src/common/util/clock.js';
import type { Pod } from '../src/agent/pod/types.js';
import { makeServerCerts, startServerFixture } from '../test/helpers/server-fixture.js';
import { spdyExecMs } from './exec-round-trip.js';
import { wsConnect } from '../test/helpers/ws-client.js';
import { dockerExecLatency } from './streaming-docker.js';
import { startTlsRelay, tlsRelayRead } from './tls-relay.js';
import { describeCipherCosts } from './cipher-cost.js';
import { connect as tlsConnect } from 'node:tls';
import { externalReadMiBs } from './external-reader.js';
import {
  mibPerSecond,
  spdyPortForwardRead,
  tcpRead,
  wsPortForwardRead,
} from './port-forward-read.js';

const EXECS = Number(process.env['BENCH_EXECS'] ?? 40);
const PF_MB = Number(process.env['BENCH_PF_MB'] ?? 64);
const POD: Pod = {
  metadata: { name: 'bench', namespace: 'default', uid: 'bench0000000000000000000000000000' },
  spec: { containers: [{ name: 'c', command: ['sleep', '600'] }] },
};

const p50 = (xs: number[]): number =>
  [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

const root = await mkdtemp(join(tmpdir(), 'na-bench-streaming-'));
const runtime = new ProcessRuntime({
  rootDir: root,
  logger: silentLogger(),
  clock: systemClock,
  pollIntervalMs: 1000,
});
const sb = await runtime.runPodSandbox({ pod: POD, attempt: 0 });
const cid = await runtime.createContainer({
  pod: POD,
  container: POD.spec.containers[0]!,
  kind: 'app',
  attempt: 0,
  specHash: 'h',
  sandboxId: sb,
  volumePaths: {},
});
await runtime.startContainer(cid);
const certs = await makeServerCerts();
const f = await startServerFixture({
  certs,
  anonymous: false,
  authorization: { mode: 'AlwaysAllow' },
  streaming: new RuntimeStreaming({
    runtime,
    pods: { pods: () => [POD as Pod & { metadata: { uid: string; namespace: string } }] },
  }),
});
const tls = { ca: certs.ca.certPem, cert: certs.alice.certPem, key: certs.alice.keyPem };

const execOnce = (): Promise<number> =>
  spdyExecMs(`${f.base}/exec/default/bench/c?command=true&output=1`, tls);

function spawnOnce(): Promise<number> {
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    const c = spawn('true', [], { stdio: ['pipe', 'pipe', 'pipe'] });
    c.once('error', reject);
    c.once('close', () => resolve(performance.now() - t0));
  });
}

const { server: source, port } = await startPumpServer(PF_MB);
const relay = await startTlsRelay({
  cert: certs.serving.certPem,
  key: certs.serving.keyPem,
  upstreamPort: port,
});
const relayRead = (): Promise<number> => tlsRelayRead(relay.port, tls.ca, PF_MB * 1048576);

const directRead = async (): Promise<number> =>
  mibPerSecond(await tcpRead(port), PF_MB * 1048576, 'TCP');
const tunnelRead = async (): Promise<number> =>
  mibPerSecond(
    await spdyPortForwardRead(`${f.base}/portForward/default/bench`, port, tls),
    PF_MB * 1048576,
  );

async function wsExecOnce(): Promise<number> {
  const t0 = performance.now();
  const r = await wsConnect(
    `${f.base}/exec/default/bench/c?command=true&output=1`,
    ['v5.channel.k8s.io'],
    tls,
  );
  if (r.kind !== 'open') throw new Error(`exec refused: ${r.status} ${r.body}`);
  await r.messages.closed();
  if (!r.messages.text(3).includes('Success'))
    throw new Error(`exec failed: ${r.messages.text(3)}`);
  return performance.now() - t0;
}

const wsTunnelRead = async (): Promise<number> =>
  mibPerSecond(
    await wsPortForwardRead(`${f.base}/portForward/default/bench`, port, tls),
    PF_MB * 1048576,
  );

/** The TLS 1.3 suite a Node client (plat-apiserver, our tests) and the agent's server agree on. */
function agreedSuite(): Promise<string> {
  return new Promise((resolve, reject) => {
    const url = new URL(f.base);
    const c = tlsConnect({ host: url.hostname, port: Number(url.port), ...tls }, () => {
      resolve(c.getCipher().standardName);
      c.destroy();
    });
    c.once('error', reject);
  });
}

/** MiB/s read by a separate process (bench/streaming-reader.ts), as a real client would be. */
function externalRead(mode: 'tcp' | 'spdy' | 'ws' | 'tls'): Promise<number> {
  return externalReadMiBs(mode, PF_MB * 1048576, {
    READ_PORT: String(port),
    READ_RELAY_PORT: String(relay.port),
    READ_BASE: f.base,
    READ_CA: tls.ca,
    READ_CERT: tls.cert,
    READ_KEY: tls.key,
  });
}

try {
  await execOnce();
  const viaAgent: number[] = [];
  const direct: number[] = [];
  for (let i = 0; i < EXECS; i++) {
    viaAgent.push(await execOnce());
    direct.push(await spawnOnce());
  }
  console.log(
    `exec round trip over SPDY (TLS, upgrade, 2 streams, \`true\`, v4 Status): p50 ${p50(viaAgent).toFixed(1)} ms; direct spawn of \`true\` p50 ${p50(direct).toFixed(1)} ms; ratio ${(p50(viaAgent) / p50(direct)).toFixed(1)}x (${EXECS} each, interleaved)`,
  );
  const viaWs: number[] = [];
  for (let i = 0; i < EXECS; i++) viaWs.push(await wsExecOnce());
  console.log(
    `exec round trip over WebSocket v5 (TLS, upgrade, \`true\`, Status): p50 ${p50(viaWs).toFixed(1)} ms (${EXECS})`,
  );
  const tunnel: number[] = [];
  const wsTunnel: number[] = [];
  const tcp: number[] = [];
  const tlsFloor: number[] = [];
  for (let i = 0; i < 3; i++) {
    tunnel.push(await tunnelRead());
    wsTunnel.push(await wsTunnelRead());
    tlsFloor.push(await relayRead());
    tcp.push(await directRead());
  }
  const best = (xs: number[]): number => Math.max(...xs);
  // CPU time per MiB (this process: client, agent and the pod's server), less at the mercy of a loaded machine than rates.
  const cpuPerMiB = async (read: () => Promise<number>): Promise<number> => {
    const c0 = process.cpuUsage();
    await read();
    const c = process.cpuUsage(c0);
    return (c.user + c.system) / 1000 / PF_MB;
  };
  const cpu = {
    spdy: await cpuPerMiB(tunnelRead),
    ws: await cpuPerMiB(wsTunnelRead),
    tls: await cpuPerMiB(relayRead),
    tcp: await cpuPerMiB(directRead),
  };
  const ext = {
    spdy: [] as number[],
    ws: [] as number[],
    tls: [] as number[],
    tcp: [] as number[],
  };
  for (let i = 0; i < 3; i++) {
    ext.spdy.push(await externalRead('spdy'));
    ext.ws.push(await externalRead('ws'));
    ext.tls.push(await externalRead('tls'));
    ext.tcp.push(await externalRead('tcp'));
  }
  const vs = (x: number[], y: number[]): string => (best(x) / best(y)).toFixed(2);
  console.log(
    `port-forward read by a separate process: SPDY ${best(ext.spdy).toFixed(0)} MiB/s, WebSocket ${best(ext.ws).toFixed(0)} MiB/s, plain TLS relay (the floor: no protocol) ${best(ext.tls).toFixed(0)} MiB/s, direct TCP ${best(ext.tcp).toFixed(0)} MiB/s; against direct TCP ${vs(ext.spdy, ext.tcp)}x, ${vs(ext.ws, ext.tcp)}x (TLS relay ${vs(ext.tls, ext.tcp)}x); against the TLS relay ${vs(ext.spdy, ext.tls)}x, ${vs(ext.ws, ext.tls)}x (${PF_MB} MiB, best of 3 interleaved)`,
  );
  console.log(
    `port-forward CPU per MiB (client + agent + pod server in one process): SPDY ${cpu.spdy.toFixed(2)} ms, WebSocket ${cpu.ws.toFixed(2)} ms, plain TLS relay ${cpu.tls.toFixed(2)} ms, direct TCP ${cpu.tcp.toFixed(2)} ms`,
  );
  console.log(
    `port-forward in one process: SPDY (TLS) ${best(tunnel).toFixed(0)} MiB/s, WebSocket (TLS) ${best(wsTunnel).toFixed(0)} MiB/s, plain TLS relay ${best(tlsFloor).toFixed(0)} MiB/s, direct TCP ${best(tcp).toFixed(0)} MiB/s; against direct TCP ${vs(tunnel, tcp)}x, ${vs(wsTunnel, tcp)}x (TLS relay ${vs(tlsFloor, tcp)}x); against the TLS relay ${vs(tunnel, tlsFloor)}x, ${vs(wsTunnel, tlsFloor)}x (${PF_MB} MiB, best of 3 interleaved)`,
  );
  console.log(
    `what TLS alone costs: ${describeCipherCosts()}; suite agreed by a Node client and the agent: ${await agreedSuite()}`,
  );
  console.log(await dockerExecLatency({ execs: EXECS, certs }));
} finally {
  await new Promise<void>((resolve) => source.close(() => resolve()));
  await new Promise<void>((resolve) => relay.server.close(() => resolve()));
  await f.stop();
  for (const c of await runtime.listContainers())
    await runtime.stopContainer(c.id, 0).catch(() => undefined);
  await runtime.close();
  await rm(root, { recursive: true, force: true });
}
