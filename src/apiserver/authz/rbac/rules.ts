// PolicyRule semantics as the reference's (pkg/apis/rbac/v1/evaluation_helpers.go and
// pkg/registry/rbac/validation/policy_comparator.go): whether a rule allows a request, whether a
// set of rules covers another (the escalation check), and the compact text of a rule used in the
// escalation message.

import type { PolicyRule, RequestAttributes } from '../../interfaces.js';
import { recordOf } from '../../../common/util/json-shape.js';

export type { PolicyRule };

type Obj = Record<string, unknown>;

function strings(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}

/** Reads a stored rule (the object was validated on write; absent lists read as empty). */
export function ruleOf(v: unknown): PolicyRule {
  const o = recordOf(v);
  return {
    verbs: strings(o['verbs']),
    apiGroups: strings(o['apiGroups']),
    resources: strings(o['resources']),
    resourceNames: strings(o['resourceNames']),
    nonResourceURLs: strings(o['nonResourceURLs']),
  };
}

export function rulesOf(v: unknown): PolicyRule[] {
  return Array.isArray(v) ? v.map(ruleOf) : [];
}

/** The rule as the API writes it (empty lists left out). */
export function ruleToObject(r: PolicyRule): Obj {
  const o: Obj = { verbs: [...r.verbs] };
  if (r.apiGroups.length > 0) o['apiGroups'] = [...r.apiGroups];
  if (r.resources.length > 0) o['resources'] = [...r.resources];
  if (r.resourceNames.length > 0) o['resourceNames'] = [...r.resourceNames];
  if (r.nonResourceURLs.length > 0) o['nonResourceURLs'] = [...r.nonResourceURLs];
  return o;
}

const has = (list: readonly string[], v: string): boolean => list.includes(v);
const hasAll = (list: readonly string[], vs: readonly string[]): boolean =>
  vs.every((v) => list.includes(v));

export function verbMatches(r: PolicyRule, verb: string): boolean {
  return has(r.verbs, '*') || has(r.verbs, verb);
}

export function apiGroupMatches(r: PolicyRule, group: string): boolean {
  return has(r.apiGroups, '*') || has(r.apiGroups, group);
}

// `combined` is `resource[/subresource]`; a rule resource `*/<sub>` matches that subresource of any
// resource.
export function resourceMatches(r: PolicyRule, combined: string, subresource: string): boolean {
  for (const res of r.resources) {
    if (res === '*' || res === combined) return true;
    if (subresource !== '' && res === `*/${subresource}`) return true;
  }
  return false;
}

export function resourceNameMatches(r: PolicyRule, name: string): boolean {
  return r.resourceNames.length === 0 || has(r.resourceNames, name);
}

/** `*`, an exact path, or a prefix ending in `*`. */
export function nonResourceUrlMatches(r: PolicyRule, path: string): boolean {
  return r.nonResourceURLs.some(
    (u) => u === '*' || u === path || (u.endsWith('*') && path.startsWith(u.replace(/\*+$/, ''))),
  );
}

export function ruleAllows(
  a: Pick<
    RequestAttributes,
    'verb' | 'isResourceRequest' | 'apiGroup' | 'resource' | 'subresource' | 'name' | 'path'
  >,
  r: PolicyRule,
): boolean {
  if (!a.isResourceRequest) return verbMatches(r, a.verb) && nonResourceUrlMatches(r, a.path);
  const combined = a.subresource === '' ? a.resource : `${a.resource}/${a.subresource}`;
  return (
    verbMatches(r, a.verb) &&
    apiGroupMatches(r, a.apiGroup) &&
    resourceMatches(r, combined, a.subresource) &&
    resourceNameMatches(r, a.name)
  );
}

/**
 * One rule per (group, resource, verb[, name]) and per (url, verb), as the reference's
 * BreakdownRule.
 */
