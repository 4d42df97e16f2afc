// The floor under every port-forward figure: a TLS server that relays each connection to the
// pump server byte for byte (no SPDY, no WebSocket, no authentication), read by a TLS client.
// Whatever the agent does costs at least this; its ratio to direct TCP is what TLS alone costs
// on the machine of the run. A relay may also reach its upstream over TLS (another relay): two
// such hops, each in its own process (bench/tls-relay-main.ts), are the floor of the path
// through plat-apiserver (client -TLS- plat-apiserver -TLS- agent -TCP- pod).
import { connect as tcpConnect, type AddressInfo } from 'node:net';
import { connect as tlsConnect, createServer, type Server } from 'node:tls';
import type { Duplex } from 'node:stream';

export interface TlsRelay {
  readonly server: Server;
  readonly port: number;
}

export interface TlsRelayOptions {
  cert: string;
  key: string;
  upstreamPort: number;
  /** The upstream's CA when the upstream speaks TLS (another relay); plain TCP without it. */
  upstreamCa?: string;
}

export async function startTlsRelay(o: TlsRelayOptions): Promise<TlsRelay> {
  const server = createServer({ cert: o.cert, key: o.key }, (client) => {
    const upstream: Duplex =
      o.upstreamCa === undefined
        ? tcpConnect(o.upstreamPort, '127.0.0.1')
        : tlsConnect({ port: o.upstreamPort, host: '127.0.0.1', ca: o.upstreamCa });
    upstream.pipe(client);
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port };
}

/** MiB/s of one read of everything the relay sends, checked against `expectBytes`. */
export function tlsRelayRead(port: number, ca: string, expectBytes: number): Promise<number> {
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    let n = 0;
    const c = tlsConnect({ port, host: '127.0.0.1', ca });
    c.on('data', (d: Buffer) => (n += d.length));
    c.once('error', reject);
    c.once('close', () =>
      n === expectBytes
        ? resolve(n / 1048576 / ((performance.now() - t0) / 1000))
        : reject(new Error(`TLS relay carried ${n} bytes, expected ${expectBytes}`)),
    );
  });
}
