// A strict reader of DER (the subset a PKCS#10 request uses): one element's tag and extent,
// the elements inside a constructed one, object identifiers, and the string types of names.
// Every read is bounded by its parent's extent; anything malformed throws DerError saying what
// and at which byte.

export class DerError extends Error {}

/** One element: its tag byte and where its header, contents and end are in the buffer. */
export interface Tlv {
  readonly tag: number;
  readonly start: number;
  readonly contentStart: number;
  readonly end: number;
}

function fail(what: string, at: number): never {
  throw new DerError(`${what} at byte ${at}`);
}

/** The element at `off`, which must end by `limit`. */
export function readTlv(buf: Uint8Array, off: number, limit: number = buf.length): Tlv {
  if (off + 2 > limit) fail('truncated element', off);
  const tag = buf[off] ?? 0;
  if ((tag & 0x1f) === 0x1f) fail('tag numbers above 30 are not used here', off);
  const first = buf[off + 1] ?? 0;
  let length = first;
  let header = 2;
  if (first >= 0x80) {
    const n = first & 0x7f;
    if (n === 0) fail('indefinite length (not DER)', off);
    if (n > 4) fail('length over 4 bytes', off);
    if (off + 2 + n > limit) fail('truncated length', off);
    length = 0;
    for (let i = 0; i < n; i++) length = length * 256 + (buf[off + 2 + i] ?? 0);
    if (length < 0x80 || (n > 1 && buf[off + 2] === 0))
      fail('length not in its shortest form', off);
    header = 2 + n;
  }
  const end = off + header + length;
  if (end > limit) fail('element longer than its container', off);
  return { tag, start: off, contentStart: off + header, end };
}

/** The elements inside a constructed element, in order. */
export function childrenOf(buf: Uint8Array, parent: Tlv): Tlv[] {
  if ((parent.tag & 0x20) === 0)
    fail('a primitive element where a constructed one belongs', parent.start);
  const out: Tlv[] = [];
  for (let off = parent.contentStart; off < parent.end;) {
    const t = readTlv(buf, off, parent.end);
    out.push(t);
    off = t.end;
  }
  return out;
}

/** The element's tag must be `tag`. */
export function expectTag(t: Tlv | undefined, tag: number, what: string, at: number): Tlv {
  if (t === undefined) fail(`${what} missing`, at);
  if (t.tag !== tag)
    fail(`${what}: tag 0x${t.tag.toString(16)} where 0x${tag.toString(16)} belongs`, t.start);
  return t;
}

/** The contents of an element. */
export function contentOf(buf: Uint8Array, t: Tlv): Buffer {
  return Buffer.from(buf.buffer, buf.byteOffset + t.contentStart, t.end - t.contentStart);
}

/** An OBJECT IDENTIFIER's dotted text. */
export function oidOf(buf: Uint8Array, t: Tlv): string {
  if (t.tag !== 0x06) fail('not an object identifier', t.start);
  const c = contentOf(buf, t);
  if (c.length === 0) fail('empty object identifier', t.start);
  const arcs: number[] = [];
  let v = 0;
  for (let i = 0; i < c.length; i++) {
    const b = c[i] ?? 0;
    if (v === 0 && b === 0x80) fail('object identifier arc not in its shortest form', t.start);
    v = v * 128 + (b & 0x7f);
    if (v > Number.MAX_SAFE_INTEGER / 128) fail('object identifier arc too large', t.start);
    if ((b & 0x80) === 0) {
      arcs.push(v);
      v = 0;
    } else if (i === c.length - 1) fail('object identifier ends inside an arc', t.start);
  }
  const [head = 0, ...rest] = arcs;
  const first = head < 40 ? 0 : head < 80 ? 1 : 2;
  return [first, head - first * 40, ...rest].join('.');
}

/** A UniversalString (UTF-32BE): every value a Unicode scalar value. */
function universalString(c: Buffer, at: number): string {
  if (c.length % 4 !== 0) fail('UniversalString not a multiple of 4 bytes', at);
  let out = '';
  for (let i = 0; i < c.length; i += 4) {
    const p = c.readUInt32BE(i);
    if (p > 0x10ffff || (p >= 0xd800 && p <= 0xdfff))
      fail('UniversalString with a value that is no character', at);
    out += String.fromCodePoint(p);
  }
  return out;
}

/** The text of a name's string value (UTF8, Printable, IA5, Teletex, Visible, BMP, Universal). */
export function stringOf(buf: Uint8Array, t: Tlv): string {
  const c = contentOf(buf, t);
  switch (t.tag) {
    case 0x0c:
      return c.toString('utf8');
    case 0x13:
    case 0x16:
    case 0x14:
    case 0x1a:
      return c.toString('latin1');
    case 0x1e:
      if (c.length % 2 !== 0) fail('BMPString of an odd length', t.start);
      return Buffer.from(c).swap16().toString('utf16le');
    case 0x1c:
      return universalString(c, t.start);
    default:
      fail(`tag 0x${t.tag.toString(16)} is not a string type`, t.start);
  }
}
