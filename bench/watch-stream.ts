// One watch read straight off its TLS socket, for the watch benchmark's readers: the request is
// written by hand and the answer's head and chunked body are decoded here, so a watcher costs its
// reader one socket read and a scan per event, not Node's HTTP client and its streams. The arrival
// time is taken when the socket's bytes arrive, before any decoding, so the time the reader
// spends on the other watchers of the same write is not counted against the server.

import { isIP } from 'node:net';
import { connect, type TLSSocket } from 'node:tls';

export interface WatchStreamOptions {
  readonly url: string;
  readonly ca?: string;
  readonly cert?: string;
  readonly key?: string;
  readonly token?: string;
  readonly servername?: string;
}

const CRLF2 = Buffer.from('\r\n\r\n');

/** Decodes a chunked HTTP body into lines; each line is given the arrival time of its last byte. */
class ChunkedLines {
  /** What the next bytes are: a chunk's size line, its data, or the CRLF after the data. */
  private phase: 'size' | 'data' | 'crlf' = 'size';
  /** Bytes of the current chunk's data still to come. */
  private left = 0;
  private sizeLine = '';
  private line: Buffer[] = [];

  constructor(private readonly onLine: (line: string, at: number) => void) {}

  push(b: Buffer, at: number): void {
    let i = 0;
    while (i < b.length) {
      if (this.phase === 'size') i = this.readSize(b, i);
      else if (this.phase === 'data') i = this.readData(b, i, at);
      else i = this.skipCrlf(b, i);
    }
  }

  private readSize(b: Buffer, i: number): number {
    const end = b.indexOf(0x0a, i);
    this.sizeLine += b.toString('latin1', i, end < 0 ? b.length : end);
    if (end < 0) return b.length;
    const size = Number.parseInt(this.sizeLine.trim(), 16);
    if (!Number.isFinite(size)) throw new Error(`bad chunk size line ${this.sizeLine}`);
    this.sizeLine = '';
    this.left = size;
    this.phase = size > 0 ? 'data' : 'crlf';
    return end + 1;
  }

  private readData(b: Buffer, i: number, at: number): number {
    const end = Math.min(b.length, i + this.left);
    let from = i;
    for (let nl = b.indexOf(0x0a, from); nl >= 0 && nl < end; nl = b.indexOf(0x0a, from)) {
      this.line.push(b.subarray(from, nl));
      this.onLine(Buffer.concat(this.line).toString('utf8'), at);
      this.line = [];
      from = nl + 1;
    }
    if (from < end) this.line.push(Buffer.from(b.subarray(from, end)));
    this.left -= end - i;
    if (this.left === 0) this.phase = 'crlf';
    return end;
  }

  /** The CRLF after a chunk's data: skipped byte by byte, as it may be split across reads. */
  private skipCrlf(b: Buffer, i: number): number {
    if (b[i] === 0x0a) this.phase = 'size';
    return i + 1;
  }
}

function requestText(u: URL, token: string | undefined): string {
  const auth = token === undefined ? '' : `Authorization: Bearer ${token}\r\n`;
  return `GET ${u.pathname}${u.search} HTTP/1.1\r\nHost: ${u.host}\r\nAccept: application/json\r\n${auth}\r\n`;
}

/** Checks the status line and headers; throws unless they open a chunked 200 answer. */
function checkHead(text: string): void {
  if (!/^HTTP\/1\.1 200 /.test(text)) throw new Error(`watch: ${text.split('\r\n')[0] ?? ''}`);
  if (!/\r\ntransfer-encoding: *chunked/i.test(text))
    throw new Error('watch: the answer is not chunked');
}

/** Opens the watch; resolves once the server answered 200. Lines then go to onLine. */
export function openWatchStream(
  o: WatchStreamOptions,
  onLine: (line: string, at: number) => void,
  now: () => number,
): Promise<TLSSocket> {
  const u = new URL(o.url);
  const servername = o.servername ?? (isIP(u.hostname) ? undefined : u.hostname);
  const socket = connect({
    host: u.hostname,
    port: Number(u.port || 443),
    ...(o.ca === undefined ? {} : { ca: o.ca }),
    ...(o.cert === undefined ? {} : { cert: o.cert }),
    ...(o.key === undefined ? {} : { key: o.key }),
    ...(servername === undefined ? {} : { servername }),
  });
  socket.setNoDelay(true);
  socket.write(requestText(u, o.token));
  const body = new ChunkedLines(onLine);
  return new Promise((resolve, reject) => {
    let head: Buffer | undefined = Buffer.alloc(0);
    socket.on('data', (b: Buffer) => {
      const at = now();
      if (head === undefined) return body.push(b, at);
      head = Buffer.concat([head, b]);
      const end = head.indexOf(CRLF2);
      if (end < 0) return;
      const rest = head.subarray(end + 4);
      try {
        checkHead(head.toString('latin1', 0, end));
      } catch (err) {
        socket.destroy();
        return reject(err as Error);
      }
      head = undefined;
      resolve(socket);
      body.push(rest, at);
    });
    socket.on('error', reject);
  });
}
