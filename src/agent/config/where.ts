// How a config problem names its place: `config file "<path>" line L, column C`.

export interface Position {
  line: number;
  col: number;
}

export function where(file: string, pos: Position | undefined): string {
  return pos === undefined
    ? `config file "${file}"`
    : `config file "${file}" line ${pos.line}, column ${pos.col}`;
}
