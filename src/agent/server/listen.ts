// Shared plumbing of the agent's three servers: the reference's timeouts (header limit 1 MiB,
// idle 90 s, read/write 4 h), the 4-hour cap on any connection, listening on an address and port
// (0 picks a free one), and a stop that also closes idle and streaming connections (tracked
// from the start, for HTTP/1.1 and HTTP/2 alike).

import type { AddressInfo, Server as NetServer, Socket } from 'node:net';
import { systemClock, type Clock } from '../../common/util/clock.js';
import { ConfigError } from '../../common/util/errors.js';
import { destroyAfter } from '../../common/util/client-errors.js';

export const MAX_HEADER_BYTES = 1 << 20;
export const IDLE_TIMEOUT_MS = 90_000;
export const READ_WRITE_TIMEOUT_MS = 4 * 60 * 60_000;
export const MAX_CONNECTION_AGE_MS = 4 * 60 * 60_000;

export const SERVER_TIMEOUTS = {
  maxHeaderSize: MAX_HEADER_BYTES,
  keepAliveTimeout: IDLE_TIMEOUT_MS,
  requestTimeout: READ_WRITE_TIMEOUT_MS,
  headersTimeout: 60_000,
} as const;

/** Closes every connection once it is `maxAgeMs` old, whatever it is doing. */
export function capConnectionAge(
  server: NetServer,
  maxAgeMs: number,
  clock: Clock = systemClock,
): void {
  server.on('connection', (socket: Socket) => destroyAfter(socket, maxAgeMs, clock));
}

/**
 * Listens; a failure names the server and its flags (`what`: e.g. `agent server (--address,
 * --port)`).
 */
export function listen(
  server: NetServer,
  address: string,
  port: number,
  what = 'server',
): Promise<AddressInfo> {
  return new Promise((resolve, reject) => {
    const onError = (err: NodeJS.ErrnoException): void => {
      const why =
        err.code === 'EADDRINUSE'
          ? 'the address is already in use'
          : err.code === 'EACCES'
            ? 'permission denied'
            : err.code === 'EADDRNOTAVAIL'
              ? 'no such address on this host'
              : err.message;
      reject(
        new ConfigError(`cannot listen on ${address}:${port} for the ${what}: ${why}`, {
          cause: err,
        }),
      );
    };
    server.once('error', onError);
    openConnections(server);
    server.listen({ host: address, port }, () => {
      server.off('error', onError);
      resolve(server.address() as AddressInfo);
    });
  });
}

/** Stops listening and closes every connection, idle or busy (streams included). */
export function stopServer(server: NetServer): Promise<void> {
  const open = openConnections(server);
  return new Promise((resolve) => {
    if (!server.listening) {
      resolve();
      return;
    }
    server.close(() => resolve());
    for (const socket of open) socket.destroy();
  });
}

const tracked = new WeakMap<NetServer, Set<Socket>>();

/**
 * The server's open connections, tracked from the first call on (listen() makes it): an HTTP/2
 * server has no closeAllConnections, and its sessions hold their sockets.
 */
export function openConnections(server: NetServer): Set<Socket> {
  let set = tracked.get(server);
  if (set === undefined) {
    const sockets = new Set<Socket>();
    server.on('connection', (socket: Socket) => {
      sockets.add(socket);
      socket.once('close', () => sockets.delete(socket));
    });
    tracked.set(server, sockets);
    set = sockets;
  }
  return set;
}

/** A URL host for an address (IPv6 in brackets). */
export function urlHost(info: AddressInfo): string {
  return info.family === 'IPv6' ? `[${info.address}]:${info.port}` : `${info.address}:${info.port}`;
}
