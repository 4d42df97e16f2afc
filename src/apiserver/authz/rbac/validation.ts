// The reference's RBAC validation (pkg/apis/rbac/validation): names are path segments; a rule
// needs verbs and either resources (with apiGroups) or nonResourceURLs (never both, and never in
// a namespaced Role); a binding's roleRef names a Role or ClusterRole of the RBAC group and may
// not change; subjects are User, Group (of the RBAC group) or ServiceAccount (core). Verb names
// are not checked, as the reference does not check them.

import type { FieldErrorLike } from '../../status.js';
import { isDns1123Subdomain, isPathSegmentName, validateObjectMeta } from '../../registry/meta.js';
import { objAt, str, type Obj } from '../../registry/types.js';
import { isStringList, isRecord } from '../../../common/util/json-shape.js';

function list(v: unknown): unknown[] | undefined {
  return Array.isArray(v) ? v : undefined;
}

function checkStringList(o: Obj, key: string, path: string, errs: FieldErrorLike[]): string[] {
  const v = o[key];
  if (v === undefined || v === null) return [];
  if (!isStringList(v)) {
    errs.push({
      type: 'FieldValueInvalid',
      field: `${path}.${key}`,
      value: v,
      detail: 'must be a list of strings',
    });
    return [];
  }
  return v;
}

/** One rule: verbs, and either non-resource URLs (cluster rules only) or groups and resources. */
function validateRule(raw: unknown, p: string, namespaced: boolean, errs: FieldErrorLike[]): void {
  if (!isRecord(raw)) {
    errs.push({ type: 'FieldValueInvalid', field: p, value: raw, detail: 'must be an object' });
    return;
  }
  const r = raw;
  const verbs = checkStringList(r, 'verbs', p, errs);
  const groups = checkStringList(r, 'apiGroups', p, errs);
  const resources = checkStringList(r, 'resources', p, errs);
  const names = checkStringList(r, 'resourceNames', p, errs);
  const urls = checkStringList(r, 'nonResourceURLs', p, errs);
  if (verbs.length === 0)
    errs.push({
      type: 'FieldValueRequired',
      field: `${p}.verbs`,
      detail: 'verbs must contain at least one value',
    });
  if (urls.length > 0) {
    if (namespaced)
      errs.push({
        type: 'FieldValueInvalid',
        field: `${p}.nonResourceURLs`,
        value: urls,
        detail: 'namespaced rules cannot apply to non-resource URLs',
      });
    if (groups.length > 0 || resources.length > 0 || names.length > 0) {
      errs.push({
        type: 'FieldValueInvalid',
        field: `${p}.nonResourceURLs`,
        value: urls,
        detail: 'rules cannot apply to both regular resources and non-resource URLs',
      });
    }
    return;
  }
  if (groups.length === 0)
    errs.push({
      type: 'FieldValueRequired',
      field: `${p}.apiGroups`,
      detail: 'resource rules must supply at least one api group',
    });
  if (resources.length === 0)
    errs.push({
      type: 'FieldValueRequired',
      field: `${p}.resources`,
      detail: 'resource rules must supply at least one resource',
    });
}

export function validateRules(obj: Obj, namespaced: boolean): FieldErrorLike[] {
  const errs: FieldErrorLike[] = [];
  const rules = obj['rules'];
  if (rules === undefined || rules === null) return errs;
  const l = list(rules);
  if (l === undefined)
    return [
      {
        type: 'FieldValueInvalid',
        field: 'rules',
        value: rules,
        detail: 'must be a list of rules',
      },
    ];
  l.forEach((raw, i) => validateRule(raw, `rules[${i}]`, namespaced, errs));
  return errs;
}

export function validateRole(obj: Obj, namespaced: boolean): FieldErrorLike[] {
  const errs = validateObjectMeta(obj, namespaced, isPathSegmentName);
  errs.push(...validateRules(obj, namespaced));
  if (!namespaced) errs.push(...validateAggregationRule(obj));
  return errs;
}

