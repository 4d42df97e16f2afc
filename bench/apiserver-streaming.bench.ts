// Port-forward and exec through plat-apiserver and a node agent (both BUILT, started as
// processes, process:// runtime, TLS with the kubelet-client certificate) against the direct path
// in the same run:
// - port-forward throughput: a server on the pod's port (process:// pods share the host's
//   network) writes BENCH_PF_MB MiB; read (a) over SPDY through plat-apiserver (passed through to
//   the agent), (b) through `kubectl port-forward` (WebSocket tunnel, kubectl 1.32's default),
//   (c) over SPDY and over WebSocket straight to the agent, against (d) a direct TCP connection; best of 3,
//   interleaved; and the floors of these paths, plain TLS relays (bench/tls-relay.ts), each in its
//   own process as the agent and plat-apiserver are: one hop (the floor of (c)) and two hops (the
//   floor of (a): TLS to plat-apiserver, TLS on to the agent); all read by this process (which
//   also runs the pod's server: the direct read never leaves it), then again by a reader in its
//   own process (bench/streaming-reader.ts), as a real client is;
// - exec round trip (SPDY, `true`, v4 Status) p50 through plat-apiserver against straight to the
//   agent, interleaved.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { startPumpServer } from './pump-server.js';
import { join } from 'node:path';
import { adminPems, podRunning, startScene } from '../test/e2e/kubectl-streaming-harness.js';
import { spdyExecMs } from './exec-round-trip.js';
import {
  mibPerSecond,
  spdyPortForwardRead,
  tcpRead,
  wsPortForwardRead,
  type PortForwardTls,
} from './port-forward-read.js';
import { makeCa, makeServing } from '../test/helpers/server-tls-certs.js';
import { tlsRelayRead } from './tls-relay.js';
import { externalReadMiBs } from './external-reader.js';

const EXECS = Number(process.env['BENCH_EXECS'] ?? 30);
const PF_MB = Number(process.env['BENCH_PF_MB'] ?? 64);
const NODE = 'bench-node';
const p50 = (xs: number[]): number =>
  [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
const best = (xs: number[]): number => Math.max(...xs);

const { server: source, port } = await startPumpServer(PF_MB);
const s = await startScene(NODE, { serving: 'matching' });

/** A TLS relay (bench/tls-relay-main.ts) in its own process; its port once it listens. */
async function relayProcess(o: {
  cert: string;
  key: string;
  upstreamPort: number;
  upstreamCa?: string;
}): Promise<{ child: ChildProcess; port: number }> {
  const env = {
    ...process.env,
    RELAY_CERT: o.cert,
    RELAY_KEY: o.key,
    RELAY_UPSTREAM_PORT: String(o.upstreamPort),
    RELAY_UPSTREAM_CA: o.upstreamCa ?? '',
  };
  const child = spawn(
    process.execPath,
    [new URL('./tls-relay-main.js', import.meta.url).pathname],
    { env, stdio: ['pipe', 'pipe', 'inherit'] },
  );
  const line = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('\n')) resolve(out);
    });
    child.once('exit', (code) => reject(new Error(`TLS relay exited with ${code}`)));
  });
  return { child, port: (JSON.parse(line) as { port: number }).port };
}

const relayCa = await makeCa('bench-relay-ca');
const relayLeaf = await makeServing(relayCa, 'bench-relay');
const hop1 = await relayProcess({
  cert: relayLeaf.certPem,
  key: relayLeaf.keyPem,
  upstreamPort: port,
});
const hop2 = await relayProcess({
  cert: relayLeaf.certPem,
  key: relayLeaf.keyPem,
  upstreamPort: hop1.port,
  upstreamCa: relayCa.certPem,
});

const tcpMiBs = async (p: number): Promise<number> =>
  mibPerSecond(await tcpRead(p), PF_MB * 1048576, 'TCP');
const spdyRead = async (url: string, tls: PortForwardTls): Promise<number> =>
  mibPerSecond(await spdyPortForwardRead(url, port, tls), PF_MB * 1048576);
const wsRead = async (url: string, tls: PortForwardTls): Promise<number> =>
  mibPerSecond(await wsPortForwardRead(url, port, tls), PF_MB * 1048576);

type ExtMode = 'tcp' | 'tls' | 'spdy' | 'ws';

/** MiB/s read by a reader in its own process (bench/streaming-reader.ts). */
function externalRead(
  mode: ExtMode,
  o: {
    port?: number;
    relayPort?: number;
    url?: string;
    tls?: { ca: string; cert: string; key: string };
  },
): Promise<number> {
  return externalReadMiBs(mode, PF_MB * 1048576, {
    READ_PORT: String(o.port ?? port),
    READ_RELAY_PORT: String(o.relayPort ?? 0),
    READ_URL: o.url ?? '',
    READ_CA: o.tls?.ca ?? '',
    READ_CERT: o.tls?.cert ?? '',
    READ_KEY: o.tls?.key ?? '',
  });
}

