// The two plain-HTTP servers: read-only (--read-only-port: no authentication, no debugging
// handlers) and healthz (--healthz-bind-address:--healthz-port: /healthz only).

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '../../common/log/types.js';
import { serveHealthz } from './handlers/healthz.js';
import { httpError, notFound } from './handlers/respond.js';
import type { NodeHandlers } from './handlers/routes.js';
import type { Clock } from '../../common/util/clock.js';
import {
  MAX_CONNECTION_AGE_MS,
  SERVER_TIMEOUTS,
  capConnectionAge,
  listen,
  stopServer,
} from './listen.js';
import { answerClientErrors } from '../../common/util/client-errors.js';
import type { NodeAgentMetrics } from './metrics.js';
import { userMessage } from '../../common/util/errors.js';

export interface PlainServerOptions {
  kind: 'read-only' | 'healthz';
  /** Connection age and drain timers (default the system clock). */
  clock?: Clock;
  address: string;
  port: number;
  handlers: NodeHandlers;
  metrics: NodeAgentMetrics;
  logger: Logger;
}

export class PlainServer {
  private readonly server: Server;

  constructor(private readonly options: PlainServerOptions) {
    this.server = createServer({ ...SERVER_TIMEOUTS }, (req, res) => {
      this.serve(req, res).catch((err: unknown) => {
        options.logger.error({ err: userMessage(err), path: req.url }, 'request handler failed');
        httpError(res, 500, 'Internal Server Error');
      });
    });
    capConnectionAge(this.server, MAX_CONNECTION_AGE_MS, options.clock);
    answerClientErrors(this.server, options.clock);
  }

  async start(): Promise<AddressInfo> {
    const info = await listen(
      this.server,
      this.options.address,
      this.options.port,
      this.options.kind === 'healthz'
        ? 'healthz server (--healthz-bind-address, --healthz-port)'
        : 'read-only server (--address, --read-only-port)',
    );
    this.options.logger.info(
      { address: info.address, port: info.port },
      `${this.options.kind} server listening (HTTP)`,
    );
    return info;
  }

  stop(): Promise<void> {
    return stopServer(this.server);
  }

  private async serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const o = this.options;
    const verb = (req.method ?? 'GET').toLowerCase();
    res.once('finish', () =>
      o.metrics.serverRequests.inc({ code: String(res.statusCode), server: o.kind, verb }),
    );
    let url: URL;
    try {
      url = new URL(req.url ?? '/', 'http://node.invalid');
    } catch {
      httpError(res, 400, 'malformed request URL');
      return;
    }
    if (o.kind === 'healthz') {
      if (url.pathname === '/healthz' || url.pathname.startsWith('/healthz/'))
        serveHealthz(req, res, url.pathname, o.handlers.healthChecks);
      else notFound(res);
      return;
    }
    await o.handlers.handle(req, res, url, 'read-only');
  }
}
