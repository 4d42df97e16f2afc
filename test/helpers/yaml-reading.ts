// Our reading of a YAML text in the oracle's terms: the value as canonical JSON (keys sorted, as Go's
// json.Marshal writes them) or a refusal. Shared by the differential fuzz test and the corpus test.
import {
  MANIFEST_LIMITS,
  parseYamlBounded,
  yamlToJsBounded,
  type BoundedInput,
} from '../../src/common/util/bounded-parse.js';
import { InputLimitError } from '../../src/common/util/errors.js';
import type { OracleAnswer } from './yaml-oracle.js';

export type Reading =
  { readonly json: string } | { readonly error: string } | { readonly limit: string };

/** JSON with object keys sorted and -0 as 0 (one JSON number to JSON.parse). */
export function canonicalJson(v: unknown): string {
  const norm = (x: unknown): unknown => {
    if (Array.isArray(x)) return x.map(norm);
    if (x !== null && typeof x === 'object') {
      const out: Record<string, unknown> = {};
      for (const k of Object.keys(x).sort())
        Object.defineProperty(out, k, {
          value: norm((x as Record<string, unknown>)[k]),
          enumerable: true,
        });
      return out;
    }
    return Object.is(x, -0) ? 0 : x;
  };
  return JSON.stringify(norm(v)) ?? 'null';
}

/**
 * Our reading of the first document, as a static pod manifest or an API request body is read
 * (duplicate keys allowed, the later one wins, as in the reference; go-yaml v2 reads the first
 * document only).
 */
export function ourReading(text: string): Reading {
  const input: BoundedInput = { limits: MANIFEST_LIMITS, source: 'text' };
  try {
    const doc = parseYamlBounded(text, { ...input, yamlOptions: { uniqueKeys: false } })[0];
    if (doc === undefined) return { json: 'null' };
    const err = doc.errors[0];
    if (err !== undefined) return { error: err.message };
    return { json: canonicalJson(yamlToJsBounded(doc, input, text)) };
  } catch (e) {
    if (e instanceof InputLimitError) return { limit: e.message };
    return { error: e instanceof Error ? e.message : String(e) };
  }
}

/** The oracle's answer in the same canonical form. */
export function referenceReading(a: OracleAnswer): Reading {
  return 'json' in a ? { json: canonicalJson(JSON.parse(a.json)) } : { error: a.error };
}

/** Both accept with the same value, or both refuse. */
export function agree(ours: Reading, ref: Reading): boolean {
  if ('json' in ours && 'json' in ref) return ours.json === ref.json;
  return 'error' in ours && 'error' in ref;
}
