// The bootstrap policy, reconciled at every start as the reference's (pkg/registry/rbac/
// reconciliation): missing roles and bindings are created; existing ones get the rules, subjects,
// labels, annotations and aggregation selectors they lack, and nothing is removed; an object
// annotated `<autoupdate annotation>: "false"` is left exactly as its user made it. The policy is
// the reference's own data (reference-policy.generated.ts, written by scripts/gen-rbac-policy.mjs),
// translated to our names.

import { isDeepStrictEqual } from 'node:util';
import type { Logger } from '../../../common/log/types.js';
import type { UserInfo } from '../../../common/auth/user.js';
import type { Registry } from '../../registry/registry.js';
import { metaOf, objAt, str, type Obj, type ResourceDef } from '../../registry/types.js';
import { StatusError } from '../../status.js';
import type { RbacNames } from './names.js';
import { REFERENCE_POLICY } from './reference-policy.generated.js';
import type { RbacDefs } from './resources.js';
import { ruleToObject, rulesOf, uncoveredRules } from './rules.js';
import { recordOf, stringRecordOf, listOf } from '../../../common/util/json-shape.js';

const SYSTEM_USER: UserInfo = { username: 'system:apiserver', groups: ['system:masters'] };

function translateDeep(v: unknown, t: (s: string) => string): unknown {
  if (typeof v === 'string') return t(v);
  if (Array.isArray(v)) return v.map((x) => translateDeep(x, t));
  if (v !== null && typeof v === 'object')
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [t(k), translateDeep(x, t)]));
  return v;
}

/** The reference's bootstrap roles and bindings under our names. */
export function bootstrapPolicy(names: RbacNames): Obj[] {
  return REFERENCE_POLICY.map((o) => recordOf(translateDeep(o, (s) => names.translate(s))));
}

function stringMap(o: Obj, key: 'labels' | 'annotations'): Record<string, string> {
  return stringRecordOf(metaOf(o)[key]);
}

/** Adds the expected labels and annotations that are absent (existing values win). */
function mergeMeta(next: Obj, expected: Obj): void {
  for (const key of ['labels', 'annotations'] as const) {
    const merged = { ...stringMap(expected, key), ...stringMap(next, key) };
    if (Object.keys(merged).length > 0) metaOf(next)[key] = merged;
  }
}

/** The reconciled role, or undefined when the existing one already has everything expected. */
export function reconcileRole(existing: Obj, expected: Obj): Obj | undefined {
  const next = structuredClone(existing);
  mergeMeta(next, expected);
  const missing = uncoveredRules(rulesOf(existing['rules']), rulesOf(expected['rules']));
  if (missing.length > 0)
    next['rules'] = [...listOf(existing['rules']), ...missing.map(ruleToObject)];
  const wantAgg = objAt(expected, 'aggregationRule');
  if (wantAgg !== undefined) {
    const have = listOf(objAt(existing, 'aggregationRule')?.['clusterRoleSelectors']);
    const want = listOf(wantAgg['clusterRoleSelectors']);
    const add = want.filter((w) => !have.some((h) => isDeepStrictEqual(h, w)));
    if (add.length > 0 || objAt(existing, 'aggregationRule') === undefined)
      next['aggregationRule'] = { clusterRoleSelectors: [...have, ...add] };
  }
  return isDeepStrictEqual(next, existing) ? undefined : next;
}

/**
 * The reconciled binding (missing subjects added), 'recreate' when its roleRef differs, or
 * undefined.
 */
export function reconcileBinding(existing: Obj, expected: Obj): Obj | 'recreate' | undefined {
  if (!isDeepStrictEqual(existing['roleRef'], expected['roleRef'])) return 'recreate';
  const next = structuredClone(existing);
  mergeMeta(next, expected);
  const have = listOf(existing['subjects']);
  const want = listOf(expected['subjects']);
  const add = want.filter((w) => !have.some((h) => isDeepStrictEqual(h, w)));
  if (add.length > 0) next['subjects'] = [...have, ...add];
  return isDeepStrictEqual(next, existing) ? undefined : next;
}

