// Go's base64.StdEncoding.Decode as encoding/json runs it on a []byte field: the error it gives
// (`illegal base64 data at input byte N`, N a byte offset) for text that is not padded base64;
// newlines are skipped, as Go skips them.

/** 1 for the bytes of the standard alphabet, by byte value (a table: this runs per byte). */
const ALPHABET = new Uint8Array(256);
for (const c of 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/')
  ALPHABET[c.charCodeAt(0)] = 1;

function illegal(at: number): string {
  return `illegal base64 data at input byte ${at}`;
}

function skipNewlines(b: Buffer, i: number): number {
  let j = i;
  while (j < b.length && (b[j] === 0x0a || b[j] === 0x0d)) j++;
  return j;
}

/**
 * After `=` at quantum position j (si is past it): the error, or undefined when the text ends well.
 */
function afterPadding(b: Buffer, si: number, j: number): string | undefined {
  if (j < 2) return illegal(si - 1);
  let i = si;
  if (j === 2) {
    i = skipNewlines(b, i);
    if (i === b.length) return illegal(b.length);
    if (b[i] !== 0x3d) return illegal(i - 1);
    i++;
  }
  i = skipNewlines(b, i);
  return i < b.length ? illegal(i) : undefined;
}

/** Undefined when Go decodes `text`, else its error. */
export function goBase64Error(text: string): string | undefined {
  const b = Buffer.from(text, 'utf8');
  let si = 0;
  for (;;) {
    for (let j = 0; j < 4; j++) {
      if (si === b.length) return j === 0 ? undefined : illegal(si - j);
      const c = b[si] ?? 0;
      si++;
      if (ALPHABET[c] === 1) continue;
      if (c === 0x0a || c === 0x0d) {
        j--;
        continue;
      }
      if (c !== 0x3d) return illegal(si - 1);
      return afterPadding(b, si, j);
    }
  }
}
