// The main process's side of the TLS fronts: a unix socket in a fresh directory only this user can
// enter, on which each front connection starts with its header (frame.ts). A header that is
// complete, well formed and carries the run's secret is acknowledged, its facts attached to the
// connection (peer.ts), and the connection handed to the HTTP server as if it had been accepted
// there; anything else is closed. Bounded: the header's size, and 10 s to send it.

import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ACK, decodeFrameBody, FrameError, FrameReader } from './frame.js';
import { attachPeer } from './peer.js';
import { afterMs, systemClock, type Clock } from '../../common/util/clock.js';

const HEADER_TIMEOUT_MS = 10_000;

/** The name of the inner socket's directory starts so (under the system's temporary directory). */
export const INNER_DIR_PREFIX = 'plat-apiserver-fronts-';

export interface InnerListener {
  readonly path: string;
  /** Stops accepting and removes the socket's directory. */
  close(): Promise<void>;
}

export interface InnerListenerOptions {
  readonly secret: string;
  readonly handOn: (socket: Socket) => void;
  readonly refused: (why: string) => void;
  readonly clock?: Clock;
}

/** Reads and checks one connection's header; hands the connection on, or closes it. */
function accept(socket: Socket, o: InnerListenerOptions): void {
  const { secret, refused, handOn } = o;
  const reader = new FrameReader();
  const cancelTimer = afterMs(o.clock ?? systemClock, HEADER_TIMEOUT_MS, () => {
    refused(`no complete header within ${HEADER_TIMEOUT_MS / 1000} s`);
    socket.destroy();
  });
  const onData = (chunk: Buffer): void => {
    try {
      const body = reader.push(chunk);
      if (body === undefined) return;
      const facts = decodeFrameBody(body, secret);
      cancelTimer();
      socket.removeListener('data', onData);
      socket.pause();
      attachPeer(socket, facts);
      socket.write(Buffer.of(ACK));
      handOn(socket);
    } catch (err) {
      cancelTimer();
      refused(err instanceof FrameError ? err.message : String(err));
      socket.destroy();
    }
  };
  socket.on('data', onData);
  socket.on('error', () => socket.destroy());
  socket.once('close', () => cancelTimer());
}

/**
 * Listens on a new private unix socket; each connection with a good header goes to `handOn`, a
 * refused one is reported through `refused` (the reason) and closed.
 */
export async function startInnerListener(o: InnerListenerOptions): Promise<InnerListener> {
  // mkdtemp makes the directory 0700: no other user can reach the socket inside.
  const dir = mkdtempSync(join(tmpdir(), INNER_DIR_PREFIX));
  const path = join(dir, 'inner.sock');
  // Connections still sending their header: the only ones no other part will close at a stop.
  const pending = new Set<Socket>();
  const server: Server = createServer({ allowHalfOpen: true }, (s) => {
    pending.add(s);
    const settled = (): boolean => pending.delete(s);
    s.once('close', settled);
    const handOn = (handed: Socket): void => {
      settled();
      o.handOn(handed);
    };
    accept(s, { ...o, handOn });
  });
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(path, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  return {
    path,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of pending) s.destroy();
        server.close(() => {
          rmSync(dir, { recursive: true, force: true });
          resolve();
        });
      }),
  };
}
