// The descriptions the OpenAPI documents carry (what `kubectl explain` prints): the reference's
// own text for each type and field (reference-descriptions.ts, generated from its /openapi/v3 by
// scripts/reference-openapi-fixture.mjs), with the profile's names where the text names a
// reserved one: first the names of the names table (signers, labels, taints, annotations, groups),
// then any other name under the reference's label domain (`kubernetes.io/x`, `node.kubernetes.io/x`)
// or an API group under its group domain (`node.k8s.io`). Links to the reference's documentation
// (http and https URLs) and Go module paths (sigs.k8s.io) are kept as written.

import { namesFor, type Names } from '../../common/names.js';
import {
  REFERENCE_DESCRIPTIONS,
  type ReferenceDescriptions,
  type TypeDescriptions,
} from './reference-descriptions.js';

export type { ReferenceDescriptions, TypeDescriptions } from './reference-descriptions.js';

/** The descriptions of a definition (`io.k8s.api.core.v1.Pod`) under a profile, or undefined. */
export type Describe = (definition: string) => TypeDescriptions | undefined;

const URL = /https?:\/\/[^\s"'`)]+/g;
/** Domains that are not reserved names: Go module paths and the reference's git host. */
const KEPT_GROUP_PREFIXES = new Set(['sigs.', 'git.']);

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The string leaves of the names table's reserved-name sections, in the same order for any profile. */
function reservedNames(n: Names): string[] {
  return [n.groups, n.signers, n.labels, n.taints, n.annotations].flatMap((section) =>
    Object.values<string>(section),
  );
}

/** A function rewriting the kubernetes profile's reserved names in a text to those of `names`. */
export function substituteNames(names: Names): (text: string) => string {
  if (names.profile === 'kubernetes') return (text) => text;
  const from = reservedNames(namesFor('kubernetes'));
  const to = reservedNames(names);
  const exact = new Map<string, string>();
  from.forEach((k, i) => exact.set(k, to[i] ?? k));
  const alternatives = [...exact.keys()].sort((a, b) => b.length - a.length).map(escapeRegExp);
  const pattern = new RegExp(
    `(${alternatives.join('|')})|\\b((?:[a-z0-9-]+\\.)*)kubernetes\\.io\\b|\\b((?:[a-z0-9-]+\\.)+)k8s\\.io\\b`,
    'g',
  );
  const replace = (
    m: string,
    name: string | undefined,
    labelSub: string | undefined,
    groupSub: string | undefined,
  ): string => {
    if (name !== undefined) return exact.get(name) ?? name;
    if (labelSub !== undefined) return `${labelSub}${names.labelDomain}`;
    if (groupSub !== undefined && !KEPT_GROUP_PREFIXES.has(groupSub))
      return `${groupSub}${names.groupDomain}`;
    return m;
  };
  const outsideUrls = (part: string): string => part.replace(pattern, replace);
  return (text) => {
    let out = '';
    let at = 0;
    for (const m of text.matchAll(URL)) {
      out += outsideUrls(text.slice(at, m.index)) + m[0];
      at = m.index + m[0].length;
    }
    return out + outsideUrls(text.slice(at));
  };
}

/** The reference's descriptions under a profile's names (each definition substituted once, when first asked). */
export function describerFor(
  names: Names,
  source: ReferenceDescriptions = REFERENCE_DESCRIPTIONS,
): Describe {
  const sub = substituteNames(names);
  const cache = new Map<string, TypeDescriptions | undefined>();
  return (definition) => {
    if (cache.has(definition)) return cache.get(definition);
    const d = Object.hasOwn(source, definition) ? source[definition] : undefined;
    const out: TypeDescriptions | undefined =
      d === undefined
        ? undefined
        : {
            ...(d.type === undefined ? {} : { type: sub(d.type) }),
            ...(d.fields === undefined
              ? {}
              : {
                  fields: Object.fromEntries(Object.entries(d.fields).map(([k, v]) => [k, sub(v)])),
                }),
          };
    cache.set(definition, out);
    return out;
  };
}