function validateAggregationRule(obj: Obj): FieldErrorLike[] {
  const agg = obj['aggregationRule'];
  if (agg === undefined || agg === null) return [];
  const sel = objAt(obj, 'aggregationRule')?.['clusterRoleSelectors'];
  if (sel !== undefined && sel !== null && list(sel) === undefined) {
    return [
      {
        type: 'FieldValueInvalid',
        field: 'aggregationRule.clusterRoleSelectors',
        value: sel,
        detail: 'must be a list of label selectors',
      },
    ];
  }
  const errs: FieldErrorLike[] = [];
  (list(sel) ?? []).forEach((s, i) => {
    if (s === null || typeof s !== 'object' || Array.isArray(s))
      errs.push({
        type: 'FieldValueInvalid',
        field: `aggregationRule.clusterRoleSelectors[${i}]`,
        value: s,
        detail: 'must be a label selector',
      });
  });
  return errs;
}

function validateSubject(s: unknown, i: number, rbacGroup: string, errs: FieldErrorLike[]): void {
  const p = `subjects[${i}]`;
  if (!isRecord(s)) {
    errs.push({ type: 'FieldValueInvalid', field: p, value: s, detail: 'must be an object' });
    return;
  }
  const o = s;
  const name = str(o['name']) ?? '';
  const kind = str(o['kind']) ?? '';
  const group = str(o['apiGroup']) ?? '';
  if (name === '') errs.push({ type: 'FieldValueRequired', field: `${p}.name`, detail: '' });
  if (kind === 'ServiceAccount') {
    if (name !== '')
      for (const m of isDns1123Subdomain(name))
        errs.push({ type: 'FieldValueInvalid', field: `${p}.name`, value: name, detail: m });
    if (group !== '')
      errs.push({
        type: 'FieldValueNotSupported',
        field: `${p}.apiGroup`,
        value: group,
        detail: 'supported values: ""',
      });
  } else if (kind === 'User' || kind === 'Group') {
    if (group !== rbacGroup)
      errs.push({
        type: 'FieldValueNotSupported',
        field: `${p}.apiGroup`,
        value: group,
        detail: `supported values: "${rbacGroup}"`,
      });
  } else {
    errs.push({
      type: 'FieldValueNotSupported',
      field: `${p}.kind`,
      value: kind,
      detail: 'supported values: "ServiceAccount", "User", "Group"',
    });
  }
}

export function validateBinding(
  obj: Obj,
  namespaced: boolean,
  rbacGroup: string,
): FieldErrorLike[] {
  const errs = validateObjectMeta(obj, namespaced, isPathSegmentName);
  const ref = objAt(obj, 'roleRef') ?? {};
  const group = str(ref['apiGroup']) ?? '';
  const kind = str(ref['kind']) ?? '';
  const name = str(ref['name']) ?? '';
  if (group !== rbacGroup)
    errs.push({
      type: 'FieldValueNotSupported',
      field: 'roleRef.apiGroup',
      value: group,
      detail: `supported values: "${rbacGroup}"`,
    });
  const kinds = namespaced ? ['Role', 'ClusterRole'] : ['ClusterRole'];
  if (!kinds.includes(kind))
    errs.push({
      type: 'FieldValueNotSupported',
      field: 'roleRef.kind',
      value: kind,
      detail: `supported values: ${kinds.map((k) => `"${k}"`).join(', ')}`,
    });
  if (name === '') errs.push({ type: 'FieldValueRequired', field: 'roleRef.name', detail: '' });
  else
    for (const m of isPathSegmentName(name))
      errs.push({ type: 'FieldValueInvalid', field: 'roleRef.name', value: name, detail: m });
  const subjects = obj['subjects'];
  if (subjects !== undefined && subjects !== null) {
    const l = list(subjects);
    if (l === undefined)
      errs.push({
        type: 'FieldValueInvalid',
        field: 'subjects',
        value: subjects,
        detail: 'must be a list of subjects',
      });
    else l.forEach((s, i) => validateSubject(s, i, rbacGroup, errs));
  }
  return errs;
}

export function validateBindingUpdate(
  obj: Obj,
  old: Obj,
  namespaced: boolean,
  rbacGroup: string,
): FieldErrorLike[] {
  const errs = validateBinding(obj, namespaced, rbacGroup);
  if (JSON.stringify(obj['roleRef']) !== JSON.stringify(old['roleRef'])) {
    errs.push({
      type: 'FieldValueInvalid',
      field: 'roleRef',
      value: obj['roleRef'],
      detail: 'cannot change roleRef',
    });
  }
  return errs;
}
