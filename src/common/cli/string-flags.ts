// A flag table whose values are kept as given (the text of the last occurrence; lists and maps
// accumulate, as pflag's StringSlice and mapStringBool do), for commands that check their values
// after parsing: plat-apiserver and its `token` subcommands. Same syntax as every command line of
// ours (parser.ts).
import { tokenize, type FlagTable, type TokenizeOptions } from './parser.js';

export interface StringFlagDef {
  /** Long name without dashes. */
  readonly name: string;
  /** One-letter shorthand without dash (`v`, `h`). */
  readonly short?: string;
  /** A boolean: `--x` alone means `--x=true`. */
  readonly bool?: boolean;
  /** Repeated occurrences append, comma-joined (a list or a map), instead of replacing. */
  readonly accumulates?: boolean;
  /** The value when the flag is not given. */
  readonly def?: string;
}

export interface StringFlags {
  /** The text given for `name`, or undefined when the flag was not on the command line. */
  given(name: string): string | undefined;
  /** The text given for `name`, else its default, else "". */
  value(name: string): string;
  /** Arguments that are not flags, in order. */
  readonly positionals: readonly string[];
}

export function stringFlagTable(defs: readonly StringFlagDef[]): FlagTable<StringFlagDef, string> {
  const byName = new Map(defs.map((d) => [d.name, d]));
  const byShort = new Map(
    defs.flatMap((d) => (d.short === undefined ? [] : [[d.short, d] as const])),
  );
  return {
    byName: (name) => byName.get(name),
    byShort: (letter) => byShort.get(letter),
    takesNoValue: (d) => d.bool === true,
    parseValue: (d, raw, prev) =>
      d.accumulates === true && prev !== undefined ? `${prev},${raw}` : raw,
    names: () => defs.map((d) => d.name),
  };
}

/** Parses `argv` against `defs`; throws FlagError in pflag's words (parser.ts). */
export function parseStringFlags(
  argv: readonly string[],
  defs: readonly StringFlagDef[],
  o: TokenizeOptions = {},
): StringFlags {
  const parsed = tokenize(argv, stringFlagTable(defs), o);
  const defaults = new Map(defs.map((d) => [d.name, d.def ?? '']));
  return {
    given: (name) => parsed.values.get(name),
    value: (name) => parsed.values.get(name) ?? defaults.get(name) ?? '',
    positionals: parsed.positionals,
  };
}

/** Go's %q of a []string, as cobra quotes unexpected arguments: ["a" "b"]. */
export function goQuotedList(list: readonly string[]): string {
  return `[${list.map((s) => JSON.stringify(s)).join(' ')}]`;
}
