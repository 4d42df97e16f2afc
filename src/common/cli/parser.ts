// The command-line tokenizer of both programs, with the reference's pflag semantics. Each program
// brings its flag table (lookup by long name and by one-letter shorthand, which flags may be given
// bare, how a value is parsed and combined with earlier occurrences); this file owns the syntax.
//
// Why our own rather than commander: pflag's rules cannot be expressed in commander cleanly. A
// boolean must accept `--x=false` yet leave `false` in `--x false` as a positional argument
// (commander's optional values would swallow it); a value flag must take the next word even when
// it starts with `-` (`--node-labels --x` gives the value "--x"); `_` in a name is read as `-`;
// repeated list and map flags accumulate the way each pflag value type does; `-v3`, `-v=3` and
// `-hv3` are shorthand forms; `--` ends the flags; and errors must be one line in pflag's words
// with no usage text or process exit. This file is on the start-up path: it imports only errors.
import { FlagError } from '../util/errors.js';
import { suggestFlag } from './suggest.js';

/** What the tokenizer needs to know about one flag. */
export interface TokenFlag {
  /** Long name without dashes. */
  readonly name: string;
}

/** A program's flag table, as the tokenizer sees it. */
export interface FlagTable<S extends TokenFlag, V> {
  /** The entry for a long name (`_` already read as `-`), or undefined. */
  byName(name: string): S | undefined;
  /** The entry for a one-letter shorthand, or undefined. */
  byShort(letter: string): S | undefined;
  /** Whether `--x` alone is allowed, meaning `--x=true` (pflag's NoOptDefVal). */
  takesNoValue(spec: S): boolean;
  /** One occurrence's text, combined with what earlier occurrences set. Throws FlagError. */
  parseValue(spec: S, raw: string, prev: V | undefined): V;
  /** Every long name, for "did you mean" suggestions. */
  names(): readonly string[];
}

export interface TokenizeOptions {
  /**
   * Put before every error message (the agent's "failed to parse nodeagent flag: "); default none.
   */
  readonly errorPrefix?: string;
}

/** The command line taken apart: values in the representation the table's parseValue gives. */
export interface CommandLine<V> {
  /** Flag name -> parsed value, for every flag that was given. */
  readonly values: ReadonlyMap<string, V>;
  /** Names in the order first seen on the command line. */
  readonly order: readonly string[];
  /** Arguments that are not flags, in order (everything after `--` included). */
  readonly positionals: readonly string[];
  /** The bare boolean flag right before the first positional, if any (`--x false`): for hints. */
  readonly bareBeforeFirstPositional?: string;
}

/**
 * Parses `argv` (without the program name) against `table`. Throws FlagError with one line naming
 * the flag on the first problem, in pflag's words: "unknown flag: --x", "flag needs an argument:
 * --x", "bad flag syntax: ---x", "unknown shorthand flag: 'q' in -q".
 */
export function tokenize<S extends TokenFlag, V>(
  argv: readonly string[],
  table: FlagTable<S, V>,
  o: TokenizeOptions = {},
): CommandLine<V> {
  const state = new Tokenizer(argv, table, o.errorPrefix ?? '');
  state.run();
  return {
    values: state.values,
    order: state.order,
    positionals: state.positionals,
    ...(state.bareBefore !== undefined ? { bareBeforeFirstPositional: state.bareBefore } : {}),
  };
}

class Tokenizer<S extends TokenFlag, V> {
  readonly values = new Map<string, V>();
  readonly order: string[] = [];
  readonly positionals: string[] = [];
  bareBefore: string | undefined;
  private lastBare: string | undefined;
  private i = 0;

  constructor(
    private readonly argv: readonly string[],
    private readonly table: FlagTable<S, V>,
    private readonly prefix: string,
  ) {}

  run(): void {
    for (let arg = this.argv[this.i]; arg !== undefined; arg = this.argv[this.i]) {
      this.i++;
      const prevBare = this.lastBare;
      this.lastBare = undefined;
      if (arg.length < 2 || !arg.startsWith('-')) {
        if (this.positionals.length === 0) this.bareBefore = prevBare;
        this.positionals.push(arg);
      } else if (arg === '--') {
        this.positionals.push(...this.argv.slice(this.i)); // `--` ends the flags
        return;
      } else if (arg[1] === '-') {
        this.long(arg);
      } else {
        this.shorthands(arg.slice(1));
      }
    }
  }

  private error(message: string, flag?: string): FlagError {
    return new FlagError(this.prefix + message, flag === undefined ? {} : { flag });
  }

  private set(spec: S, raw: string): void {
    let v: V;
    try {
      v = this.table.parseValue(spec, raw, this.values.get(spec.name));
    } catch (err) {
      if (err instanceof FlagError)
        throw new FlagError(this.prefix + err.message, { flag: spec.name, cause: err });
      throw err;
    }
    if (!this.values.has(spec.name)) this.order.push(spec.name);
    this.values.set(spec.name, v);
  }

  /** Sets `spec` from the next argument and takes it; false when there is none. */
  private setFromNext(spec: S): boolean {
    const next = this.argv[this.i];
    if (next === undefined) return false;
    this.i++;
    this.set(spec, next);
    return true;
  }

  private long(arg: string): void {
    const body = arg.slice(2);
    if (body.startsWith('-') || body.startsWith('=')) throw this.error(`bad flag syntax: ${arg}`);
    const eq = body.indexOf('=');
    const name = (eq < 0 ? body : body.slice(0, eq)).replace(/_/g, '-');
    const spec = this.table.byName(name);
    if (spec === undefined) throw this.unknown(eq < 0 ? body : body.slice(0, eq));
    if (eq >= 0) this.set(spec, body.slice(eq + 1));
    else if (this.table.takesNoValue(spec)) {
      this.set(spec, 'true');
      this.lastBare = arg;
    } else if (!this.setFromNext(spec))
      throw this.error(`flag needs an argument: ${arg}`, spec.name);
  }

  private unknown(name: string): FlagError {
    const suggestion = suggestFlag(name.replace(/_/g, '-'), this.table.names());
    const hint = suggestion === undefined ? '' : ` (did you mean --${suggestion}?)`;
    return this.error(`unknown flag: --${name}${hint}`, name);
  }

  /** Shorthands: -h, -v 3, -v3, -v=3, -hv3. */
  private shorthands(letters: string): void {
    let rest = letters;
    while (rest.length > 0) {
      const letter = rest.charAt(0);
      const spec = this.table.byShort(letter);
      if (spec === undefined)
        throw this.error(`unknown shorthand flag: '${letter}' in -${rest}`, letter);
      if (rest.length > 2 && rest[1] === '=') {
        this.set(spec, rest.slice(2));
        rest = '';
      } else if (this.table.takesNoValue(spec)) {
        this.set(spec, 'true');
        rest = rest.slice(1);
      } else if (rest.length > 1) {
        this.set(spec, rest.slice(1));
        rest = '';
      } else if (this.setFromNext(spec)) {
        rest = '';
      } else {
        throw this.error(`flag needs an argument: '${letter}' in -${rest}`, spec.name);
      }
    }
  }
}
