// The reading side of the port-forward benchmark, in its own process (as kubectl or an API
// server would be): reads everything a port sends, directly over TCP or through the agent's
// port-forward (SPDY or WebSocket), and prints {"bytes":n,"ms":t} (from connect to the end).
// Usage (env): READ_MODE=tcp|tls|spdy|ws READ_PORT=<pod port> READ_RELAY_PORT=<TLS relay port>
// READ_BASE=<agent https base> (or READ_URL=<the whole port-forward URL>, e.g. through
// plat-apiserver) READ_CA, READ_CERT, READ_KEY (PEM text).
import { connect } from 'node:net';
import { spdyUpgrade } from '../test/helpers/spdy-client.js';
import { wsConnect } from '../test/helpers/ws-client.js';
import { tlsRelayRead } from './tls-relay.js';

const env = (k: string): string => process.env[k] ?? '';
const port = Number(env('READ_PORT'));
const tls = { ca: env('READ_CA'), cert: env('READ_CERT'), key: env('READ_KEY') };
const url = env('READ_URL') !== '' ? env('READ_URL') : `${env('READ_BASE')}/portForward/default/bench`;

async function tcp(): Promise<number> {
  return new Promise((resolve, reject) => {
    let n = 0;
    const c = connect(port, '127.0.0.1');
    c.on('data', (d: Buffer) => (n += d.length));
    c.once('error', reject);
    c.once('close', () => resolve(n));
  });
}

async function spdy(): Promise<number> {
  const r = await spdyUpgrade({ url, protocols: ['portforward.k8s.io'], ...tls });
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
  errorStream.end();
  data.end();
  await r.session.close();
  return n;
}

async function ws(): Promise<number> {
  const r = await wsConnect(`${url}?port=${port}`, ['v4.channel.k8s.io'], tls);
  if (r.kind !== 'open') throw new Error(`port-forward refused: ${r.status}`);
  let n = 0;
  r.ws.removeAllListeners('message');
  r.ws.on('message', (d: Buffer) => {
    if (d[0] === 0) n += d.length - 1;
  });
  await new Promise<void>((resolve) => r.ws.once('close', () => resolve()));
  return n - 2; // the port prefix
}

const t0 = performance.now();
const mode = env('READ_MODE');
const expected = Number(env('READ_EXPECT'));
const bytes = mode === 'tls' ? (await tlsRelayRead(Number(env('READ_RELAY_PORT')), tls.ca, expected), expected) : mode === 'tcp' ? await tcp() : mode === 'spdy' ? await spdy() : await ws();
console.log(JSON.stringify({ bytes, ms: performance.now() - t0 }));
