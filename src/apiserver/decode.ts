// Decoding request bodies (JSON, or YAML for `application/yaml` and `application/apply-patch+yaml`)
// into plain objects, with what fieldValidation needs: every unknown field (against the kind's
// known-field tree) and every duplicate key, as dotted paths (`spec.foo`,
// `status.conditions[0].x`). The last of duplicate keys wins, as in the reference. Malformed
// bodies, a wrong kind or apiVersion, and values of the wrong JSON type throw DecodeError (400
// BadRequest).

import { isMap, isScalar, isSeq } from 'yaml';
import { isRecord } from '../common/util/json-shape.js';
import { InputLimitError, InputSyntaxError } from '../common/util/errors.js';
import { CollectionKeyError, SCALAR_KEY_ACCEPTED } from '../common/util/yaml-collection-key.js';
import { GoYamlValueError } from '../common/util/go-yaml-value.js';
import type { LocatedYamlError } from '../common/util/yaml-located-error.js';
import {
  limitText,
  parseJsonBody as parseJsonBounded,
  parseYamlBody,
  yamlBodyToJs,
} from './body-limits.js';
import { goSharpV } from './go-sharp-v.js';
import { schemaForKind } from './schema/kinds.js';
import { goTypeName, type Schema } from './schema/types.js';
import { fitsInt, timeLeaf } from './schema/values.js';
import { goBase64Error } from './schema/go-base64.js';
import { converterBase64Error, converterMismatch } from './schema/converter-error.js';

export class DecodeError extends Error {
  readonly status = 400;
  readonly reason = 'BadRequest';
  /** Set when the body passed one of its parse limits (API_BODY_LIMITS). */
  readonly limit: InputLimitError | undefined;
  /**
   * Set when sigs.k8s.io/yaml refuses the body in the reference: its error
   * (`error converting YAML to JSON: ...`), which each verb wraps its own way.
   */
  readonly yamlConversion: string | undefined;
  constructor(message: string, limit?: InputLimitError, yamlConversion?: string) {
    super(message);
    this.name = 'DecodeError';
    this.limit = limit;
    this.yamlConversion = yamlConversion;
  }
}

/** A body over a parse limit, as the reference words it when creating a `kind`. */
function limitDecodeError(
  body: string,
  e: InputLimitError,
  yaml: boolean,
  kind: string,
): DecodeError {
  const text = limitText(body, e, yaml);
  if (e.limit !== 'maxDepth') return new DecodeError(text, e);
  const inner = yaml ? text : `couldn't get version/kind; json parse error: ${text}`;
  return new DecodeError(
    `the object provided is unrecognized (must be of type ${kind}): ${inner}`,
    e,
  );
}

/**
 * A mapping key that is a collection, in the reference's words (go-yaml v2: `yaml: invalid map
 * key: %#v`, under sigs.k8s.io/yaml's `error converting YAML to JSON: `), followed by where it is
 * and what is accepted; a create wraps it as the reference's transformDecodeError does.
 */
function collectionKeyDecodeError(e: CollectionKeyError, kind: string): DecodeError {
  return conversionDecodeError(
    `yaml: invalid map key: ${goSharpV(e.key)}`,
    e,
    SCALAR_KEY_ACCEPTED,
    kind,
  );
}

/**
 * What sigs.k8s.io/yaml refuses after go-yaml decoded the body (a null or uint64 key, a .inf or
 * .nan value), in its words, then where and what is accepted; wrapped as a collection key is.
 */
function goYamlValueDecodeError(e: GoYamlValueError, kind: string): DecodeError {
  return conversionDecodeError(e.reference, e, e.detail, kind);
}

/**
 * sigs.k8s.io/yaml's `error converting YAML to JSON: <reference>`, then where and `what`; wrapped
 * as a create wraps it.
 */
function conversionDecodeError(
  reference: string,
  at: LocatedYamlError,
  what: string,
  kind: string,
): DecodeError {
  const conversion =
    `error converting YAML to JSON: ${reference} (request body line ${at.line}, column ` +
    `${at.col}: ${what})`;
  return new DecodeError(
    `the object provided is unrecognized (must be of type ${kind}): ${conversion}`,
    undefined,
    conversion,
  );
}

