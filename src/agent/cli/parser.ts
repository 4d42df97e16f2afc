// The agent's command line: its flag table's value types over the pflag-style tokenizer both
// programs share (src/common/cli/parser.ts). This file is on the start-up path, so it imports only
// the flag table and the value parsers.
import { FlagError } from '../../common/util/errors.js';
import {
  isRecord,
  isStringList,
  listOf,
  recordOf,
  stringRecordOf,
} from '../../common/util/json-shape.js';
import { parseBool } from '../../common/util/values/bool.js';
import { parseInt32, parseInt64 } from '../../common/util/values/int.js';
import { normalizeDuration } from '../../common/util/values/duration.js';
import { normalizeQuantity } from '../../common/util/values/quantity.js';
import {
  mergeColonMultimap,
  parseColonMultimap,
  parseKeyValueMap,
  parseStrings,
} from '../../common/util/values/lists.js';
import { parseTaints } from '../../common/util/values/taints.js';
import {
  parseReservedMemory,
  type MemoryReservation,
} from '../../common/util/values/reserved-memory.js';
import { parseVModule } from '../../common/util/values/vmodule.js';
import { parseVersionValue } from '../../common/version.js';
import { parseFeatureGates } from './feature-gates.js';
import { FLAGS, flagByName, flagByShort } from './flags.js';
import { tokenize, type FlagTable } from '../../common/cli/parser.js';
import type { FlagSpec, FlagType, FlagValue, ParsedFlags } from './flag-spec.js';

/** Types that take no value when given bare (pflag's NoOptDefVal = "true"). */
const NO_VALUE_NEEDED: ReadonlySet<FlagType> = new Set<FlagType>([
  'bool',
  'help',
  'version',
  'seccompDefault',
]);

const PREFIX = 'failed to parse nodeagent flag: ';

/** Whether a flag of this type may be given bare (`--x`), taking the value "true". */
export function takesNoValue(spec: FlagSpec): boolean {
  return NO_VALUE_NEEDED.has(spec.type);
}

// What earlier occurrences of a repeatable flag set, read back from a FlagValue: always the flag's
// own type (parseFlagValue made it), so the guards below drop nothing.

function isBoolean(v: unknown): v is boolean {
  return typeof v === 'boolean';
}

/** The entries of an earlier occurrence's map whose values pass `ok`. */
function entriesOf<T>(prev: FlagValue | undefined, ok: (v: unknown) => v is T): Record<string, T> {
  return Object.fromEntries(
    Object.entries(recordOf(prev)).filter((e): e is [string, T] => ok(e[1])),
  );
}

/** An earlier --reserved-memory occurrence's list. */
function reservationsOf(prev: FlagValue | undefined): MemoryReservation[] {
  return listOf(prev).flatMap((r) =>
    isRecord(r) && typeof r['numaNode'] === 'number'
      ? [{ numaNode: r['numaNode'], limits: stringRecordOf(r['limits']) }]
      : [],
  );
}

/**
 * One occurrence of `spec` with text `raw`, combined with what earlier occurrences set (`prev`),
 * in the config-file representation. Throws FlagError (without the "failed to parse" prefix).
 */
export function parseFlagValue(
  spec: FlagSpec,
  raw: string,
  prev: FlagValue | undefined,
): FlagValue {
  const n = spec.name;
  switch (spec.type) {
    case 'string':
      return raw;
    case 'strings':
      // pflag StringSlice: the first occurrence replaces the default, later ones append.
      return [...(isStringList(prev) ? prev : []), ...parseStrings(raw, n)];
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
      return {
        ...stringRecordOf(prev),
        ...parseKeyValueMap(raw, n, spec.lessThanPairs === true),
      };
    case 'featureGates':
      return {
        ...entriesOf(prev, isBoolean),
        ...parseFeatureGates(raw, n),
      };
    case 'colonMultimap':
      return mergeColonMultimap(entriesOf(prev, isStringList), parseColonMultimap(raw, n));
    case 'taints':
      return parseTaints(raw, n);
    case 'reservedMemory':
      return parseReservedMemory(raw, n, reservationsOf(prev));
    case 'vmodule':
      return parseVModule(raw, n);
    case 'version':
      return parseVersionValue(raw, n);
  }
}

const AGENT_FLAGS: FlagTable<FlagSpec, FlagValue> = {
  byName: flagByName,
  byShort: flagByShort,
  takesNoValue,
  parseValue: parseFlagValue,
  names: () => FLAGS.map((f) => f.name),
};

/**
 * Parses the command line (without the program name). Throws FlagError with one line naming the
 * flag or argument on the first problem, as the reference does.
 */
export function parseArgs(argv: readonly string[]): ParsedFlags {
  const {
    values,
    order,
    positionals,
    bareBeforeFirstPositional: bareBefore,
  } = tokenize(argv, AGENT_FLAGS, { errorPrefix: PREFIX });
  const first = positionals[0];
  if (first !== undefined) {
    const hint =
      bareBefore === undefined
        ? 'nodeagent takes no arguments, only flags'
        : `nodeagent takes no arguments; a boolean flag takes its value after "=", as in ` +
          `${bareBefore}=${first}`;
    throw new FlagError(`unknown command ${JSON.stringify(first)} (${hint})`);
  }
  return { values, order };
}
