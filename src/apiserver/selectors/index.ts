// Field, label and shard selectors for list, watch and delete-collection.
export { SelectorError } from './errors.js';
export {
  parseFieldSelector,
  checkFieldsSupported,
  everythingFieldSelector,
  escapeFieldValue,
  unescapeFieldValue,
  requiresExactMatch,
  type FieldSelector,
  type FieldRequirement,
} from './field.js';
export {
  parseLabelSelector,
  everythingLabelSelector,
  type LabelSelector,
  type LabelRequirement,
  type LabelOperator,
} from './label.js';
export {
  parseShardSelector,
  fnv1a64,
  SHARD_FIELDS,
  type ShardSelector,
  type ShardRange,
  type ShardField,
} from './shard.js';
export { fieldGetterFor, SUPPORTED_FIELDS, type SelectableResource } from './fields.js';
export { cachedFieldSelector, cachedLabelSelector, cachedShardSelector } from './parsed-cache.js';
