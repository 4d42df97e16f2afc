// YAML within bounds, without recursion until the bounds hold. Three iterative passes guard the
// `yaml` library's recursive composer and toJS: (1) its lexer, counting flow nesting, scalars and
// aliases and measuring strings as the tokens stream by, so that a huge or deep flow document is
// refused before any tree is built; (2) its CST parser (iterative), whose tree (3) an
// explicit-stack walk measures exactly (nesting of block and flow collections, keys per mapping,
// values, documents). Only then are the documents composed. `yamlToJsBounded` converts one, with
// the alias expansion bound, and measures the result again, since aliases can nest a value inside
// another. The library never writes to Node's process warnings from here: documents are composed
// with logLevel 'error', a collection key is refused before conversion (yaml-collection-key.ts),
// the library's warnings go to the program's logger as notes (yaml-notes.ts), and its debug
// printing to stdout (LOG_TOKENS, LOG_STREAM) is off while it parses (yaml-debug-env.ts).

import {
  CST,
  Composer,
  Lexer,
  Parser,
  type Document,
  type DocumentOptions,
  type LineCounter,
  type ParseOptions,
  type SchemaOptions,
} from 'yaml';
import { checkSize, limitError, type BoundedInput, type PathSegment } from './bounded-input.js';
import { InputSyntaxError } from './errors.js';
import { measureValue } from './bounded-value.js';
import type { ParseLimitName } from './parse-limits.js';
import { lineCol } from './text-position.js';
import { checkScalarKeys } from './yaml-collection-key.js';
import { withoutYamlDebugOutput } from './yaml-debug-env.js';
import { yamlNote } from './yaml-notes.js';
import { goYamlTags } from './go-yaml-tags.js';
import { goYamlValue } from './go-yaml-value.js';

export interface BoundedYamlOptions extends BoundedInput {
  /** Receives line starts, for callers that report line and column. */
  readonly lineCounter?: LineCounter;
  /**
   * Passed to the composer (uniqueKeys, merge, ...). prettyErrors is not applied; logLevel and
   * resolveKnownTags are COMPOSE_OPTIONS'.
   */
  readonly yamlOptions?: ParseOptions & DocumentOptions & SchemaOptions;
}

/**
 * Set on every document: the library writes no process warning (logLevel 'error': its warnings
 * stay in doc.warnings, which become notes), and the YAML 1.1 tags outside the core schema
 * (!!binary, !!timestamp, !!set, !!omap, !!pairs) are not turned into a Buffer, Date, Set or Map,
 * which have no JSON form: the value is read as if untagged, with a note. Plain scalars resolve as
 * the reference's go-yaml v2 resolves them (go-yaml-tags.ts), and `<<` merges are go-yaml's
 * (go-yaml-value.ts), not the library's.
 */
const COMPOSE_OPTIONS = {
  logLevel: 'error',
  resolveKnownTags: false,
  schema: 'core',
  customTags: goYamlTags,
  merge: false,
} as const;

// Tokens the lexer inserts that are not in the source.
const MARKERS = new Set(['\x02', '\x18', '\x1f']);

/** Pass 1: the lexer's token stream. Keys are counted with values here, hence twice the budget. */
function lexGuard(text: string, input: BoundedInput): void {
  const L = input.limits;
  const fail = (limit: ParseLimitName, at: number): never => {
    throw limitError(input, limit, text, at);
  };
  let flow = 0;
  let items = 0;
  let aliases = 0;
  let offset = 0;
  let scalarNext = false;
  // `- - - x` and `? ? x` nest a level per indicator on one line: refused here, before the CST.
  let compact = 0;
  for (const tok of new Lexer().lex(text)) {
    if (scalarNext) {
      scalarNext = false;
      if (tok.length > L.maxStringLength) fail('maxStringLength', offset);
    } else {
      switch (CST.tokenType(tok)) {
        case 'scalar':
          scalarNext = true;
          items++;
          break;
        case 'flow-map-start':
        case 'flow-seq-start':
          if (++flow > L.maxDepth) fail('maxDepth', offset);
          items++;
          break;
        case 'flow-map-end':
        case 'flow-seq-end':
          flow--;
          break;
        case 'seq-item-ind':
        case 'explicit-key-ind':
          if (++compact > L.maxDepth) fail('maxDepth', offset);
          items++;
          break;
        case 'space':
          break;
        case 'alias':
          if (++aliases > L.maxAliases) fail('maxAliases', offset);
          items++;
          break;
        case 'single-quoted-scalar':
        case 'double-quoted-scalar':
          if (tok.length > L.maxStringLength) fail('maxStringLength', offset);
          items++;
          break;
        default:
          break;
      }
      const type = CST.tokenType(tok);
      if (type !== 'seq-item-ind' && type !== 'explicit-key-ind' && type !== 'space') compact = 0;
      if (items > 2 * L.maxNodes + 2) fail('maxNodes', offset);
    }
    if (!MARKERS.has(tok)) offset += tok.length;
  }
}

interface Entry {
  readonly tok: CST.Token;
  readonly depth: number;
  readonly parent: Entry | undefined;
  readonly seg: PathSegment;
}

function pathOf(e: Entry | undefined): PathSegment[] {
  const out: PathSegment[] = [];
  for (let cur = e; cur !== undefined; cur = cur.parent)
    if (cur.parent !== undefined) out.push(cur.seg);
  return out.reverse();
}

function keyText(key: CST.Token | null | undefined, index: number): PathSegment {
  if (
    key !== null &&
    key !== undefined &&
    'source' in key &&
    typeof key.source === 'string' &&
    key.type !== 'block-scalar'
  )
    return key.source;
  return index;
}

