// Joins a WebSocket and a byte stream: each chunk the stream gives leaves as one binary message,
// each message that arrives is written to the stream. Unlike ws's createWebSocketStream (which
// waits for every message to be flushed before taking the next: one message in flight), a chunk
// is sent at once and the stream is paused only while more than SEND_BUFFER bytes wait in the
// WebSocket; the WebSocket is paused while the stream's writer is full. The stream ending closes
// the WebSocket once what it gave has been written; the WebSocket ending or either side failing
// tears both down.

import type { Duplex } from 'node:stream';
import type { WebSocket } from 'ws';

/** Bytes waiting in the WebSocket before the stream is paused. */
const SEND_BUFFER = 1024 * 1024;

export function joinWebSocket(ws: WebSocket, stream: Duplex): Promise<void> {
  return new Promise((resolve) => {
    let done = false;
    let lastSent: Promise<void> = Promise.resolve();
    const finish = (): void => {
      if (done) return;
      done = true;
      stream.destroy();
      // As ws's createWebSocketStream on destroy: no close handshake to wait for (a peer that
      // never answers one would hold the socket for ws's 30 s close timeout).
      ws.terminate();
      resolve();
    };
    stream.on('data', (chunk: Buffer) => {
      if (ws.readyState !== ws.OPEN) return;
      const full = ws.bufferedAmount + chunk.length > SEND_BUFFER;
      if (full) stream.pause();
      lastSent = new Promise((sent) =>
        ws.send(chunk, { binary: true }, () => {
          if (full) stream.resume();
          sent();
        }),
      );
    });
    ws.on('message', (data: Buffer) => {
      if (!stream.write(data)) {
        ws.pause();
        stream.once('drain', () => ws.resume());
      }
    });
    stream.once('close', () => void lastSent.then(finish));
    stream.on('error', finish);
    ws.once('close', finish);
    ws.on('error', finish);
    if (stream.destroyed || ws.readyState !== ws.OPEN) finish();
  });
}
