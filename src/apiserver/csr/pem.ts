// PEM decoding with the semantics the CSR rules need (Go's encoding/pem): blocks with their type,
// their headers and their DER bytes; text outside blocks is skipped.

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

const STRICT_B64_RE = /^[A-Za-z0-9+/]*={0,2}$/;

/**
 * Decodes a `[]byte` field of a JSON object (standard base64, as Go's encoding/json writes it).
 * Returns undefined for text that is not valid base64.
 */
export function decodeBase64Field(s: string): Buffer | undefined {
  if (s.length % 4 !== 0 || !STRICT_B64_RE.test(s)) return undefined;
  return Buffer.from(s, 'base64');
}
