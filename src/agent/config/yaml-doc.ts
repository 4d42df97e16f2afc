// Reading one YAML (or JSON, which is YAML) document with positions, so every problem in a config
// file can name its line and column.
import { LineCounter, isMap, isScalar, isSeq, type Document } from 'yaml';
import {
  CONFIG_FILE_LIMITS,
  parseYamlBounded,
  yamlToJsBounded,
  type BoundedInput,
} from '../../common/util/bounded-parse.js';
import { MULTIPLE_DOCUMENTS } from '../../common/util/bounded-yaml.js';
import { LocatedYamlError } from '../../common/util/yaml-located-error.js';
import type { Position } from './where.js';

export interface ParsedYaml {
  doc: Document;
  lines: LineCounter;
  value: unknown;
  /**
   * Keys that appear more than once in one mapping: the later occurrence wins, as in the reference.
   */
  duplicates: { path: string; pos: Position }[];
  /**
   * Syntax errors and what the reference's reader refuses (a collection or null key, .inf): fatal.
   */
  errors: { message: string; pos: Position }[];
}

function keyText(node: unknown): string {
  if (isScalar(node)) return String(node.value);
  return String(node);
}

/**
 * Parses within CONFIG_FILE_LIMITS; a file over a limit throws InputLimitError naming `source`
 * (the file), the limit and the byte offset.
 */
export function parseYaml(text: string, source = 'config file'): ParsedYaml {
  const lines = new LineCounter();
  const input: BoundedInput = { limits: CONFIG_FILE_LIMITS, source };
  const parsedDocs = parseYamlBounded(text, {
    ...input,
    lineCounter: lines,
    yamlOptions: { uniqueKeys: false, prettyErrors: false },
  });
  const doc = parsedDocs[0] as Document.Parsed;
  const errors = doc.errors.map((e) => ({
    message: e.message.replace(/ at line \d+, column \d+:[\s\S]*$/, ''),
    pos: lines.linePos(e.pos[0]),
  }));
  const second = parsedDocs[1];
  if (second !== undefined)
    errors.push({ message: MULTIPLE_DOCUMENTS, pos: lines.linePos(second.range[0]) });
  const duplicates: ParsedYaml['duplicates'] = [];
  const walk = (node: unknown, path: string): void => {
    if (isMap(node)) {
      const seen = new Set<string>();
      for (const pair of node.items) {
        const k = keyText(pair.key);
        const p = path === '' ? k : `${path}.${k}`;
        if (seen.has(k)) {
          const start = isScalar(pair.key) && pair.key.range ? pair.key.range[0] : 0;
          duplicates.push({ path: p, pos: lines.linePos(start) });
        }
        seen.add(k);
        walk(pair.value, p);
      }
    } else if (isSeq(node)) {
      node.items.forEach((item, i) => walk(item, `${path}[${i}]`));
    }
  };
  let value: unknown = null;
  if (errors.length === 0) {
    try {
      value = yamlToJsBounded(doc, input, text);
      walk(doc.contents, '');
    } catch (err) {
      if (!(err instanceof LocatedYamlError)) throw err;
      errors.push({ message: err.detail, pos: { line: err.line, col: err.col } });
    }
  }
  return { doc, lines, value, duplicates, errors };
}

/**
 * Line and column of the key (or item) at `path` in the document, or of the nearest parent found.
 */
export function locate(parsed: ParsedYaml, path: readonly PropertyKey[]): Position | undefined {
  let node: unknown = parsed.doc.contents;
  let pos: Position | undefined;
  for (const seg of path) {
    if (isMap(node)) {
      const pair = node.items.find((p) => keyText(p.key) === String(seg));
      if (!pair) break;
      if (isScalar(pair.key) && pair.key.range) pos = parsed.lines.linePos(pair.key.range[0]);
      node = pair.value;
    } else if (isSeq(node) && typeof seg === 'number') {
      const item: unknown = node.items[seg];
      const range = (item as { range?: [number, number, number] } | undefined)?.range;
      if (range) pos = parsed.lines.linePos(range[0]);
      node = item;
    } else break;
  }
  return pos;
}