export interface BootstrapOptions {
  readonly registry: Registry;
  readonly defs: RbacDefs;
  readonly names: RbacNames;
  readonly logger: Logger;
}

function defFor(defs: RbacDefs, kind: unknown): ResourceDef | undefined {
  return kind === 'ClusterRole'
    ? defs.clusterRole
    : kind === 'Role'
      ? defs.role
      : kind === 'ClusterRoleBinding'
        ? defs.clusterRoleBinding
        : kind === 'RoleBinding'
          ? defs.roleBinding
          : undefined;
}

/** Creates or reconciles every bootstrap object; returns how many were created and updated. */
export async function reconcileBootstrapPolicy(o: BootstrapOptions): Promise<{
  created: number;
  updated: number;
  protected: number;
  unchanged: number;
  unreadable: number;
}> {
  const counts = { created: 0, updated: 0, protected: 0, unchanged: 0, unreadable: 0 };
  for (const expected of bootstrapPolicy(o.names)) {
    const def = defFor(o.defs, expected['kind']);
    if (def === undefined) continue;
    const result = await reconcileOne(o, def, expected);
    counts[result]++;
  }
  o.logger.info(counts, 'RBAC bootstrap policy reconciled');
  return counts;
}

/**
 * The stored object, undefined when there is none, or 'unreadable': an unreadable stored object
 * (its encryption key is gone) stays as it is: the cache has already said so, and only its owner
 * can decide to delete it.
 */
async function readExisting(
  o: BootstrapOptions,
  def: ResourceDef,
  ns: string,
  name: string,
): Promise<Obj | undefined | 'unreadable'> {
  try {
    return await o.registry.get(def, ns, name);
  } catch (err) {
    if (err instanceof StatusError && err.reason === 'StorageReadError') return 'unreadable';
    if (!(err instanceof StatusError) || err.status !== 404) throw err;
    return undefined;
  }
}

const SYSTEM_DELETE = {
  user: SYSTEM_USER,
  dryRun: false,
  gracePeriodSeconds: undefined,
  preconditions: undefined,
  propagationPolicy: undefined,
  orphanDependents: undefined,
  ignoreStoreReadError: false,
};

async function reconcileOne(
  o: BootstrapOptions,
  def: ResourceDef,
  expected: Obj,
): Promise<'created' | 'updated' | 'protected' | 'unchanged' | 'unreadable'> {
  const meta = metaOf(expected);
  const ns = str(meta['namespace']) ?? '';
  const name = str(meta['name']) ?? '';
  const write = {
    user: SYSTEM_USER,
    dryRun: false,
    fieldManager: 'plat-apiserver',
    subresource: '',
  };
  const existing = await readExisting(o, def, ns, name);
  if (existing === 'unreadable') return 'unreadable';
  if (existing === undefined) {
    await o.registry.create(def, ns, expected, write);
    return 'created';
  }
  if (stringMap(existing, 'annotations')[o.names.autoupdateAnnotation] === 'false') {
    o.logger.info(
      { kind: def.kind, namespace: ns, name },
      `RBAC bootstrap: ${def.kind} ${name} is annotated ` +
        `${o.names.autoupdateAnnotation}=false; left as it is`,
    );
    return 'protected';
  }
  const next =
    def === o.defs.role || def === o.defs.clusterRole
      ? reconcileRole(existing, expected)
      : reconcileBinding(existing, expected);
  if (next === undefined) return 'unchanged';
  if (next === 'recreate') {
    o.logger.warn(
      { kind: def.kind, namespace: ns, name },
      `RBAC bootstrap: ${def.kind} ${name} refers to another role; recreated with the ` +
        `bootstrap roleRef`,
    );
    await o.registry.delete(def, ns, name, SYSTEM_DELETE);
    await o.registry.create(def, ns, expected, write);
    return 'updated';
  }
  await o.registry.update(def, ns, name, { ...write, allowCreate: false }, () => next);
  return 'updated';
}
