// The far end of the port-forward benchmarks: a TCP server on 127.0.0.1 that sends every
// connection `mib` MiB as fast as the socket takes it, then ends.
import { createServer, type Server } from 'node:net';
import type { AddressInfo } from 'node:net';

export async function startPumpServer(mib: number): Promise<{ server: Server; port: number }> {
  const chunk = Buffer.alloc(1024 * 1024, 7);
  const server = createServer((sock) => {
    let left = mib;
    const pump = (): void => {
      while (left > 0) {
        left--;
        if (!sock.write(chunk)) {
          sock.once('drain', pump);
          return;
        }
      }
      sock.end();
    };
    pump();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port };
}
