// The layout both programs' --help uses, pflag's FlagUsagesWrapped: each flag's left column
// (`  -v, --v int` or `      --name type`), its usage starting 3 columns after the widest left
// column and wrapped to the width; when that leaves under 24 columns, the usage goes on the next
// lines from column 16 instead. The width is the terminal's, or 80 when stdout is not a terminal.

/** One flag in a help listing. */
export interface FlagRow {
  /** Long name without dashes. */
  readonly name: string;
  /** One-letter shorthand without dash. */
  readonly short?: string | undefined;
  /** The value placeholder (`string`, `duration`), '' for a boolean. */
  readonly valueName: string;
  /** Help, default and markers; a newline starts a new line (e.g. a list of feature gates). */
  readonly usage: string;
}

/** Columns --help wraps to: the terminal's width, else 80. */
export function helpWidth(out: { isTTY?: boolean; columns?: number } = process.stdout): number {
  return out.isTTY === true && typeof out.columns === 'number' && out.columns > 0
    ? out.columns
    : 80;
}

/** Greedy word wrap of one paragraph to `width` columns; a word longer than that is cut. */
function wrapParagraph(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  const lead = /^ */.exec(text)?.[0] ?? '';
  for (let word of text.trimStart().split(/ +/)) {
    while (word.length > width) {
      if (line !== '') lines.push(line);
      lines.push(word.slice(0, width));
      word = word.slice(width);
      line = '';
    }
    if (line === '') line = lines.length === 0 ? lead + word : word;
    else if (line.length + 1 + word.length <= width) line = `${line} ${word}`;
    else {
      lines.push(line);
      line = word;
    }
  }
  if (line !== '' || lines.length === 0) lines.push(line);
  return lines;
}

/** `text` wrapped to `width` columns, every line after `indent`; newlines in it are kept. */
export function wrapText(text: string, width: number, indent = 0): string {
  const avail = Math.max(1, width - indent);
  const pad = ' '.repeat(indent);
  return text
    .split('\n')
    .flatMap((p) => wrapParagraph(p, avail))
    .map((l) => (l === '' ? '' : pad + l))
    .join('\n');
}

function leftColumn(r: FlagRow): string {
  const head = r.short === undefined ? `      --${r.name}` : `  -${r.short}, --${r.name}`;
  return r.valueName === '' ? head : `${head} ${r.valueName}`;
}

/** The rows as pflag lists them (in the order given), wrapped to `width`. */
export function flagUsages(rows: readonly FlagRow[], width: number): string {
  const lefts = rows.map(leftColumn);
  const column = Math.max(0, ...lefts.map((l) => l.length)) + 3;
  const below = width - column < 24;
  return rows
    .map((r, i) => {
      const left = lefts[i] ?? '';
      if (below) return `${left}\n${wrapText(r.usage, width, 16)}`;
      const body = wrapText(r.usage, width, column).slice(column);
      return `${left.padEnd(column)}${body}`;
    })
    .join('\n');
}