export interface DecodeOptions {
  readonly body: string;
  readonly contentType: string;
  /** The kind the endpoint expects (fills a missing `kind`; another kind is an error). */
  readonly kind: string;
  /** The apiVersion the endpoint expects; '' accepts any. */
  readonly apiVersion: string;
  /**
   * Server-side apply: the body's apiVersion and kind must be the endpoint's exactly (none is
   * filled in), as the reference's versionCheckManager requires.
   */
  readonly exactGvk?: boolean;
}

/** A group/version/kind as Go's schema.GroupVersionKind prints it: `group/version, Kind=kind`. */
function gvkText(apiVersion: string, kind: string): string {
  // schema.ParseGroupVersion: '' and '/' are empty, one slash splits, more is an error (all empty)
  if (apiVersion === '' || apiVersion === '/') return `/, Kind=${kind}`;
  const slashes = apiVersion.split('/').length - 1;
  if (slashes === 0) return `/${apiVersion}, Kind=${kind}`;
  if (slashes === 1) return `${apiVersion}, Kind=${kind}`;
  return '/, Kind=';
}

/** An apply body of another group, version or kind: the reference's `invalid object type`. */
function checkExactGvk(object: Record<string, unknown>, opts: DecodeOptions): void {
  const str = (v: unknown): string => (typeof v === 'string' ? v : '');
  const got = gvkText(str(object['apiVersion']), str(object['kind']));
  if (got !== gvkText(opts.apiVersion, opts.kind))
    throw new DecodeError(`invalid object type: ${got}`);
}

export interface DecodeResult {
  readonly object: Record<string, unknown>;
  readonly unknownFields: string[];
  readonly duplicateFields: string[];
}

/** True for the YAML media types; everything else is read as JSON. */
export function isYamlContentType(contentType: string): boolean {
  const mt = (contentType.split(';')[0] ?? '').trim().toLowerCase();
  return (
    mt === 'application/yaml' ||
    mt === 'application/apply-patch+yaml' ||
    mt === 'text/yaml' ||
    mt.endsWith('+yaml')
  );
}

function jsonTypeOf(v: unknown): string {
  if (Array.isArray(v)) return 'array';
  if (v === null) return 'null';
  if (typeof v === 'object') return 'object';
  return typeof v; // string, number, boolean
}

function joinPath(parent: string, key: string): string {
  return parent === '' ? key : `${parent}.${key}`;
}

/** Paths of keys that occur twice in the same mapping. */
function findDuplicates(node: unknown, path: string, out: string[]): void {
  if (isMap(node)) {
    const seen = new Set<string>();
    for (const pair of node.items) {
      const k = isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
      const p = joinPath(path, k);
      if (seen.has(k)) out.push(p);
      seen.add(k);
      findDuplicates(pair.value, p, out);
    }
  } else if (isSeq(node)) {
    node.items.forEach((item, i) => findDuplicates(item, `${path}[${i}]`, out));
  }
}

/** A JSON string's text between its quotes, with its escapes resolved. */
function unescapeJsonString(raw: string): string {
  const parsed: unknown = JSON.parse(`"${raw}"`);
  return typeof parsed === 'string' ? parsed : raw;
}

interface ScanFrame {
  readonly isObject: boolean;
  readonly path: string;
  readonly keys: Set<string>;
  key: string;
  expectKey: boolean;
  index: number;
}

/**
 * Paths of duplicate keys in a JSON text that JSON.parse has already accepted. A single pass over
 * the text (JSON.parse keeps only the last duplicate and cannot report them).
 */
export function findJsonDuplicates(text: string, out: string[]): void {
  const stack: ScanFrame[] = [];
  const valuePath = (): string => {
    const top = stack[stack.length - 1];
    if (top === undefined) return '';
    return top.isObject ? joinPath(top.path, top.key) : `${top.path}[${top.index}]`;
  };
  const n = text.length;
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      stack.push({
        isObject: c === 0x7b,
        path: valuePath(),
        keys: new Set(),
        key: '',
        expectKey: true,
        index: 0,
      });
      i++;
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      stack.pop();
      i++;
    } else if (c === 0x2c /* , */) {
      const top = stack[stack.length - 1];
      if (top !== undefined) {
        if (top.isObject) top.expectKey = true;
        else top.index++;
      }
      i++;
    } else if (c === 0x22 /* " */) {
      let j = i + 1;
      let escaped = false;
      while (j < n) {
        const d = text.charCodeAt(j);
        if (d === 0x5c /* \\ */) {
          escaped = true;
          j += 2;
        } else if (d === 0x22) break;
        else j++;
      }
      const top = stack[stack.length - 1];
      if (top !== undefined && top.isObject && top.expectKey) {
        const raw = text.slice(i + 1, j);
        const key = escaped ? unescapeJsonString(raw) : raw;
        if (top.keys.has(key)) out.push(joinPath(top.path, key));
        top.keys.add(key);
        top.key = key;
        top.expectKey = false;
      }
      i = j + 1;
    } else i++;
  }
}

