// Go's strconv.Quote, which the reference's downward API uses for label and annotation values
// (`key="value"` lines): a double-quoted string with \a \b \f \n \r \t \v \\ \" escaped, other
// control characters, invalid UTF-8 and non-printable runes as \xNN, \uNNNN or \UNNNNNNNN, and
// printable Unicode kept as it is.
const SHORT: Readonly<Record<string, string>> = {
  '\x07': '\\a',
  '\b': '\\b',
  '\f': '\\f',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
  '\v': '\\v',
  '\\': '\\\\',
  '"': '\\"',
};

/** Go's unicode.IsPrint, approximated with Unicode classes: letters, marks, numbers, punctuation, symbols, and the ASCII space. */
const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;

function hex(n: number, width: number): string {
  return n.toString(16).padStart(width, '0');
}

export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const short = SHORT[ch];
    if (short !== undefined) {
      out += short;
      continue;
    }
    const cp = ch.codePointAt(0) ?? 0;
    if (PRINTABLE.test(ch)) out += ch;
    else if (cp < 0x80) out += `\\x${hex(cp, 2)}`;
    else if (cp >= 0xd800 && cp <= 0xdfff) out += '\uFFFD';
    else if (cp < 0x10000) out += `\\u${hex(cp, 4)}`;
    else out += `\\U${hex(cp, 8)}`;
  }
  return `${out}"`;
}
