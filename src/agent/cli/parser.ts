// The command-line parser, with the reference's pflag semantics.
//
// Why a small tokenizer of our own rather than commander: pflag's rules cannot be expressed in
// commander cleanly. A boolean must accept `--x=false` yet leave `false` in `--x false` as a
// positional argument (commander's optional values would swallow it); a value flag must take the
// next word even when it starts with `-` (`--node-labels --x` gives the value "--x"); `_` in a
// name is read as `-`; repeated list and map flags accumulate the way each pflag value type does;
// `-v3`, `-v=3` and `-hv3` are shorthand forms; and errors must be one line in pflag's words with
// no usage text or process exit. This file is on the start-up path, so it imports only the flag
// table and the value parsers.
import { FlagError } from '../../common/util/errors.js';
import { parseBool } from '../../common/util/values/bool.js';
import { parseInt32, parseInt64 } from '../../common/util/values/int.js';
import { normalizeDuration } from '../../common/util/values/duration.js';
import { normalizeQuantity } from '../../common/util/values/quantity.js';
import { mergeColonMultimap, parseColonMultimap, parseKeyValueMap, parseStrings } from '../../common/util/values/lists.js';
import { parseTaints } from '../../common/util/values/taints.js';
import { parseReservedMemory, type MemoryReservation } from '../../common/util/values/reserved-memory.js';
import { parseVModule } from '../../common/util/values/vmodule.js';
import { invalidValue } from '../../common/util/values/error.js';
import { parseFeatureGates } from './feature-gates.js';
import { FLAGS, flagByName, flagByShort } from './flags.js';
import { suggestFlag } from './suggest.js';
import type { FlagSpec, FlagType, FlagValue, ParsedFlags } from './flag-spec.js';

/** Types that take no value when given bare (pflag's NoOptDefVal = "true"). */
const NO_VALUE_NEEDED: ReadonlySet<FlagType> = new Set<FlagType>(['bool', 'help', 'version', 'seccompDefault']);

