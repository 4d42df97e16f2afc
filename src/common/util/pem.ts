// PEM, one way for both programs, with Go's encoding/pem semantics (what the reference's CSR rules
// and certificate loaders see): blocks with their type, their headers and their DER bytes; text
// outside blocks and malformed blocks are skipped.

export interface PemBlock {
  readonly type: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly bytes: Buffer;
}

const BLOCK_RE = /-----BEGIN ([^\r\n-]*)-----\r?\n([\s\S]*?)-----END \1-----/g;
const B64_RE = /^[A-Za-z0-9+/]*={0,2}$/;

/** Every well-formed PEM block of `text`, in order (malformed ones are skipped, as Go does). */
export function decodePemBlocks(text: string): PemBlock[] {
  const out: PemBlock[] = [];
  for (const m of text.matchAll(BLOCK_RE)) {
    const type = m[1] ?? '';
    const lines = (m[2] ?? '').split(/\r?\n/);
    const headers: Record<string, string> = {};
    let i = 0;
    // Headers ("Key: Value" lines) come first and end at a blank line.
    if (lines[0]?.includes(':') === true) {
      for (; i < lines.length; i++) {
        const line = lines[i] ?? '';
        if (line.trim() === '') {
          i++;
          break;
        }
        const idx = line.indexOf(':');
        if (idx < 0) break;
        headers[line.slice(0, idx).trim()] = line.slice(idx + 1).trim();
      }
    }
    const b64 = lines.slice(i).join('').replace(/[ \t]/g, '');
    if (b64.length % 4 !== 0 || !B64_RE.test(b64)) continue;
    out.push({ type, headers, bytes: Buffer.from(b64, 'base64') });
  }
  return out;
}

/** The first PEM block of `text`, if any. */
export function firstPemBlock(text: string): PemBlock | undefined {
  return decodePemBlocks(text)[0];
}

export function encodePem(type: string, der: Uint8Array): string {
  const b64 = Buffer.from(der).toString('base64');
  const lines = b64.match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${type}-----\n${lines.join('\n')}\n-----END ${type}-----\n`;
}

/**
 * Each block of `type` in `text`, re-encoded as its own PEM (for loaders that take one PEM at a
 * time).
 */
export function pemBlocksOfType(text: string, type: string): string[] {
  return decodePemBlocks(text)
    .filter((b) => b.type === type)
    .map((b) => encodePem(b.type, b.bytes));
}
