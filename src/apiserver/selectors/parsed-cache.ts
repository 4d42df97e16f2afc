// Parsed selectors by their text, so the list and watch requests of many clients that send the
// same selector (every node's agent asks for `spec.nodeName=<node>`, informers repeat theirs on
// every relist and rewatch) parse it once. Parsed selectors are immutable and shared; only
// selectors that parsed are kept (a bad one throws its SelectorError on every request); bounded
// by count and by the length of the text kept.

import { LRUCache } from 'lru-cache';
import { parseFieldSelector, type FieldSelector } from './field.js';
import { parseLabelSelector, type LabelSelector } from './label.js';
import { parseShardSelector, type ShardSelector } from './shard.js';

const MAX_ENTRIES = 1024;
/** Longer texts are parsed every time rather than kept. */
const MAX_KEPT_TEXT = 4096;

function cached<T extends object>(parse: (text: string) => T): (text: string) => T {
  const lru = new LRUCache<string, T>({ max: MAX_ENTRIES });
  return (text) => {
    const known = lru.get(text);
    if (known !== undefined) return known;
    const parsed = Object.freeze(parse(text));
    if (text.length <= MAX_KEPT_TEXT) lru.set(text, parsed);
    return parsed;
  };
}

export const cachedFieldSelector: (text: string) => FieldSelector = cached(parseFieldSelector);
export const cachedLabelSelector: (text: string) => LabelSelector = cached(parseLabelSelector);
export const cachedShardSelector: (text: string) => ShardSelector = cached(parseShardSelector);
