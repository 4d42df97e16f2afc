// The reference's text of a patched object that does not decode (its 422 quotes it): the JSON its
// patch library writes, and, for a strategic merge patch, the patch as Go's %v prints a decoded
// map.
//
// The JSON: the patch library holds the document as a tree of raw nodes and re-encodes with
// encoding/json, so an object the patch went into (or put in place) is written with its keys
// sorted, every other value as it was stored, and every string with Go's escaping (HTML
// characters and U+2028/U+2029 as \u escapes). `Touched` says which objects the patch went into.
import { goFloat } from '../go-sharp-v.js';

/** `all`: this value and everything in it is written sorted; a map: these children are touched. */
export type Touched = 'all' | Map<string, Touched>;

/** ObjectMeta's fields in the reference's order, for metadata the patch did not touch. */
const OBJECT_META_ORDER = [
  'name',
  'generateName',
  'namespace',
  'selfLink',
  'uid',
  'resourceVersion',
  'generation',
  'creationTimestamp',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
  'labels',
  'annotations',
  'ownerReferences',
  'finalizers',
  'managedFields',
];

const GO_JSON_ESCAPES: Readonly<Record<string, string>> = {
  '"': '\\"',
  '\\': '\\\\',
  '\b': '\\b',
  '\f': '\\f',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
  '<': '\\u003c',
  '>': '\\u003e',
  '&': '\\u0026',
  '\u2028': '\\u2028',
  '\u2029': '\\u2029',
};

/** encoding/json's string: the escapes above, other control characters as \u00XX. */
export function goJsonString(s: string): string {
  let out = '"';
  for (const ch of s) {
    const esc = GO_JSON_ESCAPES[ch];
    const cp = ch.codePointAt(0) ?? 0;
    if (esc !== undefined) out += esc;
    else if (cp < 0x20) out += `\\u${cp.toString(16).padStart(4, '0')}`;
    else if (cp >= 0xd800 && cp <= 0xdfff) out += '\\ufffd';
    else out += ch;
  }
  return `${out}"`;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function keysOf(v: Record<string, unknown>, sorted: boolean, isRootMeta: boolean): string[] {
  const keys = Object.keys(v);
  if (sorted) return keys.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  if (!isRootMeta) return keys;
  const rank = (k: string): number => {
    const i = OBJECT_META_ORDER.indexOf(k);
    return i < 0 ? OBJECT_META_ORDER.length : i;
  };
  return keys.sort((a, b) => rank(a) - rank(b));
}

function childTouch(t: Touched | undefined, key: string): Touched | undefined {
  if (t === 'all') return 'all';
  return t?.get(key);
}

/** The patch library's JSON of `value`; `touched` undefined means stored as it was. */
export function goPatchedJson(value: unknown, touched: Touched | undefined, path = ''): string {
  if (typeof value === 'string') return goJsonString(value);
  if (Array.isArray(value)) {
    const items = value.map((v, i) =>
      goPatchedJson(v, childTouch(touched, String(i)), `${path}/${i}`),
    );
    return `[${items.join(',')}]`;
  }
  if (isObject(value)) {
    const keys = keysOf(value, touched !== undefined, path === '/metadata');
    const parts = keys.map(
      (k) =>
        `${goJsonString(k)}:${goPatchedJson(value[k], childTouch(touched, k), `${path}/${k}`)}`,
    );
    return `{${parts.join(',')}}`;
  }
  // numbers, booleans and null (undefined cannot occur in a decoded document)
  return typeof value === 'number' || typeof value === 'boolean' ? String(value) : 'null';
}

/** The objects a JSON merge patch goes into: those it merges into, and every value it puts. */
export function mergePatchTouched(live: unknown, patch: Record<string, unknown>): Touched {
  const out = new Map<string, Touched>();
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) continue;
    const cur = isObject(live) ? live[k] : undefined;
    out.set(k, isObject(v) && isObject(cur) ? mergePatchTouched(cur, v) : 'all');
  }
  return out;
}

/** The containers a JSON patch's operations walk through (their `path` and `from`). */
export function jsonPatchTouched(ops: unknown): Touched {
  const root = new Map<string, Touched>();
  if (!Array.isArray(ops)) return root;
  for (const op of ops) {
    if (!isObject(op)) continue;
    for (const p of [op['path'], op['from']]) if (typeof p === 'string') touchPath(root, p);
  }
  return root;
}

function touchPath(root: Map<string, Touched>, pointer: string): void {
  const tokens = pointer
    .split('/')
    .slice(1)
    .map((t) => t.replaceAll('~1', '/').replaceAll('~0', '~'));
  let node = root;
  for (const token of tokens.slice(0, -1)) {
    const next = node.get(token);
    if (next === 'all') return;
    const child = next ?? new Map<string, Touched>();
    node.set(token, child);
    node = child;
  }
}

/** Go's %v of what encoding/json decodes a patch into (map[string]interface{}, ints kept). */
export function goPrintDecoded(value: unknown): string {
  if (value === null || value === undefined) return '<nil>';
  if (typeof value === 'string') return value;
  if (typeof value === 'number')
    return Number.isInteger(value) && Math.abs(value) < 2 ** 63 ? value.toFixed(0) : goFloat(value);
  if (Array.isArray(value)) return `[${value.map(goPrintDecoded).join(' ')}]`;
  if (isObject(value)) {
    const keys = keysOf(value, true, false);
    return `map[${keys.map((k) => `${k}:${goPrintDecoded(value[k])}`).join(' ')}]`;
  }
  return typeof value === 'boolean' ? String(value) : '<nil>';
}