export function breakdownRule(r: PolicyRule): PolicyRule[] {
  const out: PolicyRule[] = [];
  const one = (p: Partial<PolicyRule>): PolicyRule => ({
    verbs: [],
    apiGroups: [],
    resources: [],
    resourceNames: [],
    nonResourceURLs: [],
    ...p,
  });
  for (const g of r.apiGroups) {
    for (const res of r.resources) {
      for (const v of r.verbs) {
        if (r.resourceNames.length > 0)
          for (const n of r.resourceNames)
            out.push(one({ apiGroups: [g], resources: [res], verbs: [v], resourceNames: [n] }));
        else out.push(one({ apiGroups: [g], resources: [res], verbs: [v] }));
      }
    }
  }
  for (const u of r.nonResourceURLs)
    for (const v of r.verbs) out.push(one({ nonResourceURLs: [u], verbs: [v] }));
  return out;
}

function resourceCoversAll(set: readonly string[], covers: readonly string[]): boolean {
  if (has(set, '*') || hasAll(set, covers)) return true;
  return covers.every((path) => {
    if (has(set, path)) return true;
    const slash = path.indexOf('/');
    return slash >= 0 && has(set, `*/${path.slice(slash + 1)}`);
  });
}

function nonResourceUrlCovers(owner: string, sub: string): boolean {
  return owner === sub || (owner.endsWith('*') && sub.startsWith(owner.replace(/\*+$/, '')));
}

function ruleCovers(owner: PolicyRule, sub: PolicyRule): boolean {
  const verbs = has(owner.verbs, '*') || hasAll(owner.verbs, sub.verbs);
  const groups = has(owner.apiGroups, '*') || hasAll(owner.apiGroups, sub.apiGroups);
  const resources = resourceCoversAll(owner.resources, sub.resources);
  const urls = sub.nonResourceURLs.every((p) =>
    owner.nonResourceURLs.some((o) => nonResourceUrlCovers(o, p)),
  );
  const names =
    sub.resourceNames.length === 0
      ? owner.resourceNames.length === 0
      : owner.resourceNames.length === 0 || hasAll(owner.resourceNames, sub.resourceNames);
  return verbs && groups && resources && names && urls;
}

/** The broken-down parts of `rules` that no rule of `owner` covers (empty: covered). */
export function uncoveredRules(
  owner: readonly PolicyRule[],
  rules: readonly PolicyRule[],
): PolicyRule[] {
  const missing: PolicyRule[] = [];
  for (const r of rules)
    for (const sub of breakdownRule(r))
      if (!owner.some((o) => ruleCovers(o, sub))) missing.push(sub);
  return missing;
}

/** Merges rules that differ only in verbs (one group, one resource, at most one name). */
export function compactRules(rules: readonly PolicyRule[]): PolicyRule[] {
  const out: PolicyRule[] = [];
  const simple = new Map<string, { verbs: string[]; rule: PolicyRule }>();
  for (const r of rules) {
    const isSimple =
      r.apiGroups.length === 1 &&
      r.resources.length === 1 &&
      r.resourceNames.length <= 1 &&
      r.nonResourceURLs.length === 0;
    if (!isSimple) {
      out.push(r);
      continue;
    }
    const key = JSON.stringify([r.apiGroups[0], r.resources[0], r.resourceNames[0] ?? '']);
    const seen = simple.get(key);
    if (seen !== undefined) seen.verbs.push(...r.verbs);
    else simple.set(key, { verbs: [...r.verbs], rule: r });
  }
  for (const { verbs, rule } of simple.values()) out.push({ ...rule, verbs });
  return out;
}

/** Go's %q of a []string: `["a" "b"]`. */
export function goQuotedList(list: readonly string[]): string {
  return `[${list.map((s) => JSON.stringify(s)).join(' ')}]`;
}

/**
 * The reference's PolicyRule.CompactString: `{APIGroups:[""], Resources:["pods"], Verbs:["get"]}`.
 */
export function compactString(r: PolicyRule): string {
  const parts: string[] = [];
  if (r.apiGroups.length > 0) parts.push(`APIGroups:${goQuotedList(r.apiGroups)}`);
  if (r.resources.length > 0) parts.push(`Resources:${goQuotedList(r.resources)}`);
  if (r.nonResourceURLs.length > 0)
    parts.push(`NonResourceURLs:${goQuotedList(r.nonResourceURLs)}`);
  if (r.resourceNames.length > 0) parts.push(`ResourceNames:${goQuotedList(r.resourceNames)}`);
  if (r.verbs.length > 0) parts.push(`Verbs:${goQuotedList(r.verbs)}`);
  return `{${parts.join(', ')}}`;
}
