// What the generic registry needs to know about one resource: its names, scope, the fields its
// selectors support, and the strategy hooks (defaulting, validation, what each subresource may
// change). One file per resource implements this.

import type { UserInfo } from '../../common/auth/user.js';
import type { FieldErrorLike } from '../status.js';
import type { SelectableResource } from '../selectors/index.js';
import { isRecord } from '../../common/util/json-shape.js';

export type Obj = Record<string, unknown>;

export interface StrategyContext {
  readonly user: UserInfo;
  readonly now: Date;
  readonly platformDomain: string;
  /** The mirror-pod annotation of the profile (names.annotations.configMirror). */
  readonly mirrorAnnotation: string;
  /** The profile's per-container AppArmor annotation prefix (names.annotations). */
  readonly appArmorAnnotationPrefix: string;
}

export interface ResourceDef {
  readonly resource: SelectableResource;
  readonly singularName: string;
  readonly group: string; // '' for core
  readonly version: 'v1';
  readonly kind: string;
  readonly listKind: string;
  readonly namespaced: boolean;
  readonly shortNames: readonly string[];
  readonly subresources: readonly string[];
  /** PUT of a missing object creates it. */
  readonly allowCreateOnUpdate: boolean;
  /** DELETE answers with the deleted object instead of a Status. */
  readonly returnDeletedObject: boolean;
  /** Name validation: DNS-1123 subdomain unless the resource says otherwise. */
  validateName?(name: string): string[];
  /** Defaulting and server-set fields on create. */
  prepareForCreate(obj: Obj, ctx: StrategyContext): void;
  validateCreate(obj: Obj, ctx: StrategyContext): FieldErrorLike[];
  /**
   * Update of the main resource (subresource '') or a subresource: copy what this path may not
   * change from `old` into `obj`.
   */
  prepareForUpdate(obj: Obj, old: Obj, subresource: string, ctx: StrategyContext): void;
  validateUpdate(obj: Obj, old: Obj, subresource: string, ctx: StrategyContext): FieldErrorLike[];
  /**
   * Takes what a new object needs from a shared pool (a Service's cluster IP) after validation
   * and admission, just before it is stored; throws a StatusError when the pool cannot give it.
   * The returned function is called once the write is done (`stored` false: it failed, or was a
   * dry run), so a failed create gives back what it took.
   */
  reserve?(obj: Obj, key: string): ((stored: boolean) => void) | undefined;
  /** Default grace period for delete, when the object has one (pods). */
  defaultGracePeriodSeconds?(obj: Obj): number | undefined;
  /**
   * POST-only subresources answered in another kind (serviceaccounts/token: TokenRequest of
   * authentication/v1; pods/binding: Binding), served by handlers/actions.ts.
   */
  readonly actionSubresources?: Readonly<
    Record<string, { readonly kind: string; readonly group?: string }>
  >;
  /**
   * Served over another resource's storage in another shape (events.k8s.io Event over core Event).
   */
  readonly view?: StorageView;
}

/**
 * A resource whose objects are stored as another resource's: the registry converts at the
 * storage boundary, so strategies, admission, managedFields and responses see this shape.
 */
export interface StorageView {
  readonly storage: ResourceDef;
  /**
   * The stored object (the storage resource's shape) in this resource's shape, kind and apiVersion
   * not set.
   */
  fromStorage(stored: Obj): Obj;
  /** This resource's object in the storage resource's shape, with its kind and apiVersion. */
  toStorage(obj: Obj): Obj;
  /** This resource's field selector labels -> the storage resource's. */
  readonly fieldLabels: Readonly<Record<string, string>>;
}

/** The object as `def` serves it: converted from its storage shape when `def` is a view. */
export function servedShape(def: ResourceDef, stored: Obj): Obj {
  const obj = def.view === undefined ? stored : def.view.fromStorage(stored);
  return withServedKind(obj, def.kind, apiVersionOf(def));
}

/** The object with the kind and apiVersion it is served as (set in place). */
export function withServedKind(obj: Obj, kind: string, apiVersion: string): Obj {
  obj['kind'] = kind;
  obj['apiVersion'] = apiVersion;
  return obj;
}

/** The object as it is stored: converted to the storage shape when `def` is a view. */
export function storedShape(def: ResourceDef, obj: Obj): Obj {
  return def.view === undefined ? obj : def.view.toStorage(obj);
}

export function apiVersionOf(def: Pick<ResourceDef, 'group' | 'version'>): string {
  return def.group === '' ? def.version : `${def.group}/${def.version}`;
}

export function metaOf(obj: Obj): Obj {
  const m = obj['metadata'];
  if (isRecord(m)) return m;
  const fresh: Obj = {};
  obj['metadata'] = fresh;
  return fresh;
}

export function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

export function objAt(obj: Obj, key: string): Obj | undefined {
  const v = obj[key];
  return isRecord(v) ? v : undefined;
}

/** A dotted-path read for field selectors; numbers and booleans read as their text. */
export function fieldPath(obj: Obj, path: string): string | undefined {
  let cur: unknown = obj;
  for (const part of path.split('.')) {
    if (!isRecord(cur)) return undefined;
    cur = cur[part];
  }
  if (typeof cur === 'string') return cur;
  if (typeof cur === 'number' || typeof cur === 'boolean') return String(cur);
  return undefined;
}

export function clone<T>(v: T): T {
  return structuredClone(v);
}
