// The generic registry: create, read, update (with optimistic concurrency), delete (graceful,
// finalizers, preconditions, unsafe deletion of corrupt values) over the Store, for any
// ResourceDef. The REST handlers and the in-process controllers both go through it, so every
// write sees the same defaulting, validation and admission.

import { RemainingCounts } from './remaining-counts.js';
import { ServedCache, type ServedMaker } from './served-cache.js';
import { storageKey, storagePrefix } from './keys.js';
import type { Names } from '../../common/names.js';
import { isDeepStrictEqual } from 'node:util';
import type { AdmissionOperation, AdmissionPlugin } from '../interfaces.js';
import type { UserInfo } from '../../common/auth/user.js';
import type { Clock } from '../../common/util/clock.js';
import { textOf } from '../../common/util/text-of.js';
import type { Logger } from '../../common/log/types.js';
import {
  alreadyExists,
  badRequest,
  conflict,
  invalid,
  notFound,
  StatusError,
  successStatus,
  type FieldErrorLike,
  type StatusBody,
} from '../status.js';
import {
  StoreConflictError,
  StoreReadError,
  prefixEnd,
  type Store,
  type StoredObject,
} from '../storage/store.js';
import { generateName, prepareMetaForCreate, validateMetaUpdate } from './meta.js';
import {
  checkDeletable,
  deleteGraceSeconds,
  deletesGracefully,
  markedForDeletion,
} from './delete-steps.js';
import {
  apiVersionOf,
  clone,
  metaOf,
  servedShape,
  storedShape,
  str,
  type Obj,
  type ResourceDef,
  type StrategyContext,
} from './types.js';
import type { ManagedFieldsUpdater } from './managed-fields.js';
import { parseResourceVersion } from './resource-version.js';
import { normalizeValues } from '../schema/values.js';
import { isRecord } from '../../common/util/json-shape.js';
import { LiveNamespaces } from './live-namespaces.js';

export interface WriteOptions {
  readonly user: UserInfo;
  readonly dryRun: boolean;
  /** The manager recorded in managedFields. */
  readonly fieldManager: string;
  readonly subresource: string;
  /** Apply for server-side apply (managedFields already set), Update otherwise. */
  readonly operation?: 'Update' | 'Apply';
  /**
   * The body is the caller's to give away (decoded for this request alone): create does not copy
   * it.
   */
  readonly bodyOwned?: boolean;
}

export interface DeleteOptions {
  readonly user: UserInfo;
  readonly dryRun: boolean;
  readonly gracePeriodSeconds: number | undefined;
  readonly preconditions:
    | { readonly uid?: string | undefined; readonly resourceVersion?: string | undefined }
    | undefined;
  readonly propagationPolicy: string | undefined;
  readonly orphanDependents: boolean | undefined;
  readonly ignoreStoreReadError: boolean;
}

export interface DeleteResult {
  readonly code: 200 | 202;
  readonly body: Obj | StatusBody;
  /** The deleted (or deletion-marked) object; undefined when it could not be read. */
  readonly object: Obj | undefined;
}

export interface RegistryOptions {
  readonly store: Store;
  readonly platformDomain: string;
  /** The profile's names (the mirror-pod annotation its strategies read). */
  readonly names: Names;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly admission: readonly AdmissionPlugin[];
  readonly managedFields: ManagedFieldsUpdater;
  /** Where list items not yet served are serialised (--worker-threads); default: inline. */
  readonly servedMaker?: ServedMaker | undefined;
}

/** The Status of a value that cannot be read back from storage. */
export function storeReadFailure(err: StoreReadError, def: ResourceDef, name: string): StatusError {
  return new StatusError(
    500,
    'StorageReadError',
    `failed to read the stored ${def.resource} "${name}": ${err.message}; it can be ` +
      `deleted with ignoreStoreReadErrorWithClusterBreakingPotential=true`,
    { name, group: def.group, kind: def.resource },
  );
}

const maxUpdateAttempts = 10;

