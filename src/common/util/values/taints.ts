// --register-with-taints: `key=value:Effect` or `key:Effect`, comma-separated, as the reference's
// taint parser reads them; the result is the config file's list of {key, value?, effect}.
import { invalidValue } from './error.js';
import { labelValueErrors, qualifiedNameErrors } from './labels.js';
import { isOneOf } from '../json-shape.js';

export interface Taint {
  readonly key: string;
  readonly value?: string;
  readonly effect: 'NoSchedule' | 'PreferNoSchedule' | 'NoExecute';
}

export const TAINT_EFFECTS = ['NoSchedule', 'PreferNoSchedule', 'NoExecute'] as const;
export const TAINTS_ACCEPTED =
  `comma-separated taints <key>=<value>:<effect> or <key>:<effect>, effect one of ` +
  TAINT_EFFECTS.join(', ');

function isEffect(e: string): e is Taint['effect'] {
  return isOneOf(TAINT_EFFECTS, e);
}

/** Parses one taint; throws FlagError (`invalid taint spec: ...`) naming `flag`. */
export function parseTaint(spec: string, flag?: string, whole = spec): Taint {
  const bad = (detail?: string): never => {
    throw invalidValue(
      whole,
      flag,
      `invalid taint spec: ${spec}${detail === undefined ? '' : `, ${detail}`}`,
      TAINTS_ACCEPTED,
    );
  };
  const parts = spec.split(':');
  if (parts.length !== 2) return bad(parts.length === 1 ? 'missing effect' : undefined);
  const effect = parts[1] ?? '';
  if (!isEffect(effect)) return bad(`invalid taint effect: ${effect}, unsupported taint effect`);
  const kv = (parts[0] ?? '').split('=');
  if (kv.length > 2) return bad();
  const key = kv[0] ?? '';
  const keyErrs = qualifiedNameErrors(key);
  if (keyErrs.length > 0) return bad(keyErrs.join('; '));
  if (kv.length === 2) {
    const value = kv[1] ?? '';
    const valueErrs = labelValueErrors(value);
    if (valueErrs.length > 0) return bad(valueErrs.join('; '));
    return { key, value, effect };
  }
  return { key, effect };
}

/** Parses a comma-separated taint list; "" is the empty list; a repeated key+effect is refused. */
export function parseTaints(s: string, flag?: string): Taint[] {
  if (s.trim() === '') return [];
  const out: Taint[] = [];
  const seen = new Set<string>();
  for (const spec of s.split(',')) {
    const t = parseTaint(spec, flag, s);
    const id = `${t.key}\u0000${t.effect}`;
    if (seen.has(id)) {
      throw invalidValue(
        s,
        flag,
        `invalid taint spec: ${spec}, duplicated taints with the same key and effect: ` +
          `${t.key}:${t.effect}`,
        TAINTS_ACCEPTED,
      );
    }
    seen.add(id);
    out.push(t);
  }
  return out;
}
