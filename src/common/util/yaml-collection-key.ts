// A mapping key that is a sequence or a mapping (`? [a, b]\n: c`, `[a]: b`, `{a: b}: c`, or an
// alias of a collection) has no JSON form. The `yaml` library's toJS would stringify it ("[ a, b
// ]") and write a Node process warning; the reference (go-yaml v2 under sigs.k8s.io/yaml) refuses
// the document with `yaml: invalid map key: <the key, as Go's %#v prints it>`. We refuse it too,
// before any conversion, naming the source, the line and column, and what is accepted.

import {
  isAlias,
  isCollection,
  isMap,
  isNode,
  isPair,
  isSeq,
  type Document,
  type Node,
} from 'yaml';
import { LocatedYamlError } from './yaml-located-error.js';
import { lineCol } from './text-position.js';

/** What a mapping key may be. */
export const SCALAR_KEY_ACCEPTED =
  'a mapping key must be a string, a number within int64 or a boolean';

export interface CollectionKeyErrorOptions {
  readonly source: string;
  readonly line: number;
  readonly col: number;
  readonly kind: 'sequence' | 'mapping';
  /**
   * The key as a value (mappings as Map, so that keys keep their type), for messages in the
   * reference's words.
   */
  readonly key: unknown;
}

export class CollectionKeyError extends LocatedYamlError {
  readonly kind: 'sequence' | 'mapping';
  readonly key: unknown;
  /**
   * detail: `invalid map key: the key is a sequence; a mapping key must be ...`. The key's text is
   * left out: a file's text may hold a secret.
   */
  constructor(o: CollectionKeyErrorOptions) {
    super({
      source: o.source,
      line: o.line,
      col: o.col,
      detail: `invalid map key: the key is a ${o.kind}; ${SCALAR_KEY_ACCEPTED}`,
    });
    this.kind = o.kind;
    this.key = o.key;
  }
}

interface Found {
  readonly keyNode: Node;
  readonly target: Node;
}

/** The node an alias stands for (undefined when it names no anchor); any other node itself. */
function resolved(node: unknown, doc: Document.Parsed): unknown {
  return isAlias(node) ? node.resolve(doc) : node;
}

/**
 * The first pair under `root`, in document order, whose key is a collection. Aliases are not
 * followed: what they name came earlier in the document and was visited there.
 */
function firstIn(root: unknown, doc: Document.Parsed): Found | undefined {
  const stack: unknown[] = [root];
  for (let node = stack.pop(); node !== undefined; node = stack.pop()) {
    if (isPair(node)) {
      const target = resolved(node.key, doc);
      // a collection key, or an alias of one: a node either way
      if (isNode(node.key) && isCollection(target)) return { keyNode: node.key, target };
      stack.push(node.value, node.key);
    } else if (isCollection(node)) {
      for (let i = node.items.length - 1; i >= 0; i--) stack.push(node.items[i]);
    }
  }
  return undefined;
}

/**
 * The collection key go-yaml reports first: it decodes a key before checking it, so a collection
 * key inside that key is the one it names.
 */
function firstCollectionKey(doc: Document.Parsed): Found | undefined {
  let found = firstIn(doc.contents, doc);
  for (
    let inner = found && firstIn(found.keyNode, doc);
    inner !== undefined;
    inner = firstIn(inner.keyNode, doc)
  )
    found = inner;
  return found;
}

/**
 * Throws CollectionKeyError for the first mapping key of `doc` that is a sequence or a mapping.
 * `maxAliasCount` bounds the expansion of the key's value (it is within the document's limits).
 */
export function checkScalarKeys(
  doc: Document.Parsed,
  text: string,
  source: string,
  maxAliasCount: number,
): void {
  const found = firstCollectionKey(doc);
  if (found === undefined) return;
  const offset = found.keyNode.range?.[0] ?? 0;
  const { line, col } = lineCol(text, offset);
  const kind = isSeq(found.target) ? 'sequence' : 'mapping';
  let key: unknown;
  try {
    key = found.target.toJS(doc, { mapAsMap: true, maxAliasCount });
  } catch {
    key = isMap(found.target) ? new Map() : [];
  }
  throw new CollectionKeyError({ source, line, col, kind, key });
}
