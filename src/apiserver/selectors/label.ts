// Label selectors (`labelSelector=app=web,tier in (a,b),!canary`), with the lexer, parser and
// messages of the reference (k8s.io/apimachinery/pkg/labels/selector.go): operators `=`, `==`,
// `!=`, `in`, `notin`, existence `k`, non-existence `!k`, and integer comparisons `>`, `<`.

import { SelectorError } from './errors.js';
import { userMessage } from '../../common/util/errors.js';
import { isQualifiedName, isValidLabelValue } from '../../common/util/names.js';

export type LabelOperator = 'in' | 'notin' | '=' | '==' | '!=' | 'exists' | '!' | 'gt' | 'lt';

export interface LabelRequirement {
  readonly key: string;
  readonly operator: LabelOperator;
  /** Sorted, de-duplicated values. */
  readonly values: readonly string[];
}

export interface LabelSelector {
  readonly requirements: readonly LabelRequirement[];
  readonly empty: boolean;
  matches(labels: Readonly<Record<string, string>> | undefined): boolean;
  toString(): string;
}

type Tok =
  | 'error'
  | 'eos'
  | 'closedPar'
  | 'comma'
  | 'doesNotExist'
  | 'doubleEquals'
  | 'equals'
  | 'gt'
  | 'identifier'
  | 'in'
  | 'lt'
  | 'notEquals'
  | 'notIn'
  | 'openPar';

const STRING_TO_TOKEN: Readonly<Record<string, Tok>> = {
  ')': 'closedPar',
  ',': 'comma',
  '!': 'doesNotExist',
  '==': 'doubleEquals',
  '=': 'equals',
  '>': 'gt',
  in: 'in',
  '<': 'lt',
  '!=': 'notEquals',
  notin: 'notIn',
  '(': 'openPar',
};

const BINARY_OPERATORS = ['in', 'notin', '=', '==', '!=', 'gt', 'lt'];

interface Scanned {
  tok: Tok;
  lit: string;
}

function isWhitespace(c: string): boolean {
  return c === ' ' || c === '\t' || c === '\r' || c === '\n';
}
function isSpecialSymbol(c: string): boolean {
  return c === '=' || c === '!' || c === '(' || c === ')' || c === ',' || c === '>' || c === '<';
}

function lex(s: string): Scanned[] {
  const out: Scanned[] = [];
  let pos = 0;
  // The reference's reader returns 0 at the end of input; a NUL in the input ends it too.
  const read = (): string => {
    if (pos >= s.length) {
      pos++;
      return '\0';
    }
    return s[pos++] ?? '\0';
  };
  const unread = (): void => {
    pos--;
  };
  for (;;) {
    let ch = read();
    while (isWhitespace(ch)) ch = read();
    if (ch === '\0') {
      out.push({ tok: 'eos', lit: '' });
      return out;
    }
    unread();
    if (isSpecialSymbol(ch)) {
      let buffer = '';
      let last: Scanned | undefined;
      for (;;) {
        const c = read();
        if (c === '\0') break;
        if (isSpecialSymbol(c)) {
          buffer += c;
          const t = STRING_TO_TOKEN[buffer];
          if (t !== undefined) last = { tok: t, lit: buffer };
          else if (last !== undefined) {
            unread();
            break;
          }
        } else {
          unread();
          break;
        }
      }
      out.push(last ?? { tok: 'error', lit: `error expected: keyword found '${buffer}'` });
    } else {
      let buffer = '';
      for (;;) {
        const c = read();
        if (c !== '\0' && !isWhitespace(c) && !isSpecialSymbol(c)) buffer += c;
        else {
          unread();
          break;
        }
      }
      const t = STRING_TO_TOKEN[buffer];
      out.push({ tok: t === 'in' || t === 'notIn' ? t : 'identifier', lit: buffer });
    }
  }
}

class Parser {
  private pos = 0;
  constructor(private readonly items: Scanned[]) {}

  private item(): Scanned {
    return this.items[Math.min(this.pos, this.items.length - 1)] ?? { tok: 'eos', lit: '' };
  }
  lookahead(values: boolean): Scanned {
    const it = this.item();
    if (values && (it.tok === 'in' || it.tok === 'notIn'))
      return { tok: 'identifier', lit: it.lit };
    return it;
  }
  consume(values: boolean): Scanned {
    const it = this.lookahead(values);
    this.pos++;
    return it;
  }

