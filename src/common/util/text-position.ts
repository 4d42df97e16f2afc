// Line and column (both from 1) of a character offset in a text, for messages that say where.

export interface TextPosition {
  readonly line: number;
  readonly col: number;
}

export function lineCol(text: string, offset: number): TextPosition {
  let line = 1;
  let start = 0;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) {
    line++;
    start = i + 1;
  }
  return { line, col: offset - start + 1 };
}
