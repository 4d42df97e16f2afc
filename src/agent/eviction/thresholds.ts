// Eviction thresholds: --eviction-hard, --eviction-soft, --eviction-soft-grace-period and
// --eviction-minimum-reclaim, as maps of signal to value (`memory.available` → `100Mi`,
// `nodefs.available` → `10%`). Every problem is reported at once, naming the flag.

import { ConfigError } from '../../common/util/errors.js';
import { parseDurationMs } from '../../common/util/values/duration.js';
import { parseQuantity } from '../../common/util/values/quantity.js';
import { EVICTION_SIGNALS } from '../config/validate-resources.js';

/** The signals the configuration accepts (one list, owned by the config validation). */
export type Signal = (typeof EVICTION_SIGNALS)[number];

/** An amount: absolute (bytes, inodes, pids) or a percentage of capacity. */
export type ThresholdValue = { readonly quantity: number } | { readonly percentage: number };

export interface Threshold {
  readonly signal: Signal;
  readonly value: ThresholdValue;
  readonly hard: boolean;
  /** Soft thresholds only: how long the threshold must hold before evicting. */
  readonly gracePeriodMs: number;
  readonly minReclaim?: ThresholdValue;
}

export interface EvictionSettings {
  evictionHard?: Readonly<Record<string, string>>;
  evictionSoft?: Readonly<Record<string, string>>;
  evictionSoftGracePeriod?: Readonly<Record<string, string>>;
  evictionMinimumReclaim?: Readonly<Record<string, string>>;
}

function isSignal(s: string): s is Signal {
  return EVICTION_SIGNALS.some((known) => known === s);
}

/** Strips a leading `<` that some spellings keep (`memory.available` → `<100Mi`). */
function stripOperator(v: string): string {
  return v.startsWith('<') ? v.slice(1) : v;
}

export function parseThresholdValue(
  raw: string,
  where: string,
  problems: string[],
): ThresholdValue | undefined {
  const v = stripOperator(raw.trim());
  if (v.endsWith('%')) {
    const n = Number(v.slice(0, -1));
    if (v.length === 1 || !Number.isFinite(n) || n < 0 || n > 100) {
      problems.push(
        `${where}: invalid percentage "${raw}" (accepted: a number from 0 to 100 followed by %)`,
      );
      return undefined;
    }
    // the reference keeps a percentage as a float32 (ParseFloat(.., 32), then / 100 in float32)
    return { percentage: Math.fround(Math.fround(n) / 100) };
  }
  try {
    const q = parseQuantity(v);
    if (q.value < 0) {
      problems.push(`${where}: "${raw}" must not be negative`);
      return undefined;
    }
    return { quantity: q.value };
  } catch {
    problems.push(
      `${where}: invalid quantity "${raw}" (accepted: a quantity such as 100Mi or a ` +
        `percentage such as 10%)`,
    );
    return undefined;
  }
}

function knownSignal(sig: string, flag: string, problems: string[]): sig is Signal {
  if (isSignal(sig)) return true;
  problems.push(
    `${flag}: unknown eviction signal "${sig}" (accepted: ${EVICTION_SIGNALS.join(', ')})`,
  );
  return false;
}

/** --eviction-minimum-reclaim, by signal. */
function minimumReclaims(s: EvictionSettings, problems: string[]): Map<Signal, ThresholdValue> {
  const minReclaim = new Map<Signal, ThresholdValue>();
  for (const [sig, raw] of Object.entries(s.evictionMinimumReclaim ?? {})) {
    if (!knownSignal(sig, '--eviction-minimum-reclaim', problems)) continue;
    const v = parseThresholdValue(raw, `--eviction-minimum-reclaim ${sig}`, problems);
    if (v !== undefined) minReclaim.set(sig, v);
  }
  return minReclaim;
}

/** --eviction-soft-grace-period, by signal, in ms. */
function gracePeriods(s: EvictionSettings, problems: string[]): Map<Signal, number> {
  const grace = new Map<Signal, number>();
  for (const [sig, raw] of Object.entries(s.evictionSoftGracePeriod ?? {})) {
    if (!knownSignal(sig, '--eviction-soft-grace-period', problems)) continue;
    try {
      const ms = parseDurationMs(raw);
      if (ms < 0)
        problems.push(
          `--eviction-soft-grace-period ${sig}: grace period must not be negative, got "${raw}"`,
        );
      else grace.set(sig, ms);
    } catch {
      problems.push(
        `--eviction-soft-grace-period ${sig}: invalid duration "${raw}" (accepted: a ` +
          `duration such as 30s or 1m30s)`,
      );
    }
  }
  return grace;
}

/** The hard thresholds, then the soft ones, each with its grace period and minimum reclaim. */
function thresholdsOf(
  s: EvictionSettings,
  by: { minReclaim: Map<Signal, ThresholdValue>; grace: Map<Signal, number> },
  problems: string[],
): Threshold[] {
  const out: Threshold[] = [];
  for (const [hard, map, flag] of [
    [true, s.evictionHard, '--eviction-hard'],
    [false, s.evictionSoft, '--eviction-soft'],
  ] as const) {
    for (const [sig, raw] of Object.entries(map ?? {})) {
      if (!knownSignal(sig, flag, problems)) continue;
      const value = parseThresholdValue(raw, `${flag} ${sig}`, problems);
      if (value === undefined) continue;
      // The reference ignores a hard threshold of 0 or 0% (it disables that signal).
      if (hard && ('quantity' in value ? value.quantity === 0 : value.percentage === 0)) continue;
      const g = by.grace.get(sig);
      if (!hard && g === undefined) {
        problems.push(
          `--eviction-soft ${sig}: a soft threshold needs a grace period in ` +
            `--eviction-soft-grace-period`,
        );
        continue;
      }
      const mr = by.minReclaim.get(sig);
      out.push({
        signal: sig,
        value,
        hard,
        gracePeriodMs: hard ? 0 : (g ?? 0),
        ...(mr !== undefined ? { minReclaim: mr } : {}),
      });
    }
  }
  return out;
}

/** Parses and cross-checks the four settings; throws one ConfigError listing every problem. */
export function parseThresholds(s: EvictionSettings): Threshold[] {
  const problems: string[] = [];
  const minReclaim = minimumReclaims(s, problems);
  const grace = gracePeriods(s, problems);
  const out = thresholdsOf(s, { minReclaim, grace }, problems);
  for (const sig of grace.keys()) {
    if (s.evictionSoft?.[sig] === undefined)
      problems.push(
        `--eviction-soft-grace-period ${sig}: no soft threshold for this signal in --eviction-soft`,
      );
  }
  if (problems.length > 0)
    throw new ConfigError(`invalid eviction thresholds: ${problems.join('; ')}`, { problems });
  return out;
}

/** The threshold's amount for a given capacity: a percentage's, truncated as the reference's. */
export function thresholdAmount(v: ThresholdValue, capacity: number): number {
  return 'quantity' in v ? v.quantity : Math.trunc(v.percentage * capacity);
}
