// A composed YAML document as the reference reads it: sigs.k8s.io/yaml's YAMLToJSON (go-yaml v2
// into interface{}, then JSON). Plain scalars resolve as go-yaml v2 resolves them
// (go-yaml-resolve.ts); keys become JSON keys as YAMLToJSON converts them; a null or uint64 key
// and a value .inf/.nan (no JSON form) are refused, as there; a plain `<<` key merges a mapping
// (or a sequence of mappings) in place, overriding the keys before it, as go-yaml v2 merges;
// aliases are expanded within maxAliases. Values are built without prototypes' setters (a key
// `__proto__` is an own property, as JSON.parse makes it).

import { Scalar, isAlias, isMap, isNode, isScalar, isSeq, type Document, type Pair } from 'yaml';
import { limitError, type BoundedInput } from './bounded-input.js';
import { goKeyString, goResolvePlain, goScalarValue, type GoScalar } from './go-yaml-resolve.js';
import { lineCol } from './text-position.js';
import { SCALAR_KEY_ACCEPTED } from './yaml-collection-key.js';
import { LocatedYamlError, type LocatedYamlErrorOptions } from './yaml-located-error.js';

/**
 * What the reference refuses in a document it parsed, in its words (`reference`) and ours
 * (`detail`).
 */
export class GoYamlValueError extends LocatedYamlError {
  /**
   * sigs.k8s.io/yaml's error (`json: unsupported value: +Inf`; for a key, its text up to the key:
   * the `, value: %+#v` that follows there is left out).
   */
  readonly reference: string;
  constructor(o: LocatedYamlErrorOptions & { reference: string }) {
    super(o);
    this.reference = o.reference;
  }
}

/** The `yaml` library's words for an alias bomb, which our messages have always used. */
const ALIAS_BOMB = 'Excessive alias count indicates a resource exhaustion attack';
const MERGE_ACCEPTED = 'map merge requires map or sequence of maps as the value';

interface Ctx {
  readonly doc: Document.Parsed;
  readonly input: BoundedInput;
  readonly text: string;
  aliases: number;
  /** Deferred refusals made so far: with none, the built value needs no second walk. */
  deferred: number;
}

/** Where a node starts in the text (0 for what is not a node). */
function offsetOf(node: unknown): number {
  return isNode(node) ? (node.range?.[0] ?? 0) : 0;
}

function fail(ctx: Ctx, node: unknown, detail: string, reference: string): never {
  const { line, col } = lineCol(ctx.text, offsetOf(node));
  throw new GoYamlValueError({ source: ctx.input.source, line, col, detail, reference });
}

/** The node an alias names (counted against maxAliases), or the node itself. */
function deref(node: unknown, ctx: Ctx): unknown {
  if (!isAlias(node)) return node;
  if (++ctx.aliases > ctx.input.limits.maxAliases)
    throw limitError(ctx.input, 'maxAliases', ctx.text, ctx.doc.range[0], [], ALIAS_BOMB);
  const target = node.resolve(ctx.doc);
  if (target === undefined)
    fail(
      ctx,
      node,
      `the alias *${node.source} names no anchor before it; accepted: an alias of an ` +
        `anchor (&${node.source}) defined earlier in the document`,
      `yaml: unknown anchor '${node.source}' referenced`,
    );
  return target;
}

/**
 * How go-yaml resolved a scalar node: plain scalars by go-yaml v2's rules, quoted and block scalars
 * as strings.
 */
function scalarOf(node: Scalar): GoScalar {
  const plain = node.type === Scalar.PLAIN || node.type === undefined;
  if (typeof node.source !== 'string') return valueOf(node);
  if (plain && node.tag === undefined) return goResolvePlain(node.source);
  const want = node.tag === undefined ? undefined : TAGGED.get(node.tag);
  if (want === undefined) return valueOf(node);
  const r = goResolvePlain(node.source);
  if (want === r.kind || (want === 'int' && r.kind === 'uint')) return r;
  if (want === 'float' && r.kind === 'int') return { kind: 'float', value: Number(r.value) };
  return { kind: 'str', value: node.source };
}

/**
 * Explicit tags that go-yaml v2 resolves as its plain scalars (a mismatch is left to the library's
 * reading).
 */
const TAGGED = new Map<string, GoScalar['kind']>([
  ['tag:yaml.org,2002:int', 'int'],
  ['tag:yaml.org,2002:float', 'float'],
  ['tag:yaml.org,2002:bool', 'bool'],
  ['tag:yaml.org,2002:null', 'null'],
]);

function valueOf(node: Scalar): GoScalar {
  const v: unknown = node.value;
  if (v === null) return { kind: 'null', value: null };
  if (typeof v === 'boolean') return { kind: 'bool', value: v };
  if (typeof v === 'number')
    return Number.isInteger(v) ? { kind: 'int', value: BigInt(v) } : { kind: 'float', value: v };
  return { kind: 'str', value: typeof v === 'string' ? v : node.toString() };
}

