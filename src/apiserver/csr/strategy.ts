// What the server does to a CertificateSigningRequest before validating a write (the reference's
// csr strategies): who made it on create, what a write to each endpoint may change. Each function
// changes `newObj` in place and returns it.

import type { UserInfo } from '../../common/auth/user.js';
import { asRecord, conditionsOf, deepClone, formatTime, type Condition } from './object.js';

/** Create: spec.username/uid/groups/extra come from the caller only; status starts empty. */
export function prepareCsrForCreate(
  obj: Record<string, unknown>,
  user: UserInfo,
): Record<string, unknown> {
  const spec = { ...asRecord(obj['spec']) };
  delete spec['username'];
  delete spec['uid'];
  delete spec['groups'];
  delete spec['extra'];
  spec['username'] = user.username;
  if (user.uid !== undefined && user.uid !== '') spec['uid'] = user.uid;
  if (user.groups.length > 0) spec['groups'] = [...user.groups];
  if (user.extra !== undefined && Object.keys(user.extra).length > 0) {
    const extra: Record<string, string[]> = {};
    for (const [k, v] of Object.entries(user.extra)) extra[k] = [...v];
    spec['extra'] = extra;
  }
  obj['spec'] = spec;
  obj['status'] = {};
  return obj;
}

/** PUT/PATCH of the main resource: only metadata changes; spec and status come from storage. */
export function prepareCsrForUpdate(
  newObj: Record<string, unknown>,
  oldObj: Record<string, unknown>,
): Record<string, unknown> {
  setOrDelete(newObj, 'spec', oldObj['spec']);
  setOrDelete(newObj, 'status', oldObj['status']);
  return newObj;
}

/**
 * /status: the spec is kept; existing Approved/Denied conditions are kept as stored when the
 * writer sent the same number of them (a status writer cannot edit an approval; adding or
 * removing one is left for validation to reject); missing condition times are filled.
 */
export function prepareCsrForStatusUpdate(
  newObj: Record<string, unknown>,
  oldObj: Record<string, unknown>,
  now: Date,
): Record<string, unknown> {
  setOrDelete(newObj, 'spec', oldObj['spec']);
  const status = { ...asRecord(newObj['status']) };
  const conds = conditionsOf(newObj).map((c) => ({ ...c }));
  const oldConds = conditionsOf(oldObj);
  for (const type of ['Approved', 'Denied']) {
    const oldIdx = indicesOf(oldConds, type);
    const newIdx = indicesOf(conds, type);
    if (oldIdx.length !== newIdx.length) continue;
    newIdx.forEach((ni, i) => {
      const o = oldConds[oldIdx[i] ?? -1];
      if (o !== undefined) conds[ni] = deepClone(o);
    });
  }
  if (conds.length > 0 || 'conditions' in status) status['conditions'] = conds;
  newObj['status'] = status;
  fillConditionTimes(conds, oldConds, now);
  return newObj;
}

function indicesOf(conds: readonly Condition[], type: string): number[] {
  const out: number[] = [];
  conds.forEach((c, i) => {
    if (c.type === type) out.push(i);
  });
  return out;
}

/** /approval: only status.conditions is taken from the body. */
export function prepareCsrForApprovalUpdate(
  newObj: Record<string, unknown>,
  oldObj: Record<string, unknown>,
  now: Date,
): Record<string, unknown> {
  setOrDelete(newObj, 'spec', oldObj['spec']);
  const conds = conditionsOf(newObj).map((c) => ({ ...c }));
  const status = { ...asRecord(deepClone(oldObj['status'])) };
  if (conds.length > 0) status['conditions'] = conds;
  else delete status['conditions'];
  newObj['status'] = status;
  fillConditionTimes(conds, conditionsOf(oldObj), now);
  return newObj;
}

function isZeroTime(v: unknown): boolean {
  return v === undefined || v === null || v === '';
}

/**
 * Missing lastUpdateTime becomes now; missing lastTransitionTime is kept from an existing condition
 * of the same type and status, or becomes now.
 */
export function fillConditionTimes(
  conds: Condition[],
  oldConds: readonly Condition[],
  now: Date,
): void {
  const t = formatTime(now);
  for (const c of conds) {
    if (isZeroTime(c.lastUpdateTime)) c.lastUpdateTime = t;
    if (isZeroTime(c.lastTransitionTime)) {
      const prior = oldConds.find(
        (o) => o.type === c.type && o.status === c.status && !isZeroTime(o.lastTransitionTime),
      );
      c.lastTransitionTime = prior?.lastTransitionTime ?? t;
    }
  }
}

function setOrDelete(obj: Record<string, unknown>, key: string, v: unknown): void {
  if (v === undefined) Reflect.deleteProperty(obj, key);
  else obj[key] = deepClone(v);
}
