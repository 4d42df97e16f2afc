// metadata.managedFields bookkeeping: which manager owns which fields. Every write records an
// entry {manager, operation: Update|Apply, apiVersion, time, fieldsType: FieldsV1, fieldsV1,
// subresource}. An Update takes the fields it changed from everyone else; an Apply owns exactly
// what it sets, conflicts with other owners of fields it changes, and removes the fields it set
// before but no longer sets (when nobody else owns them).

import { formatFieldErrors, invalid, tooLong, type FieldError } from '../field-errors.js';
import { PatchError } from './errors.js';
import {
  FieldSet,
  fromFieldsV1,
  pathString,
  toFieldsV1,
  fieldPE,
  type FieldPath,
} from './fieldset.js';
import { createdFieldsV1 } from './created-fields.js';
import { KINDS_WITH_STATUS } from './meta.js';
import {
  compare,
  deepEqual,
  isObject,
  mergeApplied,
  removePath,
  toFieldSet,
  type Comparison,
} from './typed.js';
import { recordOf } from '../../common/util/json-shape.js';

type Obj = Record<string, unknown>;
export type ManagedFieldsOperation = 'Update' | 'Apply';

export interface ManagerEntry {
  manager: string;
  operation: ManagedFieldsOperation;
  apiVersion: string;
  time?: string;
  subresource: string;
  set: FieldSet;
}

export interface ManagedFieldsEntryJson {
  manager: string;
  operation: ManagedFieldsOperation;
  apiVersion: string;
  time?: string;
  fieldsType: 'FieldsV1';
  fieldsV1: unknown;
  subresource?: string;
}

export const FIELD_MANAGER_MAX_LENGTH = 128;
const MAX_UPDATE_MANAGERS = 10;

/** Fields no manager owns: identity and server-maintained metadata. */
const STRIPPED: readonly FieldPath[] = [
  ['f:apiVersion'],
  ['f:kind'],
  ['f:metadata', 'f:name'],
  ['f:metadata', 'f:namespace'],
  ['f:metadata', 'f:creationTimestamp'],
  ['f:metadata', 'f:selfLink'],
  ['f:metadata', 'f:uid'],
  ['f:metadata', 'f:generation'],
  ['f:metadata', 'f:managedFields'],
  ['f:metadata', 'f:resourceVersion'],
  ['f:metadata', 'f:deletionTimestamp'],
  ['f:metadata', 'f:deletionGracePeriodSeconds'],
];

/**
 * What a write to `subresource` of `kind` can never own (the reset fields of the reference's
 * strategies).
 */
export function ignoredPaths(kind: string, subresource: string): FieldPath[] {
  const out = [...STRIPPED];
  if (kind === 'CertificateSigningRequest') {
    // The CSR strategies' reset fields: /status owns neither spec nor the conditions,
    // /approval neither spec nor the certificate.
    if (subresource === '') out.push([fieldPE('status')]);
    else if (subresource === 'status')
      out.push([fieldPE('spec')], [fieldPE('status'), fieldPE('conditions')]);
    else out.push([fieldPE('spec')], [fieldPE('status'), fieldPE('certificate')]);
  } else if (KINDS_WITH_STATUS.has(kind)) {
    if (subresource === '') out.push([fieldPE('status')]);
    else out.push([fieldPE('spec')]);
  }
  return out;
}

export function formatTime(d: Date): string {
  return `${d.toISOString().slice(0, 19)}Z`;
}

/** The User-Agent up to its first '/', as the default field manager (printable, at most 128). */
export function defaultFieldManager(userAgent: string | undefined): string {
  const prefix = (userAgent ?? '').split('/')[0] ?? '';
  // code points (Go ranges over a string's runes), not grapheme clusters
  return Array.from(prefix)
    .filter((c) => isPrintable(c))
    .join('')
    .slice(0, FIELD_MANAGER_MAX_LENGTH);
}

function isPrintable(c: string): boolean {
  return /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u.test(c);
}