/** One object a DELETE acts on, read at revision `rv`. */
interface DeleteTarget {
  readonly def: ResourceDef;
  readonly key: string;
  readonly name: string;
  readonly rv: number;
  readonly obj: Obj;
  /** A concurrent write fails the request instead of being retried. */
  readonly lastAttempt: boolean;
}

/**
 * The reference's two admission phases: mutating plugins run before validation, validating ones
 * after.
 */
const mutating = (p: AdmissionPlugin): boolean => p.mutating === true;
const validating = (p: AdmissionPlugin): boolean => p.mutating !== true;

export class Registry {
  readonly store: Store;
  private readonly namespaces: LiveNamespaces;
  readonly platformDomain: string;
  readonly names: Names;
  private readonly clock: Clock;
  private readonly logger: Logger;
  private readonly admission: readonly AdmissionPlugin[];
  private readonly managedFields: ManagedFieldsUpdater;
  /** Served JSON and protobuf of stored revisions, shared by list pages (see served-cache.ts). */
  readonly served = new ServedCache();
  /** Where list items not yet in `served` are serialised, when not inline (RegistryOptions). */
  readonly servedMaker: ServedMaker | undefined;
  /** remainingItemCount of paged lists, remembered between pages (see remaining-counts.ts). */
  readonly remainingCounts = new RemainingCounts();

  constructor(opts: RegistryOptions) {
    this.store = opts.store;
    this.platformDomain = opts.platformDomain;
    this.names = opts.names;
    this.clock = opts.clock;
    this.logger = opts.logger;
    this.admission = opts.admission;
    this.managedFields = opts.managedFields;
    this.servedMaker = opts.servedMaker;
    this.namespaces = new LiveNamespaces(opts.store);
  }

  key(def: ResourceDef, namespace: string, name: string): string {
    return storageKey(def, namespace, name);
  }

  /** The key prefix of a resource, or of its objects in one namespace. */
  prefix(def: ResourceDef, namespace: string): string {
    return storagePrefix(def, namespace);
  }

  private ctx(user: UserInfo): StrategyContext {
    return {
      user,
      now: this.clock.now(),
      platformDomain: this.platformDomain,
      mirrorAnnotation: this.names.annotations.configMirror,
      appArmorAnnotationPrefix: this.names.annotations.appArmorContainerPrefix,
    };
  }

  /** Reads one object; 404 when absent, 500 StorageReadError when its value is unreadable. */
  async get(def: ResourceDef, namespace: string, name: string): Promise<Obj> {
    const got = await this.read(def, namespace, name);
    if (got === undefined) throw notFound(def.resource, def.group, name);
    return got.obj;
  }

  private async read(
    def: ResourceDef,
    namespace: string,
    name: string,
  ): Promise<{ obj: Obj; rv: number } | undefined> {
    const key = this.key(def, namespace, name);
    const raw = this.store.getRaw(key);
    if (raw === undefined) return undefined;
    try {
      const decoded = await this.store.decode(key, raw.rv, raw.value);
      return { obj: def.view === undefined ? decoded : servedShape(def, decoded), rv: raw.rv };
    } catch (err) {
      if (err instanceof StoreReadError) throw storeReadFailure(err, def, name);
      throw err;
    }
  }

  private async admit(
    def: ResourceDef,
    operation: AdmissionOperation,
    obj: Obj | undefined,
    old: Obj | undefined,
    namespace: string,
    name: string,
    opts: { user: UserInfo; dryRun: boolean; subresource: string },
    only?: (plugin: AdmissionPlugin) => boolean,
  ): Promise<void> {
    for (const plugin of this.admission) {
      if (only !== undefined && !only(plugin)) continue;
      await plugin.admit({
        operation,
        resource: def.resource,
        apiGroup: def.group,
        subresource: opts.subresource,
        namespace,
        name,
        object: obj,
        oldObject: old,
        user: opts.user,
        dryRun: opts.dryRun,
      });
    }
  }

