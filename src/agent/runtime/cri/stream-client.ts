// The agent as a client of the CRI runtime's streaming server: Exec, Attach and PortForward answer
// with a URL, and the agent connects to it over WebSocket (the `v4.channel.k8s.io` subprotocol of
// the reference's streaming server: one byte of channel before each message; 0 stdin, 1 stdout,
// 2 stderr, 3 the error/status channel, 4 terminal resize; for port forwarding a data and an error
// channel per port, each opened by the port number as two little-endian bytes). The sessions are
// handed to the agent's own streaming endpoints, which serve kubectl over SPDY or WebSocket.
import { Duplex, PassThrough, Writable } from 'node:stream';
import WebSocket from 'ws';
import { RuntimeError } from '../../../common/util/errors.js';
import { isRecord, listOf, recordOf } from '../../../common/util/json-shape.js';
import type { ExecSession } from '../types.js';

export const CHANNEL_PROTOCOL = 'v4.channel.k8s.io';
/** The most a status message on the error channel may hold. */
const MAX_STATUS_BYTES = 64 * 1024;

/**
 * Connects; `onMessage` is attached before the handshake ends, since the first frames may come in
 * the same read as the handshake's answer (before a listener added after `open` would be).
 */
function open(url: string, onMessage: (buf: Buffer) => void): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url.replace(/^http/, 'ws'), [CHANNEL_PROTOCOL], {
      maxPayload: 16 * 1024 * 1024,
      handshakeTimeout: 30_000,
    });
    ws.binaryType = 'nodebuffer';
    ws.on('message', (data) => onMessage(frames(data)));
    ws.once('open', () => resolve(ws));
    ws.once('unexpected-response', (_req, res) =>
      reject(new RuntimeError(`the runtime's stream at ${url} answered ${res.statusCode ?? 0}`)),
    );
    ws.once('error', (err) =>
      reject(new RuntimeError(`the runtime's stream at ${url}: ${err.message}`)),
    );
  });
}

function frames(data: WebSocket.RawData): Buffer {
  if (Buffer.isBuffer(data)) return data;
  if (Array.isArray(data)) return Buffer.concat(data);
  return Buffer.from(data);
}

/** The exit code of a v4 status: 0 for Success, the ExitCode cause for NonZeroExitCode, else 1. */
export function exitCodeOfStatus(text: string): number {
  if (text.trim() === '') return 0;
  let status: unknown;
  try {
    status = JSON.parse(text);
  } catch {
    return 1;
  }
  if (!isRecord(status)) return 1;
  if (status['status'] === 'Success') return 0;
  for (const c of listOf(recordOf(status['details'])['causes']).map(recordOf)) {
    if (c['reason'] !== 'ExitCode') continue;
    const n = Number(c['message']);
    if (Number.isInteger(n) && n >= 0 && n <= 255) return n;
  }
  return 1;
}

/** An exec or attach session over the runtime's stream URL. */
export async function channelSession(url: string, opts: { stdin: boolean }): Promise<ExecSession> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let status = '';
  const ws = await open(url, (buf) => {
    const body = buf.subarray(1);
    if (buf[0] === 1) stdout.write(body);
    else if (buf[0] === 2) stderr.write(body);
    else if (buf[0] === 3 && status.length < MAX_STATUS_BYTES) status += body.toString('utf8');
  });
  const exited = new Promise<number>((resolve) => {
    ws.once('close', () => {
      stdout.end();
      stderr.end();
      resolve(exitCodeOfStatus(status));
    });
  });
  ws.on('error', () => ws.terminate());
  const send = (channel: number, body: Buffer): void => {
    if (ws.readyState === WebSocket.OPEN) ws.send(Buffer.concat([Buffer.from([channel]), body]));
  };
  const stdin = new Writable({
    write(chunk: Buffer, _enc, done) {
      if (opts.stdin) send(0, chunk);
      done();
    },
  });
  return {
    stdin,
    stdout,
    stderr,
    exited,
    kill: () => ws.close(),
    resize: (cols, rows) => send(4, Buffer.from(JSON.stringify({ Width: cols, Height: rows }))),
  };
}

/** A connection to one port of a pod, over the runtime's port-forward stream URL. */
export async function portForwardConnection(url: string, port: number): Promise<Duplex> {
  const sep = url.includes('?') ? '&' : '?';
  const seen = [0, 0];
  let errorText = '';
  // eslint-disable-next-line prefer-const -- assigned once connected; the Duplex's methods use it
  let ws: WebSocket | undefined;
  const duplex = new Duplex({
    write(chunk: Buffer, _enc, done) {
      if (ws?.readyState === WebSocket.OPEN)
        ws.send(Buffer.concat([Buffer.from([0]), chunk]), done);
      else done(new RuntimeError(`the port-forward stream to port ${port} is closed`));
    },
    read() {
      return undefined;
    },
    final(done) {
      ws?.close();
      done();
    },
    destroy(err, done) {
      ws?.terminate();
      done(err);
    },
  });
  ws = await open(`${url}${sep}port=${port}`, (buf) => {
    const ch = buf[0];
    if (ch !== 0 && ch !== 1) return;
    let body = buf.subarray(1);
    // each channel opens with the port number (2 bytes)
    const skip = Math.min(2 - (seen[ch] ?? 0), body.length);
    if (skip > 0) {
      seen[ch] = (seen[ch] ?? 0) + skip;
      body = body.subarray(skip);
    }
    if (ch === 0) duplex.push(body);
    else if (errorText.length < MAX_STATUS_BYTES) errorText += body.toString('utf8');
  });
  ws.once('close', () => {
    if (errorText !== '') duplex.destroy(new RuntimeError(errorText.trim()));
    else duplex.push(null);
  });
  ws.on('error', (err) => duplex.destroy(err));
  return duplex;
}
