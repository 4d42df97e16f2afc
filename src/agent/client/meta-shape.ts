// Type guards for the shapes every answer shares (ObjectMeta, ListMeta, a list of a kind), as
// strict as their zod schemas in api-schemas.ts (test/unit/agent/client/answer-guards.test.ts
// holds them to it): a guard may refuse what the schema takes (that answer then goes through
// zod), never take what it refuses. They decode well-formed answers without loading zod.
import { isRecord, isStringList } from '../../common/util/json-shape.js';
import type { ListMeta, ObjectList, ObjectMeta } from './types.js';

type Guard = (v: unknown) => boolean;

/** A key that is absent, or present with a value `is` takes (zod's exactOptional). */
export function optional(o: Record<string, unknown>, key: string, is: Guard): boolean {
  return !Object.hasOwn(o, key) || is(o[key]);
}

export const isString = (v: unknown): v is string => typeof v === 'string';
/** A number zod takes (finite). */
export const isNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const isStringMap = (v: unknown): boolean => isRecord(v) && Object.values(v).every(isString);

const META_STRINGS = [
  'name',
  'generateName',
  'namespace',
  'uid',
  'resourceVersion',
  'creationTimestamp',
  'deletionTimestamp',
];

export function isObjectMeta(v: unknown): v is ObjectMeta {
  return (
    isRecord(v) &&
    META_STRINGS.every((k) => optional(v, k, isString)) &&
    optional(v, 'generation', isNumber) &&
    optional(v, 'labels', isStringMap) &&
    optional(v, 'annotations', isStringMap) &&
    optional(v, 'ownerReferences', Array.isArray) &&
    optional(v, 'finalizers', isStringList)
  );
}

function isListMeta(v: unknown): v is ListMeta {
  return (
    isRecord(v) &&
    optional(v, 'resourceVersion', isString) &&
    optional(v, 'continue', isString) &&
    optional(v, 'remainingItemCount', isNumber)
  );
}

/** A list whose items (an array: `items: null` is left to zod) are all taken by `item`. */
export function isObjectListOf<T>(v: unknown, item: (x: unknown) => x is T): v is ObjectList<T> {
  return (
    isRecord(v) &&
    optional(v, 'apiVersion', isString) &&
    optional(v, 'kind', isString) &&
    optional(v, 'metadata', isListMeta) &&
    Array.isArray(v.items) &&
    v.items.every(item)
  );
}