const SEMVER = /^v(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$/;
export const VERSION_ACCEPTED = 'true, false, raw, or a version vX.Y.Z[-pre][+build] to report';

const PREFIX = 'failed to parse nodeagent flag: ';

/** Whether a flag of this type may be given bare (`--x`), taking the value "true". */
export function takesNoValue(spec: FlagSpec): boolean {
  return NO_VALUE_NEEDED.has(spec.type);
}

/**
 * One occurrence of `spec` with text `raw`, combined with what earlier occurrences set (`prev`),
 * in the config-file representation. Throws FlagError (without the "failed to parse" prefix).
 */
export function parseFlagValue(spec: FlagSpec, raw: string, prev: FlagValue | undefined): FlagValue {
  const n = spec.name;
  switch (spec.type) {
    case 'string':
      return raw;
    case 'strings':
      // pflag StringSlice: the first occurrence replaces the default, later ones append.
      return [...(Array.isArray(prev) ? (prev as readonly string[]) : []), ...parseStrings(raw, n)];
    case 'bool':
    case 'help':
    case 'seccompDefault':
      return parseBool(raw, n);
    case 'int32':
      return parseInt32(raw, n);
    case 'int':
      return parseInt64(raw, n);
    case 'duration':
      return normalizeDuration(raw, n);
    case 'quantity':
      return normalizeQuantity(raw, n);
    case 'mapStringString':
      return { ...(prev as Readonly<Record<string, string>> | undefined), ...parseKeyValueMap(raw, n, spec.lessThanPairs === true) };
    case 'featureGates':
      return { ...(prev as Readonly<Record<string, boolean>> | undefined), ...parseFeatureGates(raw, n) };
    case 'colonMultimap':
      return mergeColonMultimap((prev as Readonly<Record<string, readonly string[]>> | undefined) ?? {}, parseColonMultimap(raw, n));
    case 'taints':
      return parseTaints(raw, n);
    case 'reservedMemory':
      return parseReservedMemory(raw, n, (prev as readonly MemoryReservation[] | undefined) ?? []);
    case 'vmodule':
      return parseVModule(raw, n);
    case 'version':
      if (raw === 'raw') return 'raw';
      if (raw.startsWith('v')) {
        if (!SEMVER.test(raw)) throw invalidValue(raw, n, `version string ${JSON.stringify(raw)} is not a valid semantic version`, VERSION_ACCEPTED);
        return raw;
      }
      try {
        return parseBool(raw, n) ? 'true' : 'false';
      } catch {
        throw invalidValue(raw, n, `strconv.ParseBool: parsing ${JSON.stringify(raw)}: invalid syntax`, VERSION_ACCEPTED);
      }
  }
}

function unknownFlag(name: string): FlagError {
  const suggestion = suggestFlag(name.replace(/_/g, '-'), FLAGS.map((f) => f.name));
  const hint = suggestion === undefined ? '' : ` (did you mean --${suggestion}?)`;
  return new FlagError(`${PREFIX}unknown flag: --${name}${hint}`, { flag: name });
}

/**
 * Parses the command line (without the program name). Throws FlagError with one line naming the
 * flag or argument on the first problem, as the reference does.
 */
export function parseArgs(argv: readonly string[]): ParsedFlags {
  const values = new Map<string, FlagValue>();
  const order: string[] = [];
  const positionals: string[] = [];
  /** For the first positional: the bare boolean flag right before it, if any (`--x false`). */
  let bareBefore: string | undefined;
  let lastBare: string | undefined;
  const set = (spec: FlagSpec, raw: string): void => {
    let v: FlagValue;
    try {
      v = parseFlagValue(spec, raw, values.get(spec.name));
    } catch (err) {
      if (err instanceof FlagError) throw new FlagError(PREFIX + err.message, { flag: spec.name, cause: err });
      throw err;
    }
    if (!values.has(spec.name)) order.push(spec.name);
    values.set(spec.name, v);
  };

  let i = 0;
  while (i < argv.length) {
    const arg = argv[i++] as string;
    const prevBare = lastBare;
    lastBare = undefined;
    if (arg.length < 2 || arg[0] !== '-') {
      if (positionals.length === 0) bareBefore = prevBare;
      positionals.push(arg);
      continue;
    }
    if (arg[1] === '-') {
      if (arg.length === 2) {
        positionals.push(...argv.slice(i)); // `--` ends the flags
        break;
      }
      const body = arg.slice(2);
      if (body[0] === '-' || body[0] === '=') throw new FlagError(`${PREFIX}bad flag syntax: ${arg}`);
      const eq = body.indexOf('=');
      const name = eq < 0 ? body : body.slice(0, eq);
      const spec = flagByName(name);
      if (spec === undefined) throw unknownFlag(name);
      if (eq >= 0) set(spec, body.slice(eq + 1));
      else if (takesNoValue(spec)) {
        set(spec, 'true');
        lastBare = arg;
      } else if (i < argv.length) set(spec, argv[i++] as string);
      else throw new FlagError(`${PREFIX}flag needs an argument: ${arg}`, { flag: spec.name });
      continue;
    }
    // Shorthands: -h, -v 3, -v3, -v=3, -hv3.
    let rest = arg.slice(1);
    while (rest.length > 0) {
      const letter = rest[0] as string;
      const spec = flagByShort(letter);
      if (spec === undefined) throw new FlagError(`${PREFIX}unknown shorthand flag: '${letter}' in -${rest}`, { flag: letter });
      if (rest.length > 2 && rest[1] === '=') {
        set(spec, rest.slice(2));
        rest = '';
      } else if (takesNoValue(spec)) {
        set(spec, 'true');
        rest = rest.slice(1);
      } else if (rest.length > 1) {
        set(spec, rest.slice(1));
        rest = '';
      } else if (i < argv.length) {
        set(spec, argv[i++] as string);
        rest = '';
      } else {
        throw new FlagError(`${PREFIX}flag needs an argument: '${letter}' in -${rest}`, { flag: spec.name });
      }
    }
  }
  const first = positionals[0];
  if (first !== undefined) {
    const hint = bareBefore === undefined
      ? 'nodeagent takes no arguments, only flags'
      : `nodeagent takes no arguments; a boolean flag takes its value after "=", as in ${bareBefore}=${first}`;
    throw new FlagError(`unknown command ${JSON.stringify(first)} (${hint})`);
  }
  return { values, order };
}
