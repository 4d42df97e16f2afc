// How the reference reads a plain (unquoted, untagged) YAML scalar: go-yaml v2's resolve (YAML 1.1
// forms: y/yes/on/off/n/no bools, ~ and Null, 0644 octal, 0x/0o/0b, underscores in numbers, no
// sexagesimal; a timestamp stays its text), and how sigs.k8s.io/yaml's YAMLToJSON then turns a key
// into a JSON object key (strconv.Itoa for an int, FormatFloat(f, 'g', -1, 32) for a float).

export type GoScalar =
  | { readonly kind: 'null'; readonly value: null }
  | { readonly kind: 'bool'; readonly value: boolean }
  | { readonly kind: 'int'; readonly value: bigint }
  /** A value over int64 that fits uint64 (go-yaml's uint64: refused as a map key). */
  | { readonly kind: 'uint'; readonly value: bigint }
  | { readonly kind: 'float'; readonly value: number }
  | { readonly kind: 'str'; readonly value: string };

const BOOL_TRUE = new Set([
  'y',
  'Y',
  'yes',
  'Yes',
  'YES',
  'true',
  'True',
  'TRUE',
  'on',
  'On',
  'ON',
]);
const BOOL_FALSE = new Set([
  'n',
  'N',
  'no',
  'No',
  'NO',
  'false',
  'False',
  'FALSE',
  'off',
  'Off',
  'OFF',
]);
const NULLS = new Set(['', '~', 'null', 'Null', 'NULL']);
const SPECIAL_FLOATS = new Map<string, number>([
  ...['.nan', '.NaN', '.NAN'].map((s) => [s, NaN] as const),
  ...['.inf', '.Inf', '.INF', '+.inf', '+.Inf', '+.INF'].map((s) => [s, Infinity] as const),
  ...['-.inf', '-.Inf', '-.INF'].map((s) => [s, -Infinity] as const),
]);
/** go-yaml's yamlStyleFloat. */
const YAML_STYLE_FLOAT = /^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/;
/** Go's strconv.ParseInt/ParseUint syntax for base 0 (after go-yaml removed the underscores). */
const GO_INT = /^([-+]?)(0[xX][0-9a-fA-F]+|0[oO][0-7]+|0[bB][01]+|0[0-7]*|[1-9][0-9]*)$/;
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const UINT64_MAX = 2n ** 64n - 1n;

/** The first characters for which go-yaml tries anything but a string. */
const GO_RESOLVABLE_FIRST = /^(?:$|[-+0-9yYnNtTfFoO~.])/;

/**
 * Every plain scalar go-yaml v2 may read as other than a string (and a few it reads as strings,
 * such as timestamps or numbers out of range): a writer quotes a string that matches.
 */
export const GO_MAYBE_NOT_STRING = new RegExp(
  String.raw`^(?:~|null|Null|NULL|[yYnN]|yes|Yes|YES|no|No|NO|true|True|TRUE|false|False|FALSE|` +
    String.raw`on|On|ON|off|Off|OFF|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN)|` +
    String.raw`\.[0-9]+(?:[eE][-+]?[0-9]+)?|[-+0-9][-+0-9a-fA-FxXoO_.]*)?$`,
);

function goInt(plain: string): GoScalar | undefined {
  const m = GO_INT.exec(plain);
  if (m === null) return undefined;
  const sign = m[1] ?? '';
  const body = m[2] ?? '0';
  const octal = body.length > 1 && body.startsWith('0') && /[0-7]/.test(body[1] ?? '');
  const n = BigInt(octal ? `0o${body.slice(1)}` : body) * (sign === '-' ? -1n : 1n);
  if (n >= INT64_MIN && n <= INT64_MAX) return { kind: 'int', value: n };
  if (sign === '' && n <= UINT64_MAX) return { kind: 'uint', value: n };
  return undefined;
}

/** Go's ParseFloat: a value out of a double's range is an error (the scalar stays a string). */
function goFloat(text: string): GoScalar | undefined {
  const f = Number(text);
  return Number.isFinite(f) ? { kind: 'float', value: f } : undefined;
}

/** go-yaml v2's resolve for an untagged plain scalar. */
export function goResolvePlain(text: string): GoScalar {
  if (!GO_RESOLVABLE_FIRST.test(text)) return { kind: 'str', value: text };
  if (NULLS.has(text)) return { kind: 'null', value: null };
  if (BOOL_TRUE.has(text)) return { kind: 'bool', value: true };
  if (BOOL_FALSE.has(text)) return { kind: 'bool', value: false };
  const special = SPECIAL_FLOATS.get(text);
  if (special !== undefined) return { kind: 'float', value: special };
  const first = text[0] ?? '';
  if (first === '.')
    return (
      (/^\.[0-9]+([eE][-+]?[0-9]+)?$/.test(text) ? goFloat(text) : undefined) ?? {
        kind: 'str',
        value: text,
      }
    );
  if (!/[-+0-9]/.test(first)) return { kind: 'str', value: text };
  // A timestamp (YYYY-...) is left as its text when decoded into interface{}: it is no int or
  // float.
  const plain = text.replace(/_/g, '');
  const found = goInt(plain) ?? (YAML_STYLE_FLOAT.test(plain) ? goFloat(plain) : undefined);
  return found ?? { kind: 'str', value: text };
}

/**
 * The JavaScript value of a resolved scalar (a 64-bit int as the nearest double, as JSON.parse
 * reads it).
 */
export function goScalarValue(s: GoScalar): unknown {
  return s.kind === 'int' || s.kind === 'uint' ? Number(s.value) : s.value;
}

/**
 * Go's strconv.FormatFloat(f, 'g', -1, 32): the shortest float32 digits, %e from exponent 6 (or
 * below -4).
 */
export function formatFloat32G(f: number): string {
  if (Number.isNaN(f)) return '.nan';
  const x = Math.fround(f);
  if (x === Infinity) return '.inf';
  if (x === -Infinity) return '-.inf';
  if (x === 0) return Object.is(x, -0) ? '-0' : '0';
  let p = 1;
  while (p < 9 && Math.fround(Number(x.toPrecision(p))) !== x) p++;
  const [mant = '0', expText = '0'] = Math.abs(x)
    .toExponential(p - 1)
    .split('e');
  const digits = mant.replace('.', '').replace(/0+$/, '') || '0';
  const exp = Number(expText);
  const sign = x < 0 ? '-' : '';
  if (exp < -4 || exp >= 6) {
    const m = digits.length > 1 ? `${digits[0] ?? ''}.${digits.slice(1)}` : digits;
    const e = Math.abs(exp);
    return `${sign}${m}e${exp < 0 ? '-' : '+'}${e < 10 ? `0${e}` : String(e)}`;
  }
  if (exp < 0) return `${sign}0.${'0'.repeat(-exp - 1)}${digits}`;
  const whole = digits.slice(0, exp + 1).padEnd(exp + 1, '0');
  const frac = digits.slice(exp + 1);
  return `${sign}${whole}${frac === '' ? '' : `.${frac}`}`;
}

/**
 * sigs.k8s.io/yaml's JSON key for a resolved key; undefined for a key it refuses (null, uint64).
 */
export function goKeyString(s: GoScalar): string | undefined {
  switch (s.kind) {
    case 'str':
      return s.value;
    case 'bool':
      return s.value ? 'true' : 'false';
    case 'int':
      return s.value.toString();
    case 'float':
      return formatFloat32G(s.value);
    default:
      return undefined;
  }
}