/** Pass 3: one CST document, measured with an explicit stack. Returns the values it counted. */
function walkDocument(
  doc: CST.Document,
  text: string,
  input: BoundedInput,
  nodesBefore: number,
): number {
  const L = input.limits;
  let nodes = nodesBefore;
  const stack: Entry[] = [];
  const root: Entry = { tok: doc, depth: 0, parent: undefined, seg: '' };
  const push = (
    tok: CST.Token | null | undefined,
    parent: Entry,
    seg: PathSegment,
    isKey: boolean,
  ): void => {
    if (tok === null || tok === undefined) return;
    const collection =
      tok.type === 'block-map' || tok.type === 'block-seq' || tok.type === 'flow-collection';
    const entry: Entry = { tok, depth: parent.depth + (collection ? 1 : 0), parent, seg };
    if (!isKey && ++nodes > L.maxNodes)
      throw limitError(input, 'maxNodes', text, tok.offset, pathOf(entry));
    if (entry.depth > L.maxDepth)
      throw limitError(input, 'maxDepth', text, tok.offset, pathOf(entry));
    if (collection) stack.push(entry);
  };
  push(doc.value, root, '', false);
  for (let e = stack.pop(); e !== undefined; e = stack.pop()) {
    const tok = e.tok;
    if (tok.type !== 'block-map' && tok.type !== 'block-seq' && tok.type !== 'flow-collection')
      continue;
    const isMap =
      tok.type === 'block-map' || (tok.type === 'flow-collection' && tok.start.source === '{');
    if (isMap && tok.items.length > L.maxKeysPerObject)
      throw limitError(input, 'maxKeysPerObject', text, tok.offset, pathOf(e));
    tok.items.forEach((item, i) => {
      const seg = isMap ? keyText(item.key, i) : i;
      push(item.key, e, seg, true);
      push(item.value, e, seg, false);
    });
  }
  return nodes;
}

/**
 * Parses every document of `text` within opts.limits and composes them. Throws InputLimitError
 * over a bound; syntax errors are left in each document's `errors`, as the `yaml` library does.
 */
export function parseYamlBounded(text: string, opts: BoundedYamlOptions): Document.Parsed[] {
  checkSize(text, opts);
  lexGuard(text, opts);
  return withoutYamlDebugOutput(() => {
    const tokens: CST.Token[] = [];
    let documents = 0;
    let nodes = 0;
    for (const tok of new Parser(opts.lineCounter?.addNewLine).parse(text)) {
      if (tok.type === 'document') {
        if (++documents > opts.limits.maxDocuments)
          throw limitError(opts, 'maxDocuments', text, tok.offset);
        nodes = walkDocument(tok, text, opts, nodes);
      }
      tokens.push(tok);
    }
    return Array.from(
      new Composer({ ...opts.yamlOptions, ...COMPOSE_OPTIONS }).compose(tokens, true, text.length),
    );
  });
}

/** Nesting and count of the converted value within bounds. */
function checkValue(value: unknown, input: BoundedInput, text: string, offset: number): void {
  const size = measureValue(value, input.limits.maxNodes);
  if (size.nodes > input.limits.maxNodes) throw limitError(input, 'maxNodes', text, offset);
  if (size.depth > input.limits.maxDepth) throw limitError(input, 'maxDepth', text, offset);
}

/** Each of the library's warnings on `doc`, as a note naming the source and the place. */
function noteWarnings(doc: Document.Parsed, input: BoundedInput, text: string): void {
  for (const w of doc.warnings) {
    const { line, col } = lineCol(text, w.pos[0]);
    const what = (w.message.split('\n')[0] ?? '').replace(/ at line \d+, column \d+:?$/, '');
    yamlNote(
      `${input.source}: line ${line}, column ${col}: ${what} (YAML warning ${w.code}): ` +
        `ignored, the document is read without it`,
    );
  }
}

/**
 * The document as plain JavaScript, as the reference's YAMLToJSON reads it (go-yaml-value.ts): a
 * mapping key that is a collection refused (CollectionKeyError, as the reference refuses it), the
 * library's warnings noted, aliases expanded at most limits.maxAliases times and the result
 * measured again (an alias can nest a whole anchored value one level deeper).
 */
export function yamlToJsBounded(doc: Document.Parsed, input: BoundedInput, text: string): unknown {
  const offset = doc.range[0];
  checkScalarKeys(doc, text, input.source, input.limits.maxAliases);
  noteWarnings(doc, input, text);
  const value = goYamlValue(doc, input, text);
  checkValue(value, input, text, offset);
  return value;
}

/** The `yaml` library's message for a second document where one is expected. */
export const MULTIPLE_DOCUMENTS =
  'Source contains multiple documents; please use YAML.parseAllDocuments()';

/**
 * The value of a one-document YAML (or JSON) text within bounds, as the `yaml` library's `parse`
 * gives it: null for an empty text, InputSyntaxError (the library's first error) for a malformed
 * one.
 */
export function parseYamlValueBounded(text: string, opts: BoundedYamlOptions): unknown {
  const docs = parseYamlBounded(text, opts);
  const doc = docs[0];
  if (doc === undefined) return null;
  if (docs.length > 1) throw new InputSyntaxError(MULTIPLE_DOCUMENTS, { source: opts.source });
  const err = doc.errors[0];
  if (err !== undefined)
    throw new InputSyntaxError(err.message, { source: opts.source, cause: err });
  return yamlToJsBounded(doc, opts, text);
}