  parse(): LabelRequirement[] {
    const reqs: LabelRequirement[] = [];
    for (;;) {
      const { tok, lit } = this.lookahead(true);
      if (tok === 'identifier' || tok === 'doesNotExist') {
        try {
          reqs.push(this.parseRequirement());
        } catch (e) {
          throw new SelectorError(`unable to parse requirement: ${userMessage(e)}`);
        }
        const t = this.consume(true);
        if (t.tok === 'eos') return reqs;
        if (t.tok === 'comma') {
          const t2 = this.lookahead(true);
          if (t2.tok !== 'identifier' && t2.tok !== 'doesNotExist') {
            throw new SelectorError(`found '${t2.lit}', expected: identifier after ','`);
          }
        } else {
          throw new SelectorError(`found '${t.lit}', expected: ',' or 'end of string'`);
        }
      } else if (tok === 'eos') {
        return reqs;
      } else {
        throw new SelectorError(`found '${lit}', expected: !, identifier, or 'end of string'`);
      }
    }
  }

  private parseRequirement(): LabelRequirement {
    let t = this.consume(true);
    let op: LabelOperator | undefined;
    if (t.tok === 'doesNotExist') {
      op = '!';
      t = this.consume(true);
    }
    if (t.tok !== 'identifier') throw new Error(`found '${t.lit}', expected: identifier`);
    const key = t.lit;
    const keyErrs = isQualifiedName(key);
    if (keyErrs.length > 0)
      throw new Error(`<nil>: Invalid value: ${JSON.stringify(key)}: ${keyErrs.join('; ')}`);
    const next = this.lookahead(true).tok;
    if (next === 'eos' || next === 'comma') {
      op ??= 'exists';
    }
    if (op === 'exists' || op === '!') return newRequirement(key, op, []);
    const opTok = this.consume(false);
    switch (opTok.tok) {
      case 'in':
        op = 'in';
        break;
      case 'equals':
        op = '=';
        break;
      case 'doubleEquals':
        op = '==';
        break;
      case 'gt':
        op = 'gt';
        break;
      case 'lt':
        op = 'lt';
        break;
      case 'notIn':
        op = 'notin';
        break;
      case 'notEquals':
        op = '!=';
        break;
      default:
        throw new Error(`found '${opTok.lit}', expected: ${BINARY_OPERATORS.join(', ')}`);
    }
    const values = op === 'in' || op === 'notin' ? this.parseValues() : this.parseExactValue();
    return newRequirement(key, op, values);
  }

  private parseValues(): Set<string> {
    const open = this.consume(true);
    if (open.tok !== 'openPar') throw new Error(`found '${open.lit}' expected: '('`);
    const { tok, lit } = this.lookahead(true);
    if (tok === 'identifier' || tok === 'comma') {
      const s = this.parseIdentifiersList();
      if (this.consume(true).tok !== 'closedPar') throw new Error(`found '${lit}', expected: ')'`);
      return s;
    }
    if (tok === 'closedPar') {
      this.consume(true);
      return new Set(['']);
    }
    throw new Error(`found '${lit}', expected: ',', ')' or identifier`);
  }

  private parseIdentifiersList(): Set<string> {
    const s = new Set<string>();
    for (;;) {
      const { tok, lit } = this.consume(true);
      if (tok === 'identifier') {
        s.add(lit);
        const t2 = this.lookahead(true);
        if (t2.tok === 'comma') continue;
        if (t2.tok === 'closedPar') return s;
        throw new Error(`found '${t2.lit}', expected: ',' or ')'`);
      } else if (tok === 'comma') {
        if (s.size === 0) s.add('');
        const t2 = this.lookahead(true).tok;
        if (t2 === 'closedPar') {
          s.add('');
          return s;
        }
        if (t2 === 'comma') {
          this.consume(true);
          s.add('');
        }
      } else {
        throw new Error(`found '${lit}', expected: ',', or identifier`);
      }
    }
  }

  private parseExactValue(): Set<string> {
    const la = this.lookahead(true).tok;
    if (la === 'eos' || la === 'comma') return new Set(['']);
    const { tok, lit } = this.consume(true);
    if (tok === 'identifier') return new Set([lit]);
    throw new Error(`found '${lit}', expected: identifier`);
  }
}

function quoteList(vals: readonly string[]): string {
  return `[]string{${vals.map((v) => JSON.stringify(v)).join(', ')}}`;
}

const INT64 = /^[+-]?\d+$/;
function parseInt64(s: string): bigint | undefined {
  if (!INT64.test(s)) return undefined;
  const v = BigInt(s);
  if (v > 9223372036854775807n || v < -9223372036854775808n) return undefined;
  return v;
}

