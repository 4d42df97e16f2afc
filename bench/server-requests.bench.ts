// Requests per second of the agent's server: `/pods` and `/healthz` over TLS with client
// certificates (x509 authentication against the client CA, AlwaysAllow), against the same
// handlers on the plain-HTTP read-only server (no TLS, no authentication) in the same run, both
// in this process on loopback, driven by keep-alive connections.
import { Agent, request } from 'undici';
import { Registry } from 'prom-client';
import { silentLogger } from '../src/common/log/types.js';
import { systemClock } from '../src/common/util/clock.js';
import { NodeAgentMetrics } from '../src/agent/server/metrics.js';
import { NodeServers } from '../src/agent/server/node-servers.js';
import { makeServerCerts } from '../test/helpers/server-tls-certs-bundle.js';

const SECONDS = Number(process.env['BENCH_SECONDS'] ?? 1.5);
const ROUNDS = 3;
const CONNECTIONS = 8;

const certs = await makeServerCerts();
const pods = Array.from({ length: 30 }, (_, i) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: `pod-${i}`, namespace: 'default', uid: `uid-${i}` },
  spec: { containers: [{ name: 'c', image: 'busybox' }] },
  status: { phase: 'Running' },
}));
const abort = new AbortController();
const servers = new NodeServers({
  nodeName: 'bench-node',
  clock: systemClock,
  logger: silentLogger(),
  metrics: new NodeAgentMetrics({ registry: new Registry() }),
  pods: { pods: () => pods },
  streamingIdleTimeoutMs: 0,
  secure: {
    address: '127.0.0.1',
    port: 0,
    tls: { current: () => ({ cert: certs.serving.certPem, key: certs.serving.keyPem }) },
    enableDebuggingHandlers: true,
    clientCaFile: certs.caFile,
    anonymous: false,
    authorization: { mode: 'AlwaysAllow' },
  },
  readOnly: { address: '127.0.0.1', port: 0 },
});
const addrs = await servers.start(abort.signal);

async function drive(
  origin: string,
  path: string,
  dispatcher: Agent,
): Promise<{ rps: number; failures: number }> {
  const deadline = Date.now() + SECONDS * 1000;
  let done = 0;
  let failures = 0;
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (Date.now() < deadline) {
        const r = await request(origin + path, { dispatcher });
        await r.body.arrayBuffer();
        if (r.statusCode === 200) done++;
        else failures++;
      }
    }),
  );
  return { rps: done / SECONDS, failures };
}

try {
  const tlsAgent = new Agent({
    connections: CONNECTIONS,
    connect: { ca: certs.ca.certPem, cert: certs.alice.certPem, key: certs.alice.keyPem },
  });
  const plainAgent = new Agent({ connections: CONNECTIONS });
  const secure = `https://127.0.0.1:${addrs.secure?.port}`;
  const plain = `http://127.0.0.1:${addrs.readOnly?.port}`;
  // Warm up both (TLS handshakes, JIT).
  await drive(secure, '/healthz', tlsAgent);
  await drive(plain, '/healthz', plainAgent);
  for (const path of ['/pods', '/healthz']) {
    // Interleaved rounds so load from other processes on the machine hits both sides alike.
    const base = { rps: 0, failures: 0 };
    const tls = { rps: 0, failures: 0 };
    for (let round = 0; round < ROUNDS; round++) {
      const b = await drive(plain, path, plainAgent);
      const t = await drive(secure, path, tlsAgent);
      base.rps += b.rps / ROUNDS;
      base.failures += b.failures;
      tls.rps += t.rps / ROUNDS;
      tls.failures += t.failures;
    }
    console.log(
      `${path}: TLS + client certificate ${tls.rps.toFixed(0)} req/s, plain HTTP baseline ${base.rps.toFixed(0)} req/s, ratio ${(tls.rps / base.rps).toFixed(2)}x (${CONNECTIONS} keep-alive connections, ${ROUNDS} interleaved rounds of ${SECONDS}s, failures ${tls.failures + base.failures})`,
    );
  }
  await tlsAgent.close();
  await plainAgent.close();
} finally {
  abort.abort();
  await servers.stop();
  await certs.cleanup();
}
