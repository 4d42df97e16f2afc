// Port-forward and exec through plat-apiserver against the same through kube-apiserver 1.32: one
// agent, one pod, one run (bench/streaming-two-servers.ts). Rounds alternate which server goes
// first. Figures, each for both servers:
// - port-forward throughput of BENCH_PF_MB MiB from the pod's port (a server in this process;
//   process:// pods share the host's network): our SPDY client, and `kubectl port-forward`
//   (kubectl 1.32: a WebSocket tunnel), each read by a process of its own; best and median of the
//   rounds, with direct TCP as the floor's baseline, and each API server's CPU seconds per GiB;
// - exec round trip (`true`): our SPDY client (v4 Status, BENCH_EXECS each) and `kubectl exec`
//   (WebSocket, v5), p50 and p99.
// Goals: throughput at least 1.0x the reference's, exec round trip at most 1.0x.
// Needs the reference control plane of a session under /opt/anchors (started with its start.sh);
// without it the benchmark says why and exits 0.
import { spawn } from 'node:child_process';
import { startPumpServer } from './pump-server.js';
import { externalReadMiBs } from './external-reader.js';
import { spdyExecMs } from './exec-round-trip.js';
import { percentile } from './apiserver-harness.js';
import { cpuSeconds, withChildren } from './proc-usage.js';
import { loadavg } from 'node:os';
import {
  CONTAINER,
  POD,
  skipReason,
  startTwoServers,
  type Server,
} from './streaming-two-servers.js';

const PF_MB = Number(process.env['BENCH_PF_MB'] ?? 64);
const ROUNDS = Number(process.env['BENCH_PF_ROUNDS'] ?? 5);
const EXECS = Number(process.env['BENCH_EXECS'] ?? 40);
const KUBECTL_EXECS = Number(process.env['BENCH_KUBECTL_EXECS'] ?? 15);

const best = (xs: readonly number[]): number => Math.max(...xs);
const load = (): string => loadavg()[0]!.toFixed(1);

interface Forwarder {
  port: number;
  stop(): void;
}

/** `kubectl port-forward` to the pod through `s`, left running; its local port. */
async function kubectlForward(s: Server, podPort: number): Promise<Forwarder> {
  const child = spawn(
    'kubectl',
    ['--kubeconfig', s.kubeconfig, 'port-forward', `pod/${POD}`, `:${podPort}`],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  let err = '';
  child.stderr.on('data', (b: Buffer) => (err += b.toString()));
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`kubectl port-forward (${s.name}): ${err}`)),
      30_000,
    );
    child.stdout.on('data', (b: Buffer) => {
      out += b.toString();
      const m = /Forwarding from 127\.0\.0\.1:(\d+)/.exec(out);
      if (m !== null) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    });
    child.once('exit', (code) => reject(new Error(`kubectl port-forward exited ${code}: ${err}`)));
  });
  return { port, stop: () => child.kill('SIGTERM') };
}

const spdyExec = (s: Server): Promise<number> =>
  spdyExecMs(
    `${s.url}/api/v1/namespaces/default/pods/${POD}/exec?container=${CONTAINER}&command=true&stdout=true`,
    s.tls,
  );

function kubectlExec(s: Server): Promise<number> {
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(
      'kubectl',
      ['--kubeconfig', s.kubeconfig, 'exec', POD, '-c', CONTAINER, '--', 'true'],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let err = '';
    child.stderr.on('data', (b: Buffer) => (err += b.toString()));
    child.once('close', (code) =>
      code === 0
        ? resolve(performance.now() - t0)
        : reject(new Error(`kubectl exec via ${s.name} exited ${code}: ${err}`)),
    );
  });
}

interface PerServer {
  spdy: number[];
  kubectl: number[];
  cpuPerGiB: number[];
  exec: number[];
  kubectlExec: number[];
}

const fresh = (): PerServer => ({
  spdy: [],
  kubectl: [],
  cpuPerGiB: [],
  exec: [],
  kubectlExec: [],
});

