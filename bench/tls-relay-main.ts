// One TLS relay (bench/tls-relay.ts) in a process of its own, as the agent and plat-apiserver
// are: it prints {"port":n} once listening and runs until its stdin closes.
// Usage (env): RELAY_CERT, RELAY_KEY (PEM text), RELAY_UPSTREAM_PORT, RELAY_UPSTREAM_CA (PEM
// text; empty: the upstream is plain TCP).
import { startTlsRelay } from './tls-relay.js';

const env = (k: string): string => process.env[k] ?? '';
const upstreamCa = env('RELAY_UPSTREAM_CA');
const relay = await startTlsRelay({
  cert: env('RELAY_CERT'),
  key: env('RELAY_KEY'),
  upstreamPort: Number(env('RELAY_UPSTREAM_PORT')),
  ...(upstreamCa === '' ? {} : { upstreamCa }),
});
console.log(JSON.stringify({ port: relay.port }));
process.stdin.resume();
process.stdin.once('end', () => relay.server.close());
process.stdin.once('close', () => process.exit(0));
