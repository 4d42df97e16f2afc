// plat-apiserver's HTTP server: with TLS ended in this process (client certificates requested,
// not required: the authenticators decide; TLS 1.2 at least), or plain HTTP over the connections
// the TLS front processes relay (front/). Requests and upgrades (exec, attach, port-forward,
// nodes/proxy) go to one pipeline; upgrades are answered on a response object over the raw socket
// until a handler takes the socket over. A pipeline failure is logged and answered (500, or the
// socket dropped).

import { createServer as createTlsServer } from 'node:https';
import {
  createServer as createPlainServer,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { Duplex } from 'node:stream';
import type { Logger } from '../common/log/types.js';
import { answerClientErrors } from '../common/util/client-errors.js';
import { responseOnUpgrade } from '../common/util/upgrade-response.js';
import { sendError } from './handlers/respond.js';
import { secureServerOptions, type ServingTls } from './front/secure-options.js';

export interface HttpsServerOptions {
  /** The serving pair and client CAs; undefined: plain HTTP behind the TLS fronts. */
  readonly tls: ServingTls | undefined;
  readonly logger: Logger;
  readonly handle: (
    req: IncomingMessage,
    res: ServerResponse,
    upgrade?: { socket: Duplex; head: Buffer },
  ) => Promise<void>;
}

/** The request line and headers of one request, at most (larger: 431). */
export const MAX_HEADER_BYTES = 1 << 20;

const ignoreData = (): void => undefined;

/**
 * Makes the HTTP parser read a new TLS connection through its `data` events: Node stops feeding
 * the parser straight from the TLS stream once a `data` listener is added, which it checks only
 * after its own connection listener has run (this one is added after it). Fed straight, a
 * request that arrives while the answer before it is still being flushed has Node pause the
 * parser, but the TLS stream goes on handing it the bytes it has already decrypted: the parser
 * fails with HPE_PAUSED and a valid request is refused 400 (seen with 256 KiB bodies on
 * kept-alive connections while other requests held the event loop). Paused `data` events wait.
 */
function readInJavaScript(socket: Duplex): void {
  socket.on('data', ignoreData);
}

export function createHttpsServer(o: HttpsServerOptions): Server {
  const onRequest = (req: IncomingMessage, res: ServerResponse): void => {
    o.handle(req, res).catch((err: unknown) => {
      o.logger.error({ err }, 'request handling failed');
      if (!res.headersSent) sendError(res, err, { pretty: false, warnings: [] });
      else res.destroy();
    });
  };
  // Go's http.Server limit (DefaultMaxHeaderBytes, 1 MB), not Node's 16 KB: clients send long
  // label selectors (`in (...)` over many values) in the query
  const http = { maxHeaderSize: MAX_HEADER_BYTES };
  const server: Server =
    o.tls === undefined
      ? createPlainServer(http, onRequest)
      : createTlsServer({ ...secureServerOptions(o.tls), ...http }, onRequest);
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    // The upgrade's handler reads the socket as it wishes (see readInJavaScript).
    socket.off('data', ignoreData);
    const res = responseOnUpgrade(req, socket);
    o.handle(req, res, { socket, head }).catch((err: unknown) => {
      o.logger.error({ err }, 'upgrade handling failed');
      socket.destroy();
    });
  });
  answerClientErrors(server);
  if (o.tls !== undefined) server.on('secureConnection', readInJavaScript);
  server.requestTimeout = 0;
  server.headersTimeout = 60_000;
  server.keepAliveTimeout = 65_000;
  return server;
}
