// Go's strconv.Quote (what %q and strconv errors print), so that messages and files that quote a
// value are the reference's byte for byte: `"` and `\` escaped, \a \b \f \n \r \t \v, other
// control and non-printable runes as \xNN, \uNNNN or \UNNNNNNNN, printable Unicode as it is.
// (The apiserver's time package quotes its own way: see apiserver/schema/go-time.ts.)

const printable = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;
const shortEscapes: Readonly<Record<string, string>> = {
  '\x07': '\\a',
  '\b': '\\b',
  '\f': '\\f',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
  '\v': '\\v',
};

function hex(n: number, width: number): string {
  return n.toString(16).padStart(width, '0');
}

/** strconv.Quote. */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const cp = ch.codePointAt(0) ?? 0;
    if (ch === '"' || ch === '\\') out += `\\${ch}`;
    else if (printable.test(ch)) out += ch;
    else if (shortEscapes[ch] !== undefined) out += shortEscapes[ch];
    else if (cp < 0x80) out += `\\x${hex(cp, 2)}`;
    // A lone surrogate has no UTF-8 form; Go's string would hold the replacement rune there.
    else if (cp >= 0xd800 && cp <= 0xdfff) out += '\uFFFD';
    else if (cp < 0x10000) out += `\\u${hex(cp, 4)}`;
    else out += `\\U${hex(cp, 8)}`;
  }
  return `${out}"`;
}