  /**
   * Admission (both phases) of a create through an action subresource (a TokenRequest, a
   * Binding): the request object of its own kind, under the parent resource's name.
   */
  async admitAction(
    def: ResourceDef,
    subresource: string,
    at: { readonly namespace: string; readonly name: string },
    obj: Obj,
    opts: { readonly user: UserInfo; readonly dryRun: boolean },
  ): Promise<void> {
    const o = { user: opts.user, dryRun: opts.dryRun, subresource };
    await this.admit(def, 'CREATE', obj, undefined, at.namespace, at.name, o, mutating);
    await this.admit(def, 'CREATE', obj, undefined, at.namespace, at.name, o, validating);
  }

  private failIfInvalid(def: ResourceDef, name: string, errs: readonly FieldErrorLike[]): void {
    if (errs.length > 0) throw invalid(def.kind, def.group, name, errs);
  }

  /** Checks the namespace of a namespaced object exists (404 for the namespace otherwise). */
  requireNamespace(namespace: string): void {
    if (!this.namespaces.exists(namespace)) throw notFound('namespaces', '', namespace);
  }

  /**
   * Fills kind/apiVersion and the namespace of the path; rejects a mismatching kind or namespace.
   */
  normalizeBody(def: ResourceDef, namespace: string, obj: Obj): void {
    const apiVersion = apiVersionOf(def);
    const kind = obj['kind'];
    const version = obj['apiVersion'];
    if (kind !== undefined && kind !== '' && kind !== def.kind) {
      throw badRequest(
        `${def.kind} in version "${def.version}" cannot be handled as a ${def.kind}: ` +
          `the kind in the data (${textOf(kind)}) does not match the expected kind ` +
          `(${def.kind})`,
      );
    }
    if (version !== undefined && version !== '' && version !== apiVersion) {
      throw badRequest(
        `the API version in the data (${textOf(version)}) does not match the expected ` +
          `API version (${apiVersion})`,
      );
    }
    obj['kind'] = def.kind;
    obj['apiVersion'] = apiVersion;
    // Every write path (body, patch, apply, protobuf, controllers) meets the schema's value rules
    // here.
    const valueError = normalizeValues(obj, def.kind);
    if (valueError !== undefined)
      throw badRequest(
        `${def.kind} in version "${def.version}" cannot be handled as a ${def.kind}: ${valueError}`,
      );
    const meta = metaOf(obj);
    if (def.namespaced) {
      const bodyNs = str(meta['namespace']) ?? '';
      if (bodyNs !== '' && bodyNs !== namespace) {
        throw badRequest(
          'the namespace of the provided object does not match the namespace sent on the request',
        );
      }
      meta['namespace'] = namespace;
    } else if (meta['namespace'] === '') {
      delete meta['namespace'];
    }
  }

  async create(def: ResourceDef, namespace: string, body: Obj, opts: WriteOptions): Promise<Obj> {
    const obj = opts.bodyOwned === true ? body : clone(body);
    this.normalizeBody(def, namespace, obj);
    const meta = metaOf(obj);
    if ((str(meta['name']) ?? '') === '' && (str(meta['generateName']) ?? '') !== '') {
      meta['name'] = generateName(str(meta['generateName']) ?? '');
    }
    const rvGiven = meta['resourceVersion'];
    if (rvGiven !== undefined && rvGiven !== '' && rvGiven !== null && rvGiven !== '0') {
      // The reference answers this client error with a 500; a client error is a 400 here.
      throw badRequest('resourceVersion should not be set on objects to be created');
    }
    delete meta['resourceVersion'];
    if (def.namespaced) this.requireNamespace(namespace);
    const ctx = this.ctx(opts.user);
    prepareMetaForCreate(obj, ctx.now);
    def.prepareForCreate(obj, ctx);
    const name = str(meta['name']) ?? '';
    // The reference's order: defaulting, mutating admission, validation (422), validating
    // admission.
    await this.admit(def, 'CREATE', obj, undefined, namespace, name, opts, mutating);
    this.failIfInvalid(def, name, def.validateCreate(obj, ctx));
    await this.admit(def, 'CREATE', obj, undefined, namespace, name, opts, validating);
    const withFields = this.managedFields.update({
      oldObj: undefined,
      newObj: obj,
      manager: opts.fieldManager,
      operation: opts.operation ?? 'Update',
      subresource: opts.subresource,
      apiVersion: apiVersionOf(def),
      now: ctx.now,
    });
    const key = this.key(def, namespace, name);
    // Only these two look first: any other create hears of a used name from the store's check.
    if ((opts.dryRun || def.reserve !== undefined) && this.store.getRaw(key) !== undefined)
      throw alreadyExists(def.resource, def.group, name);
    const done = def.reserve?.(withFields, key);
    if (opts.dryRun) {
      done?.(false);
      return withFields;
    }
    let stored = false;
    // The store's own check (expected revision 0) answers an existing name: no second lookup.
    try {
      const change = await this.store.write(
        key,
        'ADDED',
        storedShape(def, withFields),
        0,
        undefined,
      );
      stored = true;
      return def.view === undefined ? change.object : servedShape(def, change.object);
    } catch (err) {
      if (err instanceof StoreConflictError) throw alreadyExists(def.resource, def.group, name);
      throw err;
    } finally {
      done?.(stored);
    }
  }