interface WalkState {
  readonly unknown: string[];
  typeError?: string;
  /** The same first mismatch in the unstructured converter's words (strategic merge patches). */
  converterError?: string;
  /** A time that does not parse: Go's decoder stops there, so this error wins over typeError. */
  fatal?: string;
}

function typeMismatch(state: WalkState, v: unknown, s: Schema, owner: string, path: string): void {
  if (state.typeError !== undefined) return;
  const got = jsonTypeOf(v);
  // encoding/json names the number only when it fails an integer field.
  const what = got === 'number' && s.t === 'int' ? `number ${String(v)}` : got;
  state.typeError =
    `json: cannot unmarshal ${what} into Go struct field ${owner}.${path} of type ` + goTypeName(s);
  state.converterError = converterMismatch(v, s);
}

function walk(v: unknown, s: Schema, path: string, owner: string, state: WalkState): void {
  if (v === null || v === undefined) return; // null is the zero value of any field
  if (state.fatal !== undefined) return;
  switch (s.t) {
    case 'any':
      return;
    case 'string':
      if (typeof v !== 'string') typeMismatch(state, v, s, owner, path);
      else if (s.format === 'byte') checkBase64(v, state);
      return;
    case 'bool':
      if (typeof v !== 'boolean') typeMismatch(state, v, s, owner, path);
      return;
    case 'number':
      if (typeof v !== 'number') typeMismatch(state, v, s, owner, path);
      return;
    case 'int':
      if (typeof v !== 'number' || !fitsInt(v, s.bits)) typeMismatch(state, v, s, owner, path);
      return;
    case 'time': {
      const r = timeLeaf(v, s.kind);
      if ('error' in r) state.fatal = r.error;
      return;
    }
    case 'array':
      if (!Array.isArray(v)) {
        typeMismatch(state, v, s, owner, path);
        return;
      }
      v.forEach((item, i) => walk(item, s.items, `${path}[${i}]`, owner, state));
      return;
    case 'map':
      if (!isRecord(v)) {
        typeMismatch(state, v, s, owner, path);
        return;
      }
      for (const [k, child] of Object.entries(v))
        walk(child, s.values, joinPath(path, k), owner, state);
      return;
    case 'object':
      if (!isRecord(v)) typeMismatch(state, v, s, owner, path);
      else walkFields(v, s, path, state);
      return;
  }
}

/** A []byte field: encoding/json keeps base64's error as it keeps a type mismatch. */
function checkBase64(v: string, state: WalkState): void {
  if (state.typeError !== undefined) return;
  const err = goBase64Error(v);
  if (err !== undefined) {
    state.typeError = err;
    state.converterError = converterBase64Error(err);
  }
}

/** A struct's fields: known ones walked against their schema, others noted as unknown. */
function walkFields(
  v: Record<string, unknown>,
  s: Extract<Schema, { t: 'object' }>,
  path: string,
  state: WalkState,
): void {
  const childOwner = s.name.replace(/^v1\./, '');
  for (const [k, child] of Object.entries(v)) {
    const fs = s.fields[k];
    const p = joinPath(path, k);
    if (fs !== undefined) walk(child, fs, p, childOwner, state);
    else if (s.open !== true) state.unknown.push(p);
  }
}

/** Unknown fields and the first type mismatch of `value` against the kind's known-field tree. */
export interface SchemaCheck {
  readonly unknownFields: string[];
  /** The first value that does not decode, in encoding/json's words. */
  readonly typeError?: string;
  /** The same, in the unstructured converter's words (set whenever typeError is). */
  readonly converterError?: string;
}

