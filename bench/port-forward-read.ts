// The reading side of every port-forward benchmark: one read of everything a pod's port sends,
// straight over TCP or through a port-forward (SPDY or WebSocket, as client-go's port-forwarders
// speak them). Used in the benchmark's own process (bench/streaming.bench.ts,
// bench/apiserver-streaming.bench.ts) and by the reader in a process of its own
// (bench/streaming-reader.ts).
import { connect } from 'node:net';
import { spdyUpgrade } from '../test/helpers/spdy-client.js';
import { wsConnect } from '../test/helpers/ws-client.js';

export interface PortForwardTls {
  ca: string;
  cert: string;
  key: string;
}

/** What one read carried, and the time from the call to its last byte. */
export interface PortRead {
  bytes: number;
  ms: number;
}

/** Everything the server on 127.0.0.1:`port` sends, over a plain TCP connection. */
export function tcpRead(port: number): Promise<PortRead> {
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    let n = 0;
    const c = connect(port, '127.0.0.1');
    c.on('data', (d: Buffer) => (n += d.length));
    c.once('error', reject);
    c.once('close', () => resolve({ bytes: n, ms: performance.now() - t0 }));
  });
}

/** Everything `port` sends through the SPDY port-forward at `url` (its error and data streams). */
export async function spdyPortForwardRead(
  url: string,
  port: number,
  tls: PortForwardTls,
): Promise<PortRead> {
  const t0 = performance.now();
  const r = await spdyUpgrade({ url, protocols: ['portforward.k8s.io'], ...tls });
  if (r.kind !== 'upgraded') throw new Error(`port-forward refused: ${r.status} ${r.body}`);
  const h = (t: string): Map<string, string[]> =>
    new Map([
      ['streamtype', [t]],
      ['port', [String(port)]],
      ['requestid', ['0']],
    ]);
  const errorStream = await r.session.openStream(h('error'));
  const data = await r.session.openStream(h('data'));
  let n = 0;
  await new Promise<void>((resolve) => {
    data.on('data', (d: Buffer) => (n += d.length));
    data.once('end', () => resolve());
    data.once('close', () => resolve());
  });
  const ms = performance.now() - t0;
  errorStream.end();
  data.end();
  await r.session.close();
  return { bytes: n, ms };
}

/** Everything `port` sends through the WebSocket port-forward at `url` (v4.channel.k8s.io, data on channel 0). */
export async function wsPortForwardRead(
  url: string,
  port: number,
  tls: PortForwardTls,
): Promise<PortRead> {
  const t0 = performance.now();
  const r = await wsConnect(`${url}?port=${port}`, ['v4.channel.k8s.io'], tls);
  if (r.kind !== 'open') throw new Error(`port-forward refused: ${r.status}`);
  let n = 0;
  r.ws.removeAllListeners('message');
  r.ws.on('message', (d: Buffer) => {
    if (d[0] === 0) n += d.length - 1;
  });
  await new Promise<void>((resolve) => r.ws.once('close', () => resolve()));
  return { bytes: n - 2, ms: performance.now() - t0 }; // less the 2-byte port prefix
}

/** The read's MiB/s, once it is known to have carried `expectBytes`. */
export function mibPerSecond(r: PortRead, expectBytes: number, what = 'port-forward'): number {
  if (r.bytes !== expectBytes)
    throw new Error(`${what} carried ${r.bytes} bytes, expected ${expectBytes}`);
  return r.bytes / 1048576 / (r.ms / 1000);
}