const why = skipReason();
if (why !== undefined) {
  console.log(`apiserver-streaming-reference: skipped: ${why}`);
} else {
  const { server: source, port: podPort } = await startPumpServer(PF_MB);
  const scene = await startTwoServers();
  const bytes = PF_MB * 1048576;
  // plat-apiserver with its TLS front processes (--tls-processes)
  const pidsOf = {
    'plat-apiserver': withChildren(scene.pids.plat),
    'kube-apiserver': [scene.pids.ref],
  };
  const cpuOf = (name: keyof typeof pidsOf): number =>
    pidsOf[name].reduce((sum, pid) => sum + cpuSeconds(pid), 0);
  const figures = { 'plat-apiserver': fresh(), 'kube-apiserver': fresh() };
  const tcp: number[] = [];
  const loads: string[] = [load()];
  const forwarders: Forwarder[] = [];
  try {
    const fwd = {
      'plat-apiserver': await kubectlForward(scene.plat, podPort),
      'kube-apiserver': await kubectlForward(scene.ref, podPort),
    };
    forwarders.push(fwd['plat-apiserver'], fwd['kube-apiserver']);
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 === 0 ? [scene.plat, scene.ref] : [scene.ref, scene.plat];
      for (const s of order) {
        const f = figures[s.name];
        const cpu0 = cpuOf(s.name);
        f.spdy.push(
          await externalReadMiBs('spdy', bytes, {
            READ_PORT: String(podPort),
            READ_URL: `${s.url}/api/v1/namespaces/default/pods/${POD}/portforward`,
            READ_CA: s.tls.ca,
            READ_CERT: s.tls.cert,
            READ_KEY: s.tls.key,
          }),
        );
        f.cpuPerGiB.push(((cpuOf(s.name) - cpu0) * 1024) / PF_MB);
        f.kubectl.push(
          await externalReadMiBs('tcp', bytes, { READ_PORT: String(fwd[s.name].port) }),
        );
      }
      tcp.push(await externalReadMiBs('tcp', bytes, { READ_PORT: String(podPort) }));
      loads.push(load());
    }
    for (const s of [scene.plat, scene.ref]) await spdyExec(s); // warm both paths
    for (let i = 0; i < EXECS; i++)
      for (const s of i % 2 === 0 ? [scene.plat, scene.ref] : [scene.ref, scene.plat])
        figures[s.name].exec.push(await spdyExec(s));
    for (let i = 0; i < KUBECTL_EXECS; i++)
      for (const s of i % 2 === 0 ? [scene.plat, scene.ref] : [scene.ref, scene.plat])
        figures[s.name].kubectlExec.push(await kubectlExec(s));
    loads.push(load());
    report(figures, tcp, loads);
  } finally {
    for (const f of forwarders) f.stop();
    await scene.stop();
    await new Promise<void>((resolve) => source.close(() => resolve()));
  }
}

function report(
  f: Record<'plat-apiserver' | 'kube-apiserver', PerServer>,
  tcp: number[],
  loads: string[],
): void {
  const p = f['plat-apiserver'];
  const r = f['kube-apiserver'];
  const med = (xs: number[]): number => percentile(xs, 0.5);
  const rate = (what: string, a: number[], b: number[]): string =>
    `${what}: plat-apiserver best ${best(a).toFixed(0)} / median ${med(a).toFixed(0)} MiB/s, ` +
    `kube-apiserver best ${best(b).toFixed(0)} / median ${med(b).toFixed(0)} MiB/s; ratio best ` +
    `${(best(a) / best(b)).toFixed(2)}x, median ${(med(a) / med(b)).toFixed(2)}x (goal at least 1.0x)`;
  const time = (what: string, a: number[], b: number[]): string =>
    `${what}: plat-apiserver p50 ${med(a).toFixed(1)} / p99 ${percentile(a, 0.99).toFixed(1)} ms, ` +
    `kube-apiserver p50 ${med(b).toFixed(1)} / p99 ${percentile(b, 0.99).toFixed(1)} ms; ratio p50 ` +
    `${(med(a) / med(b)).toFixed(2)}x (goal at most 1.0x)`;
  console.log(
    `port-forward of ${PF_MB} MiB, ${tcp.length} rounds alternating, each read by a process of its own`,
  );
  console.log(`  ${rate('SPDY (our client)', p.spdy, r.spdy)}`);
  console.log(`  ${rate('kubectl port-forward (WebSocket tunnel)', p.kubectl, r.kubectl)}`);
  console.log(
    `  server CPU seconds per GiB during the SPDY reads: plat-apiserver ${med(p.cpuPerGiB).toFixed(2)}, ` +
      `kube-apiserver ${med(r.cpuPerGiB).toFixed(2)} (${(med(p.cpuPerGiB) / med(r.cpuPerGiB)).toFixed(2)}x); ` +
      `direct TCP best ${best(tcp).toFixed(0)} MiB/s`,
  );
  console.log(`exec of \`true\`, alternating`);
  console.log(`  ${time(`SPDY (our client, ${p.exec.length} each)`, p.exec, r.exec)}`);
  console.log(
    `  ${time(`kubectl exec (WebSocket, ${p.kubectlExec.length} each)`, p.kubectlExec, r.kubectlExec)}`,
  );
  console.log(`load average (1 min) over the run: ${loads.join(', ')}`);
}
