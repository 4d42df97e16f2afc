// The `yaml` library's schema for reading as the reference reads: the collections and strings of
// its core schema, and one default tag for every plain scalar, resolved as go-yaml v2 resolves it
// (go-yaml-resolve.ts). The core schema's null/bool/int/float tags stay for explicit tags
// (`!!int 12`) but no longer match plain scalars.
import type { ScalarTag, Tags } from 'yaml';
import { GO_MAYBE_NOT_STRING, goResolvePlain, goScalarValue } from './go-yaml-resolve.js';

const GO_PLAIN: ScalarTag = {
  identify: () => false,
  default: true,
  tag: 'tag:yaml.org,2002:go-yaml-v2-plain',
  test: GO_MAYBE_NOT_STRING,
  resolve: (str: string) => goScalarValue(goResolvePlain(str)),
};

const COLLECTION_OR_STRING = new Set([
  'tag:yaml.org,2002:map',
  'tag:yaml.org,2002:seq',
  'tag:yaml.org,2002:str',
]);

/** customTags for the composer: plain scalars as go-yaml v2 reads them. */
export function goYamlTags(tags: Tags): Tags {
  const kept = tags.map((t) =>
    typeof t === 'object' && !COLLECTION_OR_STRING.has(t.tag) && 'default' in t
      ? { ...t, default: false }
      : t,
  );
  return [GO_PLAIN, ...kept];
}

/**
 * customTags for the writer: values keep the core schema's plain forms, and a string that go-yaml
 * v2 could read as something else is quoted, so that what we write reads back the same.
 */
export function goYamlWriteTags(tags: Tags): Tags {
  return [...tags, GO_PLAIN];
}