/** Problems of a fieldManager value: at most 128 characters, printable only. */
export function validateFieldManager(s: string): FieldError[] {
  const errs: FieldError[] = [];
  if (Buffer.byteLength(s) > FIELD_MANAGER_MAX_LENGTH)
    errs.push(tooLong('fieldManager', s, FIELD_MANAGER_MAX_LENGTH));
  let pos = 0;
  for (const c of s) {
    if (!isPrintable(c)) {
      const cp = (c.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0');
      errs.push(invalid('fieldManager', s, `invalid character U+${cp} (at position ${pos})`));
    }
    pos += Buffer.byteLength(c);
  }
  return errs;
}

function identity(
  e: Pick<ManagerEntry, 'manager' | 'operation' | 'subresource' | 'apiVersion'>,
): string {
  return JSON.stringify([
    e.manager,
    e.operation,
    e.subresource,
    e.operation === 'Apply' ? '' : e.apiVersion,
  ]);
}

/** Reads metadata.managedFields; malformed entries are dropped (the reference resets them). */
export function parseManagedFields(obj: unknown): ManagerEntry[] {
  const md = isObject(obj) ? obj['metadata'] : undefined;
  const list = isObject(md) ? md['managedFields'] : undefined;
  if (!Array.isArray(list)) return [];
  const out: ManagerEntry[] = [];
  for (const e of list) {
    if (!isObject(e)) continue;
    const op = e['operation'];
    if (op !== 'Update' && op !== 'Apply') continue;
    let set: FieldSet;
    try {
      set = fromFieldsV1(e['fieldsV1'] ?? {});
    } catch {
      continue;
    }
    const entry: ManagerEntry = {
      manager: typeof e['manager'] === 'string' ? e['manager'] : '',
      operation: op,
      apiVersion: typeof e['apiVersion'] === 'string' ? e['apiVersion'] : '',
      subresource: typeof e['subresource'] === 'string' ? e['subresource'] : '',
      set,
    };
    if (typeof e['time'] === 'string') entry.time = e['time'];
    out.push(entry);
  }
  return out;
}

/** Entries as stored, in the reference's order (Apply before Update, then time, manager, ...). */
export function encodeManagedFields(entries: readonly ManagerEntry[]): ManagedFieldsEntryJson[] {
  const sorted = [...entries].sort((p, q) => {
    if (p.operation !== q.operation) return p.operation < q.operation ? -1 : 1;
    const pt = p.time ?? '';
    const qt = q.time ?? '';
    if (pt !== qt) return pt < qt ? -1 : 1;
    if (p.manager !== q.manager) return p.manager < q.manager ? -1 : 1;
    if (p.apiVersion !== q.apiVersion) return p.apiVersion < q.apiVersion ? -1 : 1;
    return p.subresource < q.subresource ? -1 : p.subresource > q.subresource ? 1 : 0;
  });
  return sorted.map((e) => {
    // The reference's field order (ManagedFieldsEntry): manager, operation, apiVersion, time,
    // fieldsType, fieldsV1, subresource.
    const j: ManagedFieldsEntryJson = {
      manager: e.manager,
      operation: e.operation,
      apiVersion: e.apiVersion,
      ...(e.time !== undefined ? { time: e.time } : {}),
      fieldsType: 'FieldsV1',
      fieldsV1: toFieldsV1(e.set),
    };
    if (e.subresource !== '') j.subresource = e.subresource;
    return j;
  });
}

function setManagedFields(obj: Obj, entries: readonly ManagerEntry[]): void {
  const md = isObject(obj['metadata']) ? obj['metadata'] : {};
  const nonEmpty = entries.filter((e) => !e.set.empty);
  if (nonEmpty.length === 0) delete md['managedFields'];
  else md['managedFields'] = encodeManagedFields(nonEmpty);
  obj['metadata'] = md;
}

/** The reference merges the oldest Update managers into one when there are too many. */
function capUpdateManagers(entries: ManagerEntry[], now: string): ManagerEntry[] {
  const updates = entries.filter((e) => e.operation === 'Update');
  if (updates.length <= MAX_UPDATE_MANAGERS) return entries;
  updates.sort((a, b) => ((a.time ?? '') < (b.time ?? '') ? -1 : 1));
  const excess = updates.slice(0, updates.length - MAX_UPDATE_MANAGERS + 1);
  let set = new FieldSet();
  for (const e of excess) set = set.union(e.set);
  const rest = entries.filter((e) => !excess.includes(e));
  rest.push({
    manager: 'ancient-changes',
    operation: 'Update',
    apiVersion: excess[excess.length - 1]?.apiVersion ?? '',
    subresource: '',
    time: now,
    set,
  });
  return rest;
}

function stripForTracking(obj: unknown): Obj {
  if (!isObject(obj)) return {};
  const copy = { ...obj };
  if (isObject(copy['metadata'])) {
    const md = { ...copy['metadata'] };
    delete md['managedFields'];
    copy['metadata'] = md;
  }
  return copy;
}

/** The base entries for a write: the stored ones, or those the writer sent (`[{}]` clears them). */
function baseEntries(
  oldObj: Obj | undefined,
  newObj: Obj,
): { entries: ManagerEntry[]; reset: boolean } {
  const newMd = isObject(newObj['metadata']) ? newObj['metadata'] : {};
  const oldMd = oldObj !== undefined && isObject(oldObj['metadata']) ? oldObj['metadata'] : {};
  const sent = newMd['managedFields'];
  if (Array.isArray(sent) && sent.length > 0 && !deepEqual(sent, oldMd['managedFields'])) {
    if (sent.length === 1 && isObject(sent[0]) && Object.keys(sent[0]).length === 0)
      return { entries: [], reset: true };
    return { entries: parseManagedFields(newObj), reset: false };
  }
  return { entries: parseManagedFields(oldObj), reset: false };
}

export interface UpdateManagedFieldsOptions {
  readonly oldObj: Record<string, unknown> | undefined;
  readonly newObj: Record<string, unknown>;
  readonly manager: string;
  readonly operation: ManagedFieldsOperation;
  readonly subresource: string;
  readonly apiVersion: string;
  readonly now: Date;
  /** Defaults to newObj.kind. */
  readonly kind?: string;
}

/**
 * Records in newObj.metadata.managedFields the fields `manager` changed from oldObj (undefined on
 * create) to newObj. Idempotent: calling it again with the same oldObj gives the same result.
 * Returns newObj (changed in place).
 */
export function updateManagedFields(opts: UpdateManagedFieldsOptions): Record<string, unknown> {
  const kind = opts.kind ?? (typeof opts.newObj['kind'] === 'string' ? opts.newObj['kind'] : '');
  const { entries, reset } = baseEntries(opts.oldObj, opts.newObj);
  if (reset) {
    setManagedFields(opts.newObj, []);
    return opts.newObj;
  }
  const ignored = ignoredPaths(kind, opts.subresource);
  if (opts.oldObj === undefined && entries.length === 0) return recordCreate(opts, kind, ignored);
  const cmp = compare(kind, stripForTracking(opts.oldObj), stripForTracking(opts.newObj));
  const changed = cmp.added.union(cmp.modified).withoutPrefixes(ignored);
  const removed = cmp.removed.withoutPrefixes(ignored);
  const selfId = identity({
    manager: opts.manager,
    operation: opts.operation,
    subresource: opts.subresource,
    apiVersion: opts.apiVersion,
  });
  const now = formatTime(opts.now);
  let self: ManagerEntry | undefined;
  for (const e of entries) {
    if (identity(e) === selfId) self = e;
    else e.set = e.set.difference(changed).difference(removed);
  }
  if (self === undefined) {
    self = {
      manager: opts.manager,
      operation: opts.operation,
      apiVersion: opts.apiVersion,
      subresource: opts.subresource,
      set: new FieldSet(),
    };
    entries.push(self);
  }
  const before = self.set;
  self.set = self.set.difference(removed).union(changed);
  self.apiVersion = opts.apiVersion;
  if (!before.equals(self.set) || self.time === undefined) self.time = now;
  setManagedFields(opts.newObj, capUpdateManagers(entries, now));
  return opts.newObj;
}

/** A create with no entries sent: one entry owning every field it sets (created-fields.ts). */
function recordCreate(
  opts: UpdateManagedFieldsOptions,
  kind: string,
  ignored: readonly FieldPath[],
): Record<string, unknown> {
  const md = isObject(opts.newObj['metadata']) ? opts.newObj['metadata'] : {};
  const fieldsV1 = createdFieldsV1(kind, opts.newObj, ignored);
  if (fieldsV1 === undefined) delete md['managedFields'];
  else {
    const entry: ManagedFieldsEntryJson = {
      manager: opts.manager,
      operation: opts.operation,
      apiVersion: opts.apiVersion,
      time: formatTime(opts.now),
      fieldsType: 'FieldsV1',
      fieldsV1,
    };
    if (opts.subresource !== '') entry.subresource = opts.subresource;
    md['managedFields'] = [entry];
  }
  opts.newObj['metadata'] = md;
  return opts.newObj;
}

function printManager(e: ManagerEntry): string {
  let s = JSON.stringify(e.manager);
  if (e.subresource !== '') s += ` with subresource ${JSON.stringify(e.subresource)}`;
  if (e.operation === 'Update') s += ` using ${e.apiVersion}`;
  return s;
}

function conflictError(conflicts: { entry: ManagerEntry; path: FieldPath }[]): PatchError {
  const causes = conflicts.map((c) => ({
    reason: 'FieldManagerConflict',
    message: `conflict with ${printManager(c.entry)}`,
    field: pathString(c.path),
  }));
  let message: string;
  const first = conflicts[0];
  if (conflicts.length === 1 && first !== undefined) {
    message =
      `Apply failed with 1 conflict: conflict with ${printManager(first.entry)}: ` +
      pathString(first.path);
  } else {
    const byManager = new Map<string, { entry: ManagerEntry; paths: FieldPath[] }>();
    for (const c of conflicts) {
      const k = printManager(c.entry);
      const g = byManager.get(k) ?? { entry: c.entry, paths: [] };
      g.paths.push(c.path);
      byManager.set(k, g);
    }
    const lines: string[] = [];
    for (const k of [...byManager.keys()].sort()) {
      lines.push(`conflicts with ${k}:`);
      for (const p of byManager.get(k)?.paths ?? []) lines.push(`- ${pathString(p)}`);
    }
    message = `Apply failed with ${conflicts.length} conflicts: ${lines.join('\n')}`;
  }
  return new PatchError({ status: 409, reason: 'Conflict', message, causes });
}

/**
 * A key field of a keyed-list element (`k:{"name":"a"}` / `f:name`): it goes only with its element.
 */
function isKeyFieldOfElement(p: FieldPath): boolean {
  const parent = p[p.length - 2];
  const last = p[p.length - 1];
  if (
    parent === undefined ||
    last === undefined ||
    !parent.startsWith('k:') ||
    !last.startsWith('f:')
  )
    return false;
  try {
    const keys: unknown = JSON.parse(parent.slice(2));
    return isObject(keys) && Object.hasOwn(keys, last.slice(2));
  } catch {
    return false;
  }
}

export interface ServerSideApplyOptions {
  readonly live: Record<string, unknown> | undefined;
  /** The applied configuration, decoded. */
  readonly config: Record<string, unknown>;
  readonly kind: string;
  readonly manager: string;
  readonly force: boolean;
  readonly subresource: string;
  readonly apiVersion: string;
  readonly now: Date;
}

/** A 400 when the applied configuration sets metadata.managedFields. */
function refuseManagedFields(config: Record<string, unknown>): void {
  const cfgMd = config['metadata'];
  if (isObject(cfgMd) && cfgMd['managedFields'] !== undefined && cfgMd['managedFields'] !== null) {
    throw new PatchError({
      status: 400,
      reason: 'BadRequest',
      message: 'metadata.managedFields must be nil',
    });
  }
}

/** The live object's manager entries; an object written before any tracking gets one owner. */
function liveEntries(
  opts: ServerSideApplyOptions,
  liveStripped: Obj,
  ignored: readonly FieldPath[],
): ManagerEntry[] {
  const entries = parseManagedFields(opts.live);
  if (opts.live !== undefined && entries.length === 0) {
    // An object written before any field tracking: its fields belong to "before-first-apply".
    const set = toFieldSet(opts.kind, liveStripped).withoutPrefixes(ignored);
    if (!set.empty)
      entries.push({
        manager: 'before-first-apply',
        operation: 'Update',
        apiVersion: opts.apiVersion,
        subresource: '',
        set,
      });
  }
  return entries;
}

/** Removes what this applier set before and no longer sets, unless someone else owns it. */
function pruneDropped(
  kind: string,
  merged: Obj,
  lastSet: FieldSet,
  newSet: FieldSet,
  others: readonly ManagerEntry[],
): void {
  let ownedByOthers = new FieldSet();
  for (const e of others) ownedByOthers = ownedByOthers.union(e.set);
  const toRemove = lastSet.difference(newSet).sorted().reverse();
  for (const p of toRemove) {
    // Kept when someone else owns it or something under it, or when the new configuration sets
    // something under it (an empty map applied before, now with entries).
    if (ownedByOthers.hasPrefixOf(p) || newSet.hasPrefixOf(p) || isKeyFieldOfElement(p)) continue;
    removePath(kind, merged, p);
  }
}

/**
 * Takes the changed fields from the other managers: a 409 naming each field another manager owns,
 * unless forced (then they lose them). A manager's own Update entry never conflicts.
 */
function takeOwnership(
  opts: ServerSideApplyOptions,
  cmp: Comparison,
  ignored: readonly FieldPath[],
  others: readonly ManagerEntry[],
): void {
  const changed = cmp.added.union(cmp.modified).withoutPrefixes(ignored);
  const removed = cmp.removed.withoutPrefixes(ignored);
  const conflicts: { entry: ManagerEntry; path: FieldPath }[] = [];
  for (const e of others) {
    if (e.manager === opts.manager) continue;
    for (const p of e.set.intersection(changed).sorted()) conflicts.push({ entry: e, path: p });
  }
  if (conflicts.length > 0 && !opts.force) throw conflictError(conflicts);
  for (const e of others) e.set = e.set.difference(changed).difference(removed);
}

/** Server-side apply: merge, ownership, conflicts, pruning. Throws PatchError 409 on conflicts. */
export function serverSideApply(opts: ServerSideApplyOptions): {
  object: Record<string, unknown>;
  created: boolean;
} {
  refuseManagedFields(opts.config);
  const kind = opts.kind;
  const liveStripped = stripForTracking(opts.live);
  const ignored = ignoredPaths(kind, opts.subresource);
  const entries = liveEntries(opts, liveStripped, ignored);
  // both maps, so the merge is one too
  const merged = recordOf(mergeApplied(kind, liveStripped, opts.config));
  const newSet = toFieldSet(kind, opts.config).withoutPrefixes(ignored);
  const selfId = identity({
    manager: opts.manager,
    operation: 'Apply',
    subresource: opts.subresource,
    apiVersion: opts.apiVersion,
  });
  const self = entries.find((e) => identity(e) === selfId);
  const others = entries.filter((e) => e !== self);
  pruneDropped(kind, merged, self?.set ?? new FieldSet(), newSet, others);
  takeOwnership(opts, compare(kind, liveStripped, merged), ignored, others);

  const now = formatTime(opts.now);
  const next: ManagerEntry = {
    manager: opts.manager,
    operation: 'Apply',
    apiVersion: opts.apiVersion,
    subresource: opts.subresource,
    set: newSet,
    time: now,
  };
  // An apply that changes nothing keeps its entry's time.
  if (
    self !== undefined &&
    self.set.equals(newSet) &&
    self.time !== undefined &&
    deepEqual(liveStripped, merged)
  )
    next.time = self.time;
  setManagedFields(merged, capUpdateManagers([...others, next], now));
  return { object: merged, created: opts.live === undefined };
}

/** The 422 message for fieldManager problems, for callers that report them as Invalid. */
export function fieldManagerErrorText(errs: readonly FieldError[]): string {
  return formatFieldErrors(errs);
}
