// Port-forward and exec through plat-apiserver and a node agent (both BUILT, started as
// processes, process:// runtime, TLS with the kubelet-client certificate) against the direct path
// in the same run:
// - port-forward throughput: a server on the pod's port (process:// pods share the host's
//   network) writes BENCH_PF_MB MiB; read (a) over SPDY through plat-apiserver (passed through to
//   the agent), (b) through `kubectl port-forward` (WebSocket tunnel, kubectl 1.32's default),
//   (c) over SPDY straight to the agent, against (d) a direct TCP connection; best of 3,
//   interleaved;
// - exec round trip (SPDY, `true`, v4 Status) p50 through plat-apiserver against straight to the
//   agent, interleaved.
import { readFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { startPumpServer } from './pump-server.js';
import { join } from 'node:path';
import { adminPems, podRunning, startScene } from '../test/e2e/kubectl-streaming-harness.js';
import { openExecStreams, readAll, spdyUpgrade } from '../test/helpers/spdy-client.js';

const EXECS = Number(process.env['BENCH_EXECS'] ?? 30);
const PF_MB = Number(process.env['BENCH_PF_MB'] ?? 64);
const NODE = 'bench-node';
const p50 = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
const best = (xs: number[]): number => Math.max(...xs);

const { server: source, port } = await startPumpServer(PF_MB);
const s = await startScene(NODE, { serving: 'matching' });

function rate(bytes: number, t0: number): number {
  return bytes / 1048576 / ((performance.now() - t0) / 1000);
}

function tcpRead(p: number): Promise<number> {
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    let n = 0;
    const c = connect(p, '127.0.0.1');
    c.on('data', (d: Buffer) => (n += d.length));
    c.once('error', reject);
    c.once('close', () => (n === PF_MB * 1048576 ? resolve(rate(n, t0)) : reject(new Error(`read ${n} bytes, expected ${PF_MB} MiB`))));
  });
}

async function spdyRead(url: string, tls: { ca: string; cert: string; key: string }): Promise<number> {
  const t0 = performance.now();
  const r = await spdyUpgrade({ url, protocols: ['portforward.k8s.io'], ...tls });
  if (r.kind !== 'upgraded') throw new Error(`port-forward refused: ${r.status} ${r.body}`);
  const h = (t: string): Map<string, string[]> => new Map([['streamtype', [t]], ['port', [String(port)]], ['requestid', ['0']]]);
  const errorStream = await r.session.openStream(h('error'));
  const data = await r.session.openStream(h('data'));
  let n = 0;
  await new Promise<void>((resolve) => {
    data.on('data', (d: Buffer) => (n += d.length));
    data.once('end', () => resolve());
    data.once('close', () => resolve());
  });
  const mibs = rate(n, t0);
  errorStream.end();
  data.end();
  await r.session.close();
  if (n !== PF_MB * 1048576) throw new Error(`port-forward carried ${n} bytes, expected ${PF_MB} MiB`);
  return mibs;
}

async function execOnce(url: string, tls: { ca: string; cert: string; key: string }): Promise<number> {
  const t0 = performance.now();
  const r = await spdyUpgrade({ url, protocols: ['v4.channel.k8s.io'], ...tls });
  if (r.kind !== 'upgraded') throw new Error(`exec refused: ${r.status} ${r.body}`);
  const st = await openExecStreams(r.session, ['stdout']);
  const [status] = await Promise.all([readAll(st.get('error')!), readAll(st.get('stdout')!)]);
  if (!status.includes('Success')) throw new Error(`exec failed: ${status}`);
  return performance.now() - t0;
}

try {
  const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'bench' }, spec: { nodeName: NODE, terminationGracePeriodSeconds: 1, containers: [{ name: 'c', image: 'none', command: ['sleep', '600'] }] } };
  const created = await s.kubectl(['apply', '-f', '-'], { input: JSON.stringify(pod) });
  if (created.code !== 0) throw new Error(created.stderr);
  await podRunning(s, 'bench');
  const admin = await adminPems(s.api);
  // Straight to the agent, as plat-apiserver does it: its kubelet-client certificate, the agent's serving CA.
  const certDir = s.api.certDir;
  const asApi = { ca: s.agentCa ?? '', cert: await readFile(join(certDir, 'apiserver-kubelet-client.crt'), 'utf8'), key: await readFile(join(certDir, 'apiserver-kubelet-client.key'), 'utf8') };
  const viaApi = `${s.api.url}/api/v1/namespaces/default/pods/bench/portforward`;
  const toAgent = `https://127.0.0.1:${s.agentPort}/portForward/default/bench`;
  const pf = s.kubectlRunning(['port-forward', 'pod/bench', `:${port}`]);
  const local = Number((await pf.waitOut(/Forwarding from 127\.0\.0\.1:(\d+)/, 'kubectl port-forward'))[1]);
  const runs = { api: [] as number[], kubectl: [] as number[], agent: [] as number[], tcp: [] as number[] };
  for (let i = 0; i < 3; i++) {
    runs.api.push(await spdyRead(viaApi, admin));
    runs.kubectl.push(await tcpRead(local));
    runs.agent.push(await spdyRead(toAgent, asApi));
    runs.tcp.push(await tcpRead(port));
  }
  pf.child.kill('SIGTERM');
  const tcp = best(runs.tcp);
  const line = (what: string, xs: number[]): string => `${what} ${best(xs).toFixed(0)} MiB/s (${(best(xs) / tcp).toFixed(2)}x)`;
  console.log(`port-forward, ${PF_MB} MiB, best of 3 interleaved: ${line('SPDY through plat-apiserver', runs.api)}; ${line('kubectl port-forward (WebSocket tunnel)', runs.kubectl)}; ${line('SPDY straight to the agent', runs.agent)}; direct TCP ${tcp.toFixed(0)} MiB/s`);
  const execApi = `${s.api.url}/api/v1/namespaces/default/pods/bench/exec?container=c&command=true&stdout=true`;
  const execAgent = `https://127.0.0.1:${s.agentPort}/exec/default/bench/c?command=true&output=1`;
  await execOnce(execApi, admin);
  const a: number[] = [];
  const b: number[] = [];
  for (let i = 0; i < EXECS; i++) {
    a.push(await execOnce(execApi, admin));
    b.push(await execOnce(execAgent, asApi));
  }
  console.log(`exec round trip over SPDY (\`true\`, v4 Status): through plat-apiserver p50 ${p50(a).toFixed(1)} ms; straight to the agent p50 ${p50(b).toFixed(1)} ms; ratio ${(p50(a) / p50(b)).toFixed(2)}x (${EXECS} each, interleaved)`);
} finally {
  await new Promise<void>((resolve) => source.close(() => resolve()));
  await s.stop();
}