function isMergeKey(key: unknown): boolean {
  return isScalar(key) && key.type === Scalar.PLAIN && key.source === '<<';
}

function setOwn(out: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
}

function keyOf(pair: Pair, ctx: Ctx): string {
  const node = deref(pair.key, ctx);
  if (!isScalar(node))
    fail(ctx, pair.key, `invalid map key: ${SCALAR_KEY_ACCEPTED}`, 'invalid map key');
  const s = scalarOf(node);
  const key = goKeyString(s);
  if (key !== undefined) return key;
  const what = s.kind === 'null' ? 'null' : `${s.value} (over int64)`;
  ctx.deferred++;
  throw new Deferred(
    pair.key,
    `a mapping key that is ${what} has no JSON form; ${SCALAR_KEY_ACCEPTED}`,
    s.kind === 'null'
      ? 'Unsupported map key of type: %!s(<nil>), key: <nil>'
      : `Unsupported map key of type: uint64, key: 0x${s.value.toString(16)}`,
  );
}

function mergeInto(out: Record<string, unknown>, value: unknown, ctx: Ctx, depth: number): void {
  const target = deref(value, ctx);
  if (isMap(target)) {
    fillMap(out, target.items, ctx, depth);
    return;
  }
  if (!isSeq(target)) fail(ctx, value, MERGE_ACCEPTED, MERGE_ACCEPTED);
  for (let i = target.items.length - 1; i >= 0; i--) {
    const m = deref(target.items[i], ctx);
    if (!isMap(m)) fail(ctx, target.items[i], MERGE_ACCEPTED, MERGE_ACCEPTED);
    fillMap(out, m.items, ctx, depth);
  }
}

function fillMap(
  out: Record<string, unknown>,
  pairs: readonly Pair[],
  ctx: Ctx,
  depth: number,
): void {
  for (const pair of pairs) {
    if (isMergeKey(pair.key)) mergeInto(out, pair.value, ctx, depth);
    else setOwn(out, keyOf(pair, ctx), convert(pair.value, ctx, depth + 1));
  }
}

function convert(node: unknown, ctx: Ctx, depth: number): unknown {
  if (depth > ctx.input.limits.maxDepth + 1)
    throw limitError(ctx.input, 'maxDepth', ctx.text, offsetOf(node));
  const n = deref(node, ctx);
  if (n === null || n === undefined) return null;
  if (isMap(n)) {
    const out: Record<string, unknown> = {};
    try {
      fillMap(out, n.items, ctx, depth);
    } catch (e) {
      if (e instanceof Deferred) return e;
      throw e;
    }
    return out;
  }
  if (isSeq(n)) return n.items.map((item) => convert(item, ctx, depth + 1));
  if (!isScalar(n)) return null;
  const s = scalarOf(n);
  if (s.kind === 'float' && !Number.isFinite(s.value)) {
    const shown = Number.isNaN(s.value) ? 'NaN' : s.value > 0 ? '+Inf' : '-Inf';
    ctx.deferred++;
    return new Deferred(
      node,
      `${n.source ?? shown} is not a JSON number; accepted: a finite number, or a quoted string`,
      `json: unsupported value: ${shown}`,
    );
  }
  return goScalarValue(s);
}

/**
 * What has no JSON form (a .inf or .nan value, a mapping with a null or uint64 key): refused only
 * if it is still in the value once merges and later keys have overridden, as the reference
 * converts and marshals the decoded value.
 */
class Deferred extends Error {
  constructor(
    readonly node: unknown,
    readonly detail: string,
    readonly reference: string,
  ) {
    super(detail);
  }
}

function refuseDeferred(value: unknown, ctx: Ctx): void {
  const stack: unknown[] = [value];
  for (let v = stack.pop(); v !== undefined; v = stack.pop()) {
    if (v instanceof Deferred) fail(ctx, v.node, v.detail, v.reference);
    if (v !== null && typeof v === 'object') for (const x of Object.values(v)) stack.push(x);
  }
}

/**
 * The value of `doc` as sigs.k8s.io/yaml's YAMLToJSON gives it (throws GoYamlValueError or
 * InputLimitError).
 */
export function goYamlValue(doc: Document.Parsed, input: BoundedInput, text: string): unknown {
  const ctx: Ctx = { doc, input, text, aliases: 0, deferred: 0 };
  const yaml = doc.directives.yaml;
  if (yaml.explicit === true && yaml.version !== '1.1') {
    fail(
      ctx,
      undefined,
      `a %YAML ${yaml.version} directive: accepted: %YAML 1.1, or no %YAML directive`,
      'yaml: found incompatible YAML document',
    );
  }
  const value = convert(doc.contents, ctx, 0);
  if (ctx.deferred > 0) refuseDeferred(value, ctx);
  return value;
}
