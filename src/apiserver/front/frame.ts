// The first bytes a TLS front sends on each inner connection, before any of the client's: a
// 4-byte big-endian length, then that many bytes of JSON naming the run's secret and the client
// (address, port, the certificate's facts). The main process reads it, checks it and answers one
// byte (ACK) before the front relays anything, so the header never shares a read with the client's
// bytes. Anything malformed, oversized or with the wrong secret closes the inner connection.

import { timingSafeEqual } from 'node:crypto';
import { isRecord } from '../../common/util/json-shape.js';
import type { PeerCertificateFacts, PeerFacts } from './peer.js';

/** The byte the main process answers once the header is accepted. */
export const ACK = 0x06;

/** The largest header accepted, in bytes of JSON. */
export const MAX_FRAME_BYTES = 64 * 1024;

const MAX_NAMES = 64;
const MAX_NAME_CHARS = 4096;

/** The header of one inner connection. */
export function encodeFrame(secret: string, peer: PeerFacts): Buffer {
  const c = peer.certificate;
  const json = JSON.stringify({
    secret,
    address: peer.remoteAddress,
    port: peer.remotePort,
    cert:
      c === undefined
        ? null
        : {
            authorized: c.authorized,
            error: c.authorizationError,
            cn: c.commonNames,
            o: c.organizations,
            sha256: c.sha256,
          },
  });
  const body = Buffer.from(json, 'utf8');
  if (body.length > MAX_FRAME_BYTES)
    throw new Error(
      `the client's certificate facts take ${body.length} bytes (at most ${MAX_FRAME_BYTES})`,
    );
  const head = Buffer.alloc(4);
  head.writeUInt32BE(body.length, 0);
  return Buffer.concat([head, body]);
}

export class FrameError extends Error {}

function fail(what: string): never {
  throw new FrameError(`inner connection header: ${what}`);
}

function names(v: unknown, field: string): string[] {
  if (!Array.isArray(v) || v.length > MAX_NAMES)
    fail(`${field}: not a list of at most ${MAX_NAMES}`);
  return v.map((x) =>
    typeof x === 'string' && x.length <= MAX_NAME_CHARS
      ? x
      : fail(`${field}: an entry that is not a string of at most ${MAX_NAME_CHARS} characters`),
  );
}

function text(v: unknown, field: string, max: number): string {
  return typeof v === 'string' && v.length <= max
    ? v
    : fail(`${field}: not a string of at most ${max} characters`);
}

function certificateOf(c: unknown): PeerCertificateFacts | undefined {
  if (c === null) return undefined;
  if (!isRecord(c)) fail('cert: not an object or null');
  if (typeof c['authorized'] !== 'boolean') fail('cert.authorized: not a boolean');
  const sha256 = text(c['sha256'], 'cert.sha256', 64);
  if (!/^(?:[0-9a-f]{64})?$/.test(sha256)) fail('cert.sha256: not 64 lower-case hex digits');
  return {
    authorized: c['authorized'],
    authorizationError: text(c['error'], 'cert.error', MAX_NAME_CHARS),
    commonNames: names(c['cn'], 'cert.cn'),
    organizations: names(c['o'], 'cert.o'),
    sha256,
  };
}

function sameSecret(got: string, want: string): boolean {
  const a = Buffer.from(got);
  const b = Buffer.from(want);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The client's facts from a header's JSON, checked against the run's secret. */
export function decodeFrameBody(body: Buffer, secret: string): PeerFacts {
  let o: unknown;
  try {
    o = JSON.parse(body.toString('utf8'));
  } catch {
    fail('not JSON');
  }
  if (!isRecord(o)) fail('not a JSON object');
  if (typeof o['secret'] !== 'string' || !sameSecret(o['secret'], secret)) fail('wrong secret');
  const port = o['port'];
  if (typeof port !== 'number' || !Number.isInteger(port) || port < 0 || port > 65535)
    fail('port: not an integer from 0 to 65535');
  const certificate = certificateOf(o['cert']);
  return {
    remoteAddress: text(o['address'], 'address', 64),
    remotePort: port,
    ...(certificate === undefined ? {} : { certificate }),
  };
}

/** Collects a header from the chunks of an inner connection. */
export class FrameReader {
  private chunks: Buffer[] = [];
  private have = 0;

  /** The header's JSON once complete; undefined while more is needed. */
  push(chunk: Buffer): Buffer | undefined {
    this.chunks.push(chunk);
    this.have += chunk.length;
    if (this.have < 4) return undefined;
    const all = Buffer.concat(this.chunks);
    this.chunks = [all];
    const len = all.readUInt32BE(0);
    if (len > MAX_FRAME_BYTES) fail(`${len} bytes announced (at most ${MAX_FRAME_BYTES})`);
    if (all.length < 4 + len) return undefined;
    if (all.length > 4 + len) fail('bytes after the header before it was acknowledged');
    return all.subarray(4);
  }
}