  /**
   * The read-modify-write loop of PUT and PATCH. `compute` gets the current object (undefined
   * when absent) and returns the desired object; it may throw a StatusError. A body carrying
   * metadata.resourceVersion must match the stored one (409 otherwise); without one the update
   * is unconditional and retried on a concurrent write.
   */
  async update(
    def: ResourceDef,
    namespace: string,
    name: string,
    opts: WriteOptions & { readonly allowCreate?: boolean },
    compute: (current: Obj | undefined) => Promise<Obj> | Obj,
  ): Promise<{ object: Obj; created: boolean }> {
    const key = this.key(def, namespace, name);
    for (let attempt = 0; ; attempt++) {
      const current = await this.read(def, namespace, name);
      const desired = clone(await compute(current === undefined ? undefined : clone(current.obj)));
      const wantRv = this.checkUpdateBody(def, namespace, name, desired);
      // "0" and "" are unconditional, as the reference's ObjectResourceVersion reads them.
      const conditional = wantRv !== 0;
      if (current === undefined) {
        const mayCreate = (opts.allowCreate ?? def.allowCreateOnUpdate) && opts.subresource === '';
        if (!mayCreate) throw notFound(def.resource, def.group, name);
        delete metaOf(desired)['resourceVersion'];
        return { object: await this.create(def, namespace, desired, opts), created: true };
      }
      if (conditional && wantRv !== current.rv) {
        // The reference runs mutating admission (NodeRestriction) before its optimistic-lock check.
        await this.admit(def, 'UPDATE', desired, current.obj, namespace, name, opts, mutating);
        throw conflict(def.resource, def.group, name);
      }
      const old = current.obj;
      const next = await this.updatedObject(
        def,
        namespace,
        name,
        { desired, old, rv: current.rv },
        opts,
      );
      if (sameObject(next, old)) return { object: old, created: false };
      if (opts.dryRun) return { object: next, created: false };
      const written = await this.writeUpdate(def, key, next, current);
      if (written !== undefined) return { object: written, created: false };
      if (conditional || attempt >= maxUpdateAttempts)
        throw conflict(def.resource, def.group, name);
    }
  }

  /**
   * Normalizes an update's body and checks its name against the URL's; returns its resourceVersion
   * (0: none).
   */
  private checkUpdateBody(def: ResourceDef, namespace: string, name: string, desired: Obj): number {
    this.normalizeBody(def, namespace, desired);
    const meta = metaOf(desired);
    const bodyName = str(meta['name']) ?? '';
    // The reference's checkName: a body without a name (a PUT without one, a patch removing it)
    // is refused, never given the URL's.
    if (bodyName === '')
      throw badRequest(
        `the name of the object (${name} based on URL) was undeterminable: name must be provided`,
      );
    if (bodyName !== name) {
      throw badRequest(
        `the name of the object (${bodyName}) does not match the name on the URL (${name})`,
      );
    }
    const bodyRv = meta['resourceVersion'];
    return typeof bodyRv === 'string'
      ? parseResourceVersion(bodyRv, 'metadata.resourceVersion')
      : 0;
  }

