// Field selectors (`fieldSelector=spec.signerName=x,metadata.name!=y`), parsed with the grammar of
// the reference (k8s.io/apimachinery/pkg/fields): comma-separated terms, operators `=`, `==` and
// `!=`, values escaped with `\,` `\=` `\\`. Terms are kept sorted, as the reference does, so
// `toString()` is canonical.

import { SelectorError } from './errors.js';

export interface FieldRequirement {
  readonly field: string;
  readonly op: '=' | '!=';
  readonly value: string;
}

export interface FieldSelector {
  readonly requirements: readonly FieldRequirement[];
  /** True when the selector selects everything. */
  readonly empty: boolean;
  /** True when every requirement holds; `get` returns a field's value (undefined: not present). */
  matches(get: (field: string) => string | undefined): boolean;
  toString(): string;
}

const TERM_OPERATORS = ['!=', '==', '='] as const;

function splitTerms(s: string): string[] {
  if (s.length === 0) return [];
  const terms: string[] = [];
  let start = 0;
  let inSlash = false;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (inSlash) inSlash = false;
    else if (c === '\\') inSlash = true;
    else if (c === ',') {
      terms.push(s.slice(start, i));
      start = i + 1;
    }
  }
  terms.push(s.slice(start));
  return terms;
}

function splitTerm(term: string): { lhs: string; op: string; rhs: string } | undefined {
  for (let i = 0; i < term.length; i++) {
    const remaining = term.slice(i);
    for (const op of TERM_OPERATORS) {
      if (remaining.startsWith(op))
        return { lhs: term.slice(0, i), op, rhs: term.slice(i + op.length) };
    }
  }
  return undefined;
}

/** Removes the escapes of a field selector value; unescaped `,` and `=` are errors. */
export function unescapeFieldValue(s: string): string {
  if (!/[\\,=]/.test(s)) return s;
  let out = '';
  let inSlash = false;
  for (const c of s) {
    if (inSlash) {
      if (c === '\\' || c === ',' || c === '=') out += c;
      else throw new SelectorError(`invalid field selector: invalid escape sequence: \\${c}`);
      inSlash = false;
      continue;
    }
    if (c === '\\') inSlash = true;
    else if (c === ',' || c === '=') {
      // The reference prints the rune as its code point.
      throw new SelectorError(
        `invalid field selector: unescaped character in value: ${c.codePointAt(0)}`,
      );
    } else out += c;
  }
  if (inSlash) throw new SelectorError('invalid field selector: invalid escape sequence: \\');
  return out;
}

export function escapeFieldValue(s: string): string {
  return s.replace(/[\\,=]/g, (c) => `\\${c}`);
}

class ParsedFieldSelector implements FieldSelector {
  readonly requirements: readonly FieldRequirement[];
  constructor(reqs: FieldRequirement[]) {
    this.requirements = reqs;
  }
  get empty(): boolean {
    return this.requirements.length === 0;
  }
  matches(get: (field: string) => string | undefined): boolean {
    for (const r of this.requirements) {
      const v = get(r.field);
      if (r.op === '=') {
        if (v !== r.value) return false;
      } else if (v === r.value) return false;
    }
    return true;
  }
  toString(): string {
    return this.requirements.map((r) => `${r.field}${r.op}${escapeFieldValue(r.value)}`).join(',');
  }
}

export function parseFieldSelector(selector: string): FieldSelector {
  const parts = splitTerms(selector).sort();
  const reqs: FieldRequirement[] = [];
  for (const part of parts) {
    if (part === '') continue;
    const t = splitTerm(part);
    if (t === undefined)
      throw new SelectorError(`invalid selector: '${selector}'; can't understand '${part}'`);
    const value = unescapeFieldValue(t.rhs);
    reqs.push({ field: t.lhs, op: t.op === '!=' ? '!=' : '=', value });
  }
  return new ParsedFieldSelector(reqs);
}

/** The selector that selects everything. */
export function everythingFieldSelector(): FieldSelector {
  return new ParsedFieldSelector([]);
}

/** Throws `field label not supported: <label>` for the first field not in `allowed`. */
export function checkFieldsSupported(sel: FieldSelector, allowed: ReadonlySet<string>): void {
  for (const r of sel.requirements) {
    if (!allowed.has(r.field)) throw new SelectorError(`field label not supported: ${r.field}`);
  }
}

/**
 * The value of a `metadata.name=<x>` requirement, if the selector pins one name (watch by name).
 */
export function requiresExactMatch(sel: FieldSelector, field: string): string | undefined {
  for (const r of sel.requirements) if (r.field === field && r.op === '=') return r.value;
  return undefined;
}
