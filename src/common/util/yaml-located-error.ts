// A YAML text that parses but that the reference's reader refuses (a collection key, a null key, a
// .inf value ...): the source, the line and column, and what is wrong and accepted (`detail`).
// A reader that names its file itself says `located` after the file's name, so the file is named
// once; everything else shows the message, which names the source first.
import { InputSyntaxError } from './errors.js';

export interface LocatedYamlErrorOptions {
  readonly source: string;
  readonly line: number;
  readonly col: number;
  /** What is wrong and what is accepted, without the source and place. */
  readonly detail: string;
}

export class LocatedYamlError extends InputSyntaxError {
  readonly line: number;
  readonly col: number;
  readonly detail: string;
  /** The message without the source: `line L, column C: <detail>`. */
  readonly located: string;
  constructor(o: LocatedYamlErrorOptions) {
    const located = `line ${o.line}, column ${o.col}: ${o.detail}`;
    super(`${o.source}: ${located}`, { source: o.source });
    this.line = o.line;
    this.col = o.col;
    this.detail = o.detail;
    this.located = located;
  }
}