  /**
   * The object an update writes: the kind's update rules, admission (mutating, then validating)
   * around validation, managedFields.
   */
  private async updatedObject(
    def: ResourceDef,
    namespace: string,
    name: string,
    u: { readonly desired: Obj; readonly old: Obj; readonly rv: number },
    opts: WriteOptions,
  ): Promise<Obj> {
    const { desired, old } = u;
    const meta = metaOf(desired);
    const ctx = this.ctx(opts.user);
    const metaErrs = validateMetaUpdate(desired, old);
    def.prepareForUpdate(desired, old, opts.subresource, ctx);
    meta['resourceVersion'] = String(u.rv);
    await this.admit(def, 'UPDATE', desired, old, namespace, name, opts, mutating);
    this.failIfInvalid(def, name, [
      ...metaErrs,
      ...def.validateUpdate(desired, old, opts.subresource, ctx),
    ]);
    await this.admit(def, 'UPDATE', desired, old, namespace, name, opts, validating);
    return this.managedFields.update({
      oldObj: old,
      newObj: desired,
      manager: opts.fieldManager,
      operation: opts.operation ?? 'Update',
      subresource: opts.subresource,
      apiVersion: apiVersionOf(def),
      now: ctx.now,
    });
  }

  /**
   * Writes an updated object over the revision it was computed from; undefined when another write
   * came first.
   */
  private async writeUpdate(
    def: ResourceDef,
    key: string,
    next: Obj,
    current: { readonly obj: Obj; readonly rv: number },
  ): Promise<Obj | undefined> {
    const finalizers = metaOf(next)['finalizers'];
    const finished =
      metaOf(next)['deletionTimestamp'] !== undefined &&
      (!Array.isArray(finalizers) || finalizers.length === 0);
    try {
      const change = await this.store.write(
        key,
        finished ? 'DELETED' : 'MODIFIED',
        storedShape(def, next),
        current.rv,
        storedShape(def, current.obj),
      );
      return def.view === undefined ? change.object : servedShape(def, change.object);
    } catch (err) {
      if (!(err instanceof StoreConflictError)) throw err;
      return undefined;
    }
  }

  async delete(
    def: ResourceDef,
    namespace: string,
    name: string,
    opts: DeleteOptions,
  ): Promise<DeleteResult> {
    const key = this.key(def, namespace, name);
    for (let attempt = 0; ; attempt++) {
      const raw = this.store.getRaw(key);
      if (raw === undefined) throw notFound(def.resource, def.group, name);
      const read = await this.readForDelete(def, { key, namespace, name }, raw, opts);
      if ('done' in read) return read.done;
      const obj = read.obj;
      checkDeletable(def, name, obj, opts, this.platformDomain);
      await this.admit(def, 'DELETE', undefined, obj, namespace, name, {
        user: opts.user,
        dryRun: opts.dryRun,
        subresource: '',
      });
      const grace = deleteGraceSeconds(def, obj, opts);
      const target: DeleteTarget = {
        def,
        key,
        name,
        rv: raw.rv,
        obj,
        lastAttempt: attempt >= maxUpdateAttempts,
      };
      const out = deletesGracefully(obj, grace)
        ? await this.markDeleting(target, grace, opts)
        : await this.deleteNow(target, opts);
      if (out !== undefined) return out;
    }
  }

