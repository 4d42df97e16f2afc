// A decoded YAML value as Go's %#v prints what go-yaml v2 decodes into interface{} (the reference's
// `yaml: invalid map key: %#v`): strings quoted as strconv.Quote, integers, floats as %v, bools,
// `interface {}(nil)`, `[]interface {}{...}` and `map[interface {}]interface {}{k:v, ...}` with
// the keys sorted, as fmt sorts them. The values are those the `yaml` library resolves (its YAML
// 1.2 core schema: `yes` stays a string, which go-yaml v2 reads as true), and a float written with
// an integral value (`1e6`) prints as an integer. The text is cut at `budget` characters.
import { goQuote } from '../common/util/go-quote.js';

const NIL = 'interface {}(nil)';

/** Go's %v of a float64: shortest digits, in %e form below 1e-4 and from 1e6 up. */
export function goFloat(n: number): string {
  if (Number.isNaN(n)) return 'NaN';
  if (!Number.isFinite(n)) return n > 0 ? '+Inf' : '-Inf';
  const [mant = '0', e = '0'] = n.toExponential().split('e');
  const exp = Number(e);
  if (exp >= -4 && exp < 6) return String(n);
  const abs = Math.abs(exp);
  return `${mant}e${exp < 0 ? '-' : '+'}${abs < 10 ? `0${abs}` : abs}`;
}

function scalar(v: unknown): string {
  if (v === null || v === undefined) return NIL;
  if (typeof v === 'string') return goQuote(v);
  if (typeof v === 'number')
    return Number.isInteger(v) && Math.abs(v) < 2 ** 63 ? v.toFixed(0) : goFloat(v);
  if (typeof v === 'bigint' || typeof v === 'boolean') return String(v);
  return goQuote(typeof v === 'symbol' ? v.toString() : Object.prototype.toString.call(v));
}

/** fmt's order of map keys of one type; keys of different types by type name first. */
function compareKeys(a: unknown, b: unknown): number {
  const ta = typeof a;
  const tb = typeof b;
  if (ta !== tb) return ta < tb ? -1 : 1;
  if (ta === 'number' || ta === 'bigint') return Number(a) - Number(b);
  const sa = scalar(a);
  const sb = scalar(b);
  return sa < sb ? -1 : sa > sb ? 1 : 0;
}

type Piece = string | { readonly value: unknown };

/** The %#v text of `value`, at most `budget` characters (then `...`), without recursion. */
export function goSharpV(value: unknown, budget = 500): string {
  let out = '';
  const stack: Piece[] = [{ value }];
  while (stack.length > 0 && out.length <= budget) {
    const piece = stack.pop();
    if (typeof piece === 'string') {
      out += piece;
      continue;
    }
    const v = piece?.value;
    const parts: Piece[] = [];
    if (Array.isArray(v)) {
      parts.push('[]interface {}{');
      v.forEach((item: unknown, i) => parts.push(...(i > 0 ? [', '] : []), { value: item }));
      parts.push('}');
    } else if (v instanceof Map) {
      parts.push('map[interface {}]interface {}{');
      [...v.keys()]
        .sort(compareKeys)
        .forEach((k: unknown, i) =>
          parts.push(...(i > 0 ? [', '] : []), { value: k }, ':', { value: v.get(k) }),
        );
      parts.push('}');
    } else {
      out += scalar(v);
      continue;
    }
    for (let i = parts.length - 1; i >= 0; i--) stack.push(parts[i] as Piece);
  }
  return out.length > budget || stack.length > 0 ? `${out.slice(0, budget)}...` : out;
}
