// A TLS front: ends TLS for the secure port's connections in a process of its own and relays
// each connection's bytes to the main process over its inner socket, after a header with the
// client's address and certificate facts (frame.ts). The main process does everything else; the
// record encryption and handshakes of every connection are done here, on another core.

import { connect } from 'node:net';
import { createServer, type Server, type TLSSocket } from 'node:tls';
import { ACK, encodeFrame } from './frame.js';
import type { FrontConfig, FrontReport } from './messages.js';
import { secureServerOptions } from './secure-options.js';
import { tlsPeerFacts } from './peer.js';

/** Relays one client connection once the main process has acknowledged its header. */
function relay(c: FrontConfig, client: TLSSocket, report: (r: FrontReport) => void): void {
  const inner = connect({ path: c.innerPath, allowHalfOpen: true });
  let acknowledged = false;
  const teardown = (): void => {
    client.destroy();
    inner.destroy();
  };
  client.on('error', teardown);
  inner.on('error', (err: Error) => {
    // Before the answer, the main process did not take the connection: say so.
    if (!acknowledged) report({ kind: 'relay-failed', message: err.message });
    teardown();
  });
  inner.write(encodeFrame(c.secret, tlsPeerFacts(client)));
  inner.once('data', (answer: Buffer) => {
    if (answer[0] !== ACK) {
      teardown();
      return;
    }
    acknowledged = true;
    if (answer.length > 1) client.write(answer.subarray(1));
    client.pipe(inner);
    inner.pipe(client);
  });
  // Either side closing abruptly ends the other; an orderly end travels through the pipes.
  client.once('close', (hadError: boolean) => hadError && inner.destroy());
  inner.once('close', (hadError: boolean) => hadError && client.destroy());
}

/** Starts the front's TLS listener (through the cluster's shared socket) and its relaying. */
export function startFront(c: FrontConfig, report: (r: FrontReport) => void): Server {
  const server = createServer(
    {
      ...secureServerOptions(c),
      ticketKeys: Buffer.from(c.ticketKeys, 'base64'),
      allowHalfOpen: true,
      // as node's HTTP server sets it: Nagle's wait would hold each answer's last segment back
      noDelay: true,
    },
    (client) => relay(c, client, report),
  );
  server.once('error', (err: NodeJS.ErrnoException) =>
    report({ kind: 'listen-failed', code: err.code ?? '', message: err.message }),
  );
  server.listen(c.port, c.host, () => {
    const addr = server.address();
    const at = typeof addr === 'object' && addr !== null ? addr : { address: c.host, port: 0 };
    report({ kind: 'listening', address: at.address, port: at.port });
  });
  return server;
}