/** The operator's rule on how many values it takes (and, for Gt/Lt, that each is an integer). */
function operatorErrors(op: LabelOperator, vals: string[]): string[] {
  const errs: string[] = [];
  switch (op) {
    case 'in':
    case 'notin':
      if (vals.length === 0)
        errs.push(
          `values: Invalid value: ${quoteList(vals)}: for 'in', 'notin' operators, ` +
            `values set can't be empty`,
        );
      break;
    case '=':
    case '==':
    case '!=':
      if (vals.length !== 1)
        errs.push(
          `values: Invalid value: ${quoteList(vals)}: exact-match compatibility ` +
            `requires one single value`,
        );
      break;
    case 'exists':
    case '!':
      if (vals.length !== 0)
        errs.push(
          `values: Invalid value: ${quoteList(vals)}: values set must be empty for ` +
            `exists and does not exist`,
        );
      break;
    case 'gt':
    case 'lt':
      if (vals.length !== 1)
        errs.push(
          `values: Invalid value: ${quoteList(vals)}: for 'Gt', 'Lt' operators, exactly ` +
            `one value is required`,
        );
      vals.forEach((v, i) => {
        if (parseInt64(v) === undefined) {
          errs.push(
            `values[${i}]: Invalid value: ${JSON.stringify(v)}: for 'Gt', 'Lt' ` +
              `operators, the value must be an integer`,
          );
        }
      });
      break;
  }
  return errs;
}

function newRequirement(
  key: string,
  op: LabelOperator,
  valueSet: Set<string> | string[],
): LabelRequirement {
  const vals = [...valueSet].sort();
  const errs: string[] = [];
  const keyErrs = isQualifiedName(key);
  if (keyErrs.length > 0)
    errs.push(`key: Invalid value: ${JSON.stringify(key)}: ${keyErrs.join('; ')}`);
  errs.push(...operatorErrors(op, vals));
  vals.forEach((v, i) => {
    const vErrs = isValidLabelValue(v);
    if (vErrs.length > 0)
      errs.push(`values[${i}][${key}]: Invalid value: ${JSON.stringify(v)}: ${vErrs.join('; ')}`);
  });
  if (errs.length === 1) throw new Error(errs[0]);
  if (errs.length > 1) throw new Error(`[${errs.join(', ')}]`);
  return { key, operator: op, values: vals };
}

function requirementMatches(
  r: LabelRequirement,
  labels: Readonly<Record<string, string>>,
): boolean {
  const has = Object.prototype.hasOwnProperty.call(labels, r.key);
  const v = has ? labels[r.key] : undefined;
  switch (r.operator) {
    case 'in':
    case '=':
    case '==':
      return v !== undefined && r.values.includes(v);
    case 'notin':
    case '!=':
      return v === undefined || !r.values.includes(v);
    case 'exists':
      return has;
    case '!':
      return !has;
    case 'gt':
    case 'lt': {
      if (v === undefined) return false;
      const lv = parseInt64(v);
      const rv = r.values.length === 1 ? parseInt64(r.values[0] ?? '') : undefined;
      if (lv === undefined || rv === undefined) return false;
      return r.operator === 'gt' ? lv > rv : lv < rv;
    }
  }
}

function requirementString(r: LabelRequirement): string {
  switch (r.operator) {
    case 'exists':
      return r.key;
    case '!':
      return `!${r.key}`;
    case 'in':
      return `${r.key} in (${r.values.join(',')})`;
    case 'notin':
      return `${r.key} notin (${r.values.join(',')})`;
    case 'gt':
      return `${r.key}>${r.values.join(',')}`;
    case 'lt':
      return `${r.key}<${r.values.join(',')}`;
    default:
      return `${r.key}${r.operator}${r.values.join(',')}`;
  }
}

class ParsedLabelSelector implements LabelSelector {
  constructor(readonly requirements: readonly LabelRequirement[]) {}
  get empty(): boolean {
    return this.requirements.length === 0;
  }
  matches(labels: Readonly<Record<string, string>> | undefined): boolean {
    const l = labels ?? {};
    return this.requirements.every((r) => requirementMatches(r, l));
  }
  toString(): string {
    return this.requirements.map(requirementString).join(',');
  }
}

export function parseLabelSelector(s: string): LabelSelector {
  const reqs = new Parser(lex(s)).parse();
  // The reference sorts requirements by key (stable for equal keys).
  reqs.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return new ParsedLabelSelector(reqs);
}

export function everythingLabelSelector(): LabelSelector {
  return new ParsedLabelSelector([]);
}
