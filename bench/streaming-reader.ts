// The reading side of the port-forward benchmark, in its own process (as kubectl or an API
// server would be): reads everything a port sends, directly over TCP or through the agent's
// port-forward (SPDY or WebSocket), and prints {"bytes":n,"ms":t} (from connect to the end).
// Usage (env): READ_MODE=tcp|tls|spdy|ws READ_PORT=<pod port> READ_RELAY_PORT=<TLS relay port>
// READ_BASE=<agent https base> (or READ_URL=<the whole port-forward URL>, e.g. through
// plat-apiserver) READ_CA, READ_CERT, READ_KEY (PEM text).
import { spdyPortForwardRead, tcpRead, wsPortForwardRead } from './port-forward-read.js';
import { tlsRelayRead } from './tls-relay.js';

const env = (k: string): string => process.env[k] ?? '';
const port = Number(env('READ_PORT'));
const tls = { ca: env('READ_CA'), cert: env('READ_CERT'), key: env('READ_KEY') };
const url =
  env('READ_URL') !== '' ? env('READ_URL') : `${env('READ_BASE')}/portForward/default/bench`;
const tcp = async (): Promise<number> => (await tcpRead(port)).bytes;
const spdy = async (): Promise<number> => (await spdyPortForwardRead(url, port, tls)).bytes;
const ws = async (): Promise<number> => (await wsPortForwardRead(url, port, tls)).bytes;

const t0 = performance.now();
const mode = env('READ_MODE');
const expected = Number(env('READ_EXPECT'));
const bytes =
  mode === 'tls'
    ? (await tlsRelayRead(Number(env('READ_RELAY_PORT')), tls.ca, expected), expected)
    : mode === 'tcp'
      ? await tcp()
      : mode === 'spdy'
        ? await spdy()
        : await ws();
console.log(JSON.stringify({ bytes, ms: performance.now() - t0 }));