try {
  const pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'bench' },
    spec: {
      nodeName: NODE,
      terminationGracePeriodSeconds: 1,
      containers: [{ name: 'c', image: 'none', command: ['sleep', '600'] }],
    },
  };
  const created = await s.kubectl(['apply', '-f', '-'], { input: JSON.stringify(pod) });
  if (created.code !== 0) throw new Error(created.stderr);
  await podRunning(s, 'bench');
  const admin = await adminPems(s.api);
  // Straight to the agent, as plat-apiserver does it: its kubelet-client certificate, the agent's serving CA.
  const certDir = s.api.certDir;
  const asApi = {
    ca: s.agentCa ?? '',
    cert: await readFile(join(certDir, 'apiserver-kubelet-client.crt'), 'utf8'),
    key: await readFile(join(certDir, 'apiserver-kubelet-client.key'), 'utf8'),
  };
  const viaApi = `${s.api.url}/api/v1/namespaces/default/pods/bench/portforward`;
  const toAgent = `https://127.0.0.1:${s.agentPort}/portForward/default/bench`;
  const pf = s.kubectlRunning(['port-forward', 'pod/bench', `:${port}`]);
  const local = Number(
    (await pf.waitOut(/Forwarding from 127\.0\.0\.1:(\d+)/, 'kubectl port-forward'))[1],
  );
  const runs = {
    api: [] as number[],
    kubectl: [] as number[],
    agent: [] as number[],
    agentWs: [] as number[],
    tcp: [] as number[],
    hop1: [] as number[],
    hop2: [] as number[],
  };
  for (let i = 0; i < 3; i++) {
    runs.api.push(await spdyRead(viaApi, admin));
    runs.kubectl.push(await tcpMiBs(local));
    runs.agent.push(await spdyRead(toAgent, asApi));
    runs.agentWs.push(await wsRead(toAgent, asApi));
    runs.hop1.push(await tlsRelayRead(hop1.port, relayCa.certPem, PF_MB * 1048576));
    runs.hop2.push(await tlsRelayRead(hop2.port, relayCa.certPem, PF_MB * 1048576));
    runs.tcp.push(await tcpMiBs(port));
  }
  const ext = {
    api: [] as number[],
    kubectl: [] as number[],
    agent: [] as number[],
    agentWs: [] as number[],
    tcp: [] as number[],
    hop1: [] as number[],
    hop2: [] as number[],
  };
  const relayTls = { ca: relayCa.certPem, cert: '', key: '' };
  for (let i = 0; i < 3; i++) {
    ext.api.push(await externalRead('spdy', { url: viaApi, tls: admin }));
    ext.kubectl.push(await externalRead('tcp', { port: local }));
    ext.agent.push(await externalRead('spdy', { url: toAgent, tls: asApi }));
    ext.agentWs.push(await externalRead('ws', { url: toAgent, tls: asApi }));
    ext.hop1.push(await externalRead('tls', { relayPort: hop1.port, tls: relayTls }));
    ext.hop2.push(await externalRead('tls', { relayPort: hop2.port, tls: relayTls }));
    ext.tcp.push(await externalRead('tcp', {}));
  }
  pf.child.kill('SIGTERM');
  const tcp = best(runs.tcp);
  const line = (what: string, xs: number[]): string =>
    `${what} ${best(xs).toFixed(0)} MiB/s (${(best(xs) / tcp).toFixed(2)}x)`;
  console.log(
    `port-forward, ${PF_MB} MiB, best of 3 interleaved: ${line('SPDY through plat-apiserver', runs.api)}; ${line('kubectl port-forward (WebSocket tunnel)', runs.kubectl)}; ${line('SPDY straight to the agent', runs.agent)}; ${line('WebSocket straight to the agent', runs.agentWs)}; direct TCP ${tcp.toFixed(0)} MiB/s`,
  );
  const of = (xs: number[], floor: number[]): string => (best(xs) / best(floor)).toFixed(2);
  console.log(
    `the floors (plain TLS relays, each in its own process): ${line('one hop', runs.hop1)}, ${line('two hops', runs.hop2)}; straight to the agent ${of(runs.agent, runs.hop1)}x (SPDY) and ${of(runs.agentWs, runs.hop1)}x (WebSocket) of one hop, through plat-apiserver ${of(runs.api, runs.hop2)}x of two hops`,
  );
  const etcp = best(ext.tcp);
  const eline = (what: string, xs: number[]): string =>
    `${what} ${best(xs).toFixed(0)} MiB/s (${(best(xs) / etcp).toFixed(2)}x)`;
  console.log(
    `read by a process of its own, best of 3 interleaved: ${eline('SPDY through plat-apiserver', ext.api)}; ${eline('kubectl port-forward', ext.kubectl)}; ${eline('SPDY straight to the agent', ext.agent)}; ${eline('WebSocket straight to the agent', ext.agentWs)}; floors ${eline('one hop', ext.hop1)}, ${eline('two hops', ext.hop2)}; direct TCP ${etcp.toFixed(0)} MiB/s`,
  );
  const execApi = `${s.api.url}/api/v1/namespaces/default/pods/bench/exec?container=c&command=true&stdout=true`;
  const execAgent = `https://127.0.0.1:${s.agentPort}/exec/default/bench/c?command=true&output=1`;
  await spdyExecMs(execApi, admin);
  const a: number[] = [];
  const b: number[] = [];
  for (let i = 0; i < EXECS; i++) {
    a.push(await spdyExecMs(execApi, admin));
    b.push(await spdyExecMs(execAgent, asApi));
  }
  console.log(
    `exec round trip over SPDY (\`true\`, v4 Status): through plat-apiserver p50 ${p50(a).toFixed(1)} ms; straight to the agent p50 ${p50(b).toFixed(1)} ms; ratio ${(p50(a) / p50(b)).toFixed(2)}x (${EXECS} each, interleaved)`,
  );
} finally {
  await new Promise<void>((resolve) => source.close(() => resolve()));
  for (const r of [hop2, hop1]) r.child.kill('SIGTERM');
  await s.stop();
}