export function checkAgainstSchema(value: Record<string, unknown>, kind: string): SchemaCheck {
  const schema = schemaForKind(kind, value['apiVersion']);
  if (schema === undefined) return { unknownFields: [] };
  const state: WalkState = { unknown: [] };
  walk(value, schema, '', kind, state);
  const typeError = state.fatal ?? state.typeError;
  if (typeError === undefined) return { unknownFields: state.unknown };
  const converterError = state.fatal ?? state.converterError ?? typeError;
  return { unknownFields: state.unknown, typeError, converterError };
}

/**
 * A JSON.parse error as a short message in the reference's style, without echoing the body
 * (which V8 quotes in some messages and which may hold data that does not belong in errors).
 */
export function jsonSyntaxMessage(err: unknown): string {
  const raw = err instanceof Error ? err.message : String(err);
  const msg = raw.replace(/, (?:\.\.\.)?".*" is not valid JSON$/s, '');
  const tok = /^Unexpected token '(.)'/su.exec(msg);
  if (tok !== null) return `invalid character '${tok[1] ?? ''}' looking for beginning of value`;
  if (msg.startsWith('Unexpected end of JSON input')) return 'unexpected end of JSON input';
  const pos = /^(.*?) (in|after) JSON at position (\d+)/s.exec(msg);
  if (pos !== null) {
    const what = pos[2] === 'after' ? 'invalid character after top-level value' : (pos[1] ?? '');
    return `${what.charAt(0).toLowerCase()}${what.slice(1)} (at offset ${pos[3] ?? '0'})`;
  }
  // Anything else: never more than the first sentence, and never quoted input.
  return (msg.split(/[,"]/)[0] ?? 'invalid JSON').trim();
}

function parseJsonBody(body: string, kind: string): unknown {
  if (body.trim() === '')
    throw new DecodeError(
      "couldn't get version/kind; json parse error: unexpected end of JSON input",
    );
  try {
    return parseJsonBounded(body);
  } catch (e) {
    if (e instanceof InputLimitError) throw limitDecodeError(body, e, false, kind);
    throw new DecodeError(
      `couldn't get version/kind; json parse error: ` +
        jsonSyntaxMessage(e instanceof InputSyntaxError ? e.cause : e),
    );
  }
}

function parseYamlValue(body: string, kind: string, duplicateFields: string[]): unknown {
  try {
    const doc = parseYamlBody(body);
    if (doc === undefined) return null;
    const err = doc.errors[0];
    if (err !== undefined) {
      const line = body.slice(0, err.pos[0]).split('\n').length;
      throw new DecodeError(
        `error converting YAML to JSON: yaml: line ${line}: ${err.message.split('\n')[0] ?? ''}`,
      );
    }
    const value = yamlBodyToJs(doc, body);
    findDuplicates(doc.contents, '', duplicateFields);
    return value;
  } catch (e) {
    if (e instanceof InputLimitError) throw limitDecodeError(body, e, true, kind);
    if (e instanceof CollectionKeyError) throw collectionKeyDecodeError(e, kind);
    if (e instanceof GoYamlValueError) throw goYamlValueDecodeError(e, kind);
    if (e instanceof InputSyntaxError)
      throw new DecodeError(`error converting YAML to JSON: yaml: ${e.message}`);
    throw e;
  }
}

/** The reference's error for a body that is not a JSON object. */
function notAnObject(value: unknown, body: string): DecodeError {
  const t = value === null || value === undefined ? 'null' : jsonTypeOf(value);
  if (t === 'null') return new DecodeError(`Object 'Kind' is missing in '${body.trim()}'`);
  return new DecodeError(
    `couldn't get version/kind; json parse error: json: cannot unmarshal ${t} into Go ` +
      `value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind ` +
      `string "json:\\"kind,omitempty\\"" }`,
  );
}

/** The body's kind and apiVersion: strings, the expected ones when set, defaulted when not. */
function checkGvk(object: Record<string, unknown>, opts: DecodeOptions): void {
  const bodyKind = object['kind'];
  const bodyVersion = object['apiVersion'];
  if (bodyKind !== undefined && typeof bodyKind !== 'string') {
    throw new DecodeError(
      `couldn't get version/kind; json parse error: json: cannot unmarshal ` +
        `${jsonTypeOf(bodyKind)} into Go struct field .kind of type string`,
    );
  }
  if (bodyVersion !== undefined && typeof bodyVersion !== 'string') {
    throw new DecodeError(
      `couldn't get version/kind; json parse error: json: cannot unmarshal ` +
        `${jsonTypeOf(bodyVersion)} into Go struct field .apiVersion of type string`,
    );
  }
  if (opts.kind !== 'DeleteOptions') {
    if (
      opts.apiVersion !== '' &&
      typeof bodyVersion === 'string' &&
      bodyVersion !== '' &&
      bodyVersion !== opts.apiVersion
    ) {
      throw new DecodeError(
        `the API version in the data (${bodyVersion}) does not match the expected API ` +
          `version (${opts.apiVersion})`,
      );
    }
    if (typeof bodyKind === 'string' && bodyKind !== '' && bodyKind !== opts.kind) {
      throw new DecodeError(
        `the object provided is unrecognized (must be of type ${opts.kind}): no kind ` +
          `${JSON.stringify(bodyKind)} is registered for version ` +
          JSON.stringify(opts.apiVersion || (bodyVersion ?? '')),
      );
    }
    if (bodyKind === undefined || bodyKind === '') object['kind'] = opts.kind;
    if ((bodyVersion === undefined || bodyVersion === '') && opts.apiVersion !== '')
      object['apiVersion'] = opts.apiVersion;
  }
}

export function decodeBody(opts: DecodeOptions): DecodeResult {
  const yaml = isYamlContentType(opts.contentType);
  let value: unknown;
  const duplicateFields: string[] = [];
  if (yaml) {
    value = parseYamlValue(opts.body, opts.kind, duplicateFields);
  } else {
    value = parseJsonBody(opts.body, opts.kind);
    findJsonDuplicates(opts.body, duplicateFields);
  }
  if (!isRecord(value)) throw notAnObject(value, opts.body);
  const object = value;
  if (opts.exactGvk === true) checkExactGvk(object, opts);
  checkGvk(object, opts);
  const checked = checkAgainstSchema(object, opts.kind);
  if (checked.typeError !== undefined) {
    const v = opts.apiVersion.includes('/')
      ? opts.apiVersion.slice(opts.apiVersion.indexOf('/') + 1)
      : opts.apiVersion || 'v1';
    throw new DecodeError(
      `${opts.kind} in version ${JSON.stringify(v)} cannot be handled as a ` +
        `${opts.kind}: ${checked.typeError}`,
    );
  }
  return { object, unknownFields: checked.unknownFields, duplicateFields };
}

/**
 * Removes unknown fields (fieldValidation Ignore/Warn drop them) from a decoded object, in place.
 */
export function pruneUnknownFields(
  object: Record<string, unknown>,
  kind: string,
): Record<string, unknown> {
  const schema = schemaForKind(kind, object['apiVersion']);
  if (schema !== undefined) prune(object, schema);
  return object;
}

function prune(v: unknown, s: Schema): void {
  if (s.t === 'array' && Array.isArray(v)) v.forEach((item) => prune(item, s.items));
  else if (!isRecord(v)) return;
  else if (s.t === 'map') for (const child of Object.values(v)) prune(child, s.values);
  else if (s.t === 'object') {
    const rec = v;
    for (const k of Object.keys(rec)) {
      const fs = s.fields[k];
      if (fs !== undefined) prune(rec[k], fs);
      else if (s.open !== true) Reflect.deleteProperty(rec, k);
    }
  }
}

/** The texts the reference uses in Strict errors and Warning headers. */
export function fieldProblemTexts(
  r: Pick<DecodeResult, 'unknownFields' | 'duplicateFields'>,
): string[] {
  return [
    ...r.unknownFields.map((f) => `unknown field ${JSON.stringify(f)}`),
    ...r.duplicateFields.map((f) => `duplicate field ${JSON.stringify(f)}`),
  ];
}

/**
 * The Strict-mode 400 message:
 * `<Kind> in version "v1" cannot be handled as a <Kind>: strict decoding error: ...`.
 */
export function strictDecodingMessage(
  kind: string,
  apiVersion: string,
  r: Pick<DecodeResult, 'unknownFields' | 'duplicateFields'>,
): string {
  const v = apiVersion.includes('/')
    ? apiVersion.slice(apiVersion.indexOf('/') + 1)
    : apiVersion || 'v1';
  return (
    `${kind} in version ${JSON.stringify(v)} cannot be handled as a ${kind}: strict ` +
    `decoding error: ${fieldProblemTexts(r).join(', ')}`
  );
}
