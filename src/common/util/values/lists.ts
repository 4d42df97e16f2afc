// The list and map value types of the reference's flags: pflag's StringSlice (one CSV record),
// cliflag's MapStringString and MapStringBool (`k=v,k2=v2`), and ColonSeparatedMultimapStringString
// (`name:value,...`, repeatable). Each parser handles one occurrence; the command-line parser
// combines repeated occurrences the way the reference does (see `merge*` below).
import { goBool, BOOL_ACCEPTED } from './bool.js';
import { invalidValue, quote } from './error.js';

export const STRINGS_ACCEPTED =
  'a comma-separated list of values (CSV: a value containing a comma is written in double quotes)';
export const MAP_ACCEPTED = 'comma-separated key=value pairs, such as a=1,b=2';
export const BOOL_MAP_ACCEPTED =
  'comma-separated key=bool pairs, such as A=true,B=false ' + `(bool: ${BOOL_ACCEPTED})`;
export const MULTIMAP_ACCEPTED =
  'comma-separated name:value pairs, such as Accept:text/plain,X-Token:abc';

/** pflag's StringSlice: one CSV record (Go encoding/csv rules); "" is the empty list. */
export function parseStrings(s: string, flag?: string): string[] {
  if (s === '') return [];
  const out: string[] = [];
  let i = 0;
  for (;;) {
    let field = '';
    if (s[i] === '"') {
      i++;
      for (;;) {
        const q = s.indexOf('"', i);
        if (q < 0)
          throw invalidValue(
            s,
            flag,
            `parse error: extraneous or missing " in quoted-field`,
            STRINGS_ACCEPTED,
          );
        field += s.slice(i, q);
        i = q + 1;
        if (s[i] === '"') {
          field += '"';
          i++;
          continue;
        }
        break;
      }
      if (i < s.length && s[i] !== ',')
        throw invalidValue(
          s,
          flag,
          `parse error: extraneous or missing " in quoted-field`,
          STRINGS_ACCEPTED,
        );
    } else {
      const c = s.indexOf(',', i);
      field = c < 0 ? s.slice(i) : s.slice(i, c);
      if (field.includes('"'))
        throw invalidValue(s, flag, `parse error: bare " in non-quoted-field`, STRINGS_ACCEPTED);
      i = c < 0 ? s.length : c;
    }
    out.push(field);
    if (i >= s.length) return out;
    i++; // the comma
    if (i === s.length) {
      out.push('');
      return out;
    }
  }
}

function pairs(s: string): string[] {
  return s
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p !== '');
}

export const THRESHOLD_MAP_ACCEPTED =
  'comma-separated signal<quantity or signal=quantity pairs, such as ' +
  'memory.available<100Mi,nodefs.available<10%';

/**
 * cliflag MapStringString for one occurrence: `k=v` pairs, trimmed, later keys win. With
 * `lessThan`, the reference's LangleSeparatedMapStringString form `k<v` is accepted too (the
 * first `<` or `=` separates), as eviction thresholds are written.
 */
export function parseKeyValueMap(
  s: string,
  flag?: string,
  lessThan = false,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const p of pairs(s)) {
    const eq = lessThan ? p.search(/[<=]/) : p.indexOf('=');
    if (eq < 0) {
      throw lessThan
        ? invalidValue(
            s,
            flag,
            `malformed pair ${quote(p)}, expect string<string`,
            THRESHOLD_MAP_ACCEPTED,
          )
        : invalidValue(s, flag, `malformed pair ${quote(p)}, expect string=string`, MAP_ACCEPTED);
    }
    setOwn(out, p.slice(0, eq).trim(), p.slice(eq + 1).trim());
  }
  return out;
}

/**
 * Sets `key` as an own property of `out`, whatever the key: a plain assignment to `__proto__`
 * would set the prototype (or do nothing) instead of keeping the user's key.
 */
function setOwn<T>(out: Record<string, T>, key: string, value: T): void {
  Object.defineProperty(out, key, { value, writable: true, enumerable: true, configurable: true });
}

/** `out`'s own value for `key`: never one inherited from Object.prototype (`toString`...). */
function ownValue<T>(out: Record<string, T>, key: string): T | undefined {
  return Object.hasOwn(out, key) ? out[key] : undefined;
}

/** cliflag MapStringBool for one occurrence: `k=bool` pairs in Go ParseBool forms. */
export function parseBoolMap(s: string, flag?: string): Record<string, boolean> {
  const out: Record<string, boolean> = {};
  for (const p of pairs(s)) {
    const eq = p.indexOf('=');
    if (eq < 0) throw invalidValue(s, flag, `missing bool value for ${p}`, BOOL_MAP_ACCEPTED);
    const k = p.slice(0, eq).trim();
    const v = p.slice(eq + 1).trim();
    const b = goBool(v);
    if (b === undefined)
      throw invalidValue(
        s,
        flag,
        `invalid value of ${k}: ${v}, err: strconv.ParseBool: parsing ${quote(v)}: invalid syntax`,
        BOOL_MAP_ACCEPTED,
      );
    setOwn(out, k, b);
  }
  return out;
}

/** ColonSeparatedMultimapStringString for one occurrence: `name:value` pairs, values in order. */
export function parseColonMultimap(s: string, flag?: string): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const p of pairs(s)) {
    const c = p.indexOf(':');
    if (c < 0)
      throw invalidValue(
        s,
        flag,
        `malformed pair ${quote(p)}, expect string:string`,
        MULTIMAP_ACCEPTED,
      );
    const k = p.slice(0, c).trim();
    if (k === '')
      throw invalidValue(s, flag, `malformed pair ${quote(p)}, empty name`, MULTIMAP_ACCEPTED);
    const v = p.slice(c + 1).trim();
    const list = ownValue(out, k);
    if (list === undefined) setOwn(out, k, [v]);
    else list.push(v);
  }
  return out;
}

/** A repeated multimap flag: same-name values appended in command-line order. */
export function mergeColonMultimap(
  a: Readonly<Record<string, readonly string[]>>,
  b: Readonly<Record<string, readonly string[]>>,
): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [k, v] of Object.entries(a)) setOwn(out, k, [...v]);
  for (const [k, v] of Object.entries(b)) setOwn(out, k, [...(ownValue(out, k) ?? []), ...v]);
  return out;
}