  /**
   * The stored object a DELETE acts on. An unreadable one is a 500, or with
   * ignoreStoreReadErrorWithClusterBreakingPotential is removed as it is (the answer is then done).
   */
  private async readForDelete(
    def: ResourceDef,
    at: { readonly key: string; readonly namespace: string; readonly name: string },
    raw: { readonly rv: number; readonly value: Uint8Array },
    opts: DeleteOptions,
  ): Promise<{ readonly obj: StoredObject } | { readonly done: DeleteResult }> {
    const { key, namespace, name } = at;
    try {
      const obj = await this.store.decode(key, raw.rv, raw.value);
      return { obj: def.view === undefined ? obj : servedShape(def, obj) };
    } catch (err) {
      if (!(err instanceof StoreReadError)) throw err;
      if (!opts.ignoreStoreReadError) throw storeReadFailure(err, def, name);
      if (!opts.dryRun) this.store.forceDelete(key);
      this.logger.warn(
        { resource: def.resource, namespace, name },
        'deleted an unreadable stored object (ignoreStoreReadErrorWithClusterBreakingPotential)',
      );
      return {
        done: {
          code: 200,
          body: successStatus({ name, group: def.group, kind: def.resource }),
          object: undefined,
        },
      };
    }
  }

  /**
   * Graceful or finalizer-held deletion: mark the object and let its owner finish. Undefined: retry
   * (a concurrent write).
   */
  private async markDeleting(
    t: DeleteTarget,
    grace: number,
    opts: DeleteOptions,
  ): Promise<DeleteResult | undefined> {
    const { def, obj } = t;
    const next = markedForDeletion(obj, grace, this.clock.now());
    const accepted = opts.orphanDependents === false ? 202 : 200;
    if (sameObject(next, obj) || opts.dryRun) return { code: accepted, body: next, object: next };
    try {
      const change = await this.store.write(
        t.key,
        'MODIFIED',
        storedShape(def, next),
        t.rv,
        storedShape(def, obj),
      );
      const served = def.view === undefined ? change.object : servedShape(def, change.object);
      return { code: accepted, body: served, object: served };
    } catch (err) {
      if (!(err instanceof StoreConflictError) || t.lastAttempt) throw err;
      return undefined;
    }
  }

  /**
   * Removes the object now (a namespace with its contents). Undefined: retry (a concurrent write).
   */
  private async deleteNow(t: DeleteTarget, opts: DeleteOptions): Promise<DeleteResult | undefined> {
    const { def, obj, name } = t;
    let deleted: Obj = obj;
    if (!opts.dryRun) {
      try {
        const stored = storedShape(def, obj);
        const written = (await this.store.write(t.key, 'DELETED', stored, t.rv, stored)).object;
        deleted = def.view === undefined ? written : servedShape(def, written);
      } catch (err) {
        if (!(err instanceof StoreConflictError) || t.lastAttempt) throw err;
        return undefined;
      }
      if (def.resource === 'namespaces') await this.deleteNamespaceContents(name);
    }
    const body = def.returnDeletedObject
      ? deleted
      : successStatus({
          name,
          group: def.group,
          kind: def.resource,
          uid: str(metaOf(obj)['uid']) ?? '',
        });
    return { code: 200, body, object: deleted };
  }

  /** Namespaced resources registered for cascade deletion of a namespace's contents. */
  namespacedPrefixes: string[] = [];

  private async deleteNamespaceContents(namespace: string): Promise<void> {
    for (const base of this.namespacedPrefixes) {
      const from = `${base}${namespace}/`;
      const rows = this.store.rangeRaw(from, prefixEnd(from), this.store.currentRevision());
      for (const row of rows) {
        try {
          const obj = await this.store.decode(row.key, row.rv, row.value);
          await this.store.write(row.key, 'DELETED', obj, row.rv, obj);
        } catch (err) {
          if (err instanceof StoreReadError) this.store.forceDelete(row.key);
          else if (!(err instanceof StoreConflictError)) throw err;
        }
      }
    }
  }
}

/** Equal apart from the resourceVersion (a no-op write is skipped, as the reference does). */
function sameObject(a: Obj, b: Obj): boolean {
  const strip = (o: Obj): Obj => {
    const c = { ...o, metadata: { ...metaOf(o) } };
    delete c.metadata['resourceVersion'];
    const mf = c.metadata['managedFields'];
    if (Array.isArray(mf))
      c.metadata['managedFields'] = mf.map((e: unknown) =>
        isRecord(e) ? { ...e, time: undefined } : e,
      );
    return c;
  };
  return isDeepStrictEqual(strip(a), strip(b));
}
