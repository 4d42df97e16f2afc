// List options (selectors, paging, resourceVersion semantics) and the list operation itself:
// which revision a list is served from follows the reference's table (rv unset / "0" / other
// x resourceVersionMatch x paging), pages are consistent snapshots through continue tokens, and
// an expired token gives 410 with a fresh one.

import {
  cachedFieldSelector,
  cachedLabelSelector,
  cachedShardSelector,
  checkFieldsSupported,
  fieldGetterFor,
  SelectorError,
  SUPPORTED_FIELDS,
  type FieldSelector,
  type LabelSelector,
  type ShardSelector,
} from '../selectors/index.js';
import { badRequest, expired, invalid, StatusError, type FieldErrorLike } from '../status.js';
import { decodeContinue, encodeContinue } from '../storage/continue-token.js';
import { CompactedError, prefixEnd, StoreReadError, type RawRevision } from '../storage/store.js';
import type { Params } from '../params.js';
import { encodeListEnvelope, encodeMessage, hasProtobuf } from '../../common/protobuf/codec.js';
import { storeReadFailure, type Registry } from './registry.js';
import type { Served, ServedFormat, ServedMaker } from './served-cache.js';
import { parseResourceVersion } from './resource-version.js';
import { stringRecordOf } from '../../common/util/json-shape.js';
import { apiVersionOf, metaOf, servedShape, type Obj, type ResourceDef } from './types.js';

export interface ListOptions {
  readonly labelSelector: LabelSelector | undefined;
  readonly fieldSelector: FieldSelector | undefined;
  readonly shardSelector: ShardSelector | undefined;
  readonly limit: number | undefined;
  readonly continueToken: string | undefined;
  readonly resourceVersion: string | undefined;
  readonly resourceVersionMatch: string | undefined;
  readonly sendInitialEvents: boolean | undefined;
  readonly allowWatchBookmarks: boolean;
  readonly timeoutSeconds: number | undefined;
  readonly watch: boolean;
}

export interface ListParseContext {
  readonly def: ResourceDef;
  readonly platformDomain: string;
  readonly shardingEnabled: boolean;
  /** `/watch/.../{name}` paths pin the name. */
  readonly name?: string;
  readonly forceWatch?: boolean;
}

function selectorError(err: unknown): never {
  if (err instanceof SelectorError) throw badRequest(err.message);
  throw err;
}

/** Parses and validates the list/watch query (ValidateListOptions of the reference). */
export function parseListOptions(params: Params, c: ListParseContext): ListOptions {
  let fieldSelector: FieldSelector | undefined;
  let labelSelector: LabelSelector | undefined;
  let shardSelector: ShardSelector | undefined;
  try {
    const fs = params.string('fieldSelector');
    let fsText = fs ?? '';
    if (c.name !== undefined)
      fsText = fsText === '' ? `metadata.name=${c.name}` : `${fsText},metadata.name=${c.name}`;
    if (fsText !== '') {
      fieldSelector = cachedFieldSelector(fsText);
      checkFieldsSupported(
        fieldSelector,
        c.def.view === undefined
          ? SUPPORTED_FIELDS[c.def.resource]
          : new Set(Object.keys(c.def.view.fieldLabels)),
      );
      if (fieldSelector.empty) fieldSelector = undefined;
    }
    const ls = params.string('labelSelector');
    if (ls !== undefined && ls !== '') {
      labelSelector = cachedLabelSelector(ls);
      if (labelSelector.empty) labelSelector = undefined;
    }
    const ss = params.string('shardSelector');
    if (c.shardingEnabled && ss !== undefined) shardSelector = cachedShardSelector(ss);
  } catch (err) {
    selectorError(err);
  }
  const watch = c.forceWatch === true || params.bool('watch') === true;
  const opts: ListOptions = {
    fieldSelector,
    labelSelector,
    shardSelector,
    limit: params.int('limit'),
    continueToken: emptyToUndefined(params.string('continue')),
    resourceVersion: emptyToUndefined(params.string('resourceVersion')),
    resourceVersionMatch: emptyToUndefined(params.string('resourceVersionMatch')),
    sendInitialEvents: params.bool('sendInitialEvents'),
    allowWatchBookmarks: params.bool('allowWatchBookmarks') === true,
    timeoutSeconds: params.int('timeoutSeconds'),
    watch,
  };
  const errs = watch ? validateWatchOptions(opts) : validateListOptions(opts);
  if (errs.length > 0) throw invalid('ListOptions', `meta.${c.platformDomain}`, '', errs);
  if (opts.resourceVersion !== undefined) parseRv(opts.resourceVersion);
  return opts;
}

function emptyToUndefined(v: string | undefined): string | undefined {
  return v === undefined || v === '' ? undefined : v;
}

function validateListOptions(o: ListOptions): FieldErrorLike[] {
  const errs: FieldErrorLike[] = [];
  const match = o.resourceVersionMatch;
  if (match !== undefined) {
    if (o.resourceVersion === undefined) {
      errs.push({
        type: 'FieldValueForbidden',
        field: 'resourceVersionMatch',
        detail: 'resourceVersionMatch is forbidden unless resourceVersion is provided',
      });
    }
    if (o.continueToken !== undefined) {
      errs.push({
        type: 'FieldValueForbidden',
        field: 'resourceVersionMatch',
        detail: 'resourceVersionMatch is forbidden when continue is provided',
      });
    }
    if (match !== 'Exact' && match !== 'NotOlderThan') {
      errs.push({
        type: 'FieldValueNotSupported',
        field: 'resourceVersionMatch',
        value: match,
        detail: 'supported values: "Exact", "NotOlderThan", ""',
      });
    }
    if (match === 'Exact' && o.resourceVersion === '0') {
      errs.push({
        type: 'FieldValueForbidden',
        field: 'resourceVersionMatch',
        detail: 'resourceVersionMatch "exact" is forbidden for resourceVersion "0"',
      });
    }
  }
  if (o.sendInitialEvents !== undefined) {
    errs.push({
      type: 'FieldValueForbidden',
      field: 'sendInitialEvents',
      detail: 'sendInitialEvents is forbidden for list',
    });
  }
  return errs;
}

function validateWatchOptions(o: ListOptions): FieldErrorLike[] {
  const errs: FieldErrorLike[] = [];
  const match = o.resourceVersionMatch;
  if (o.sendInitialEvents !== undefined && match !== 'NotOlderThan') {
    errs.push({
      type: 'FieldValueForbidden',
      field: 'resourceVersionMatch',
      detail: 'sendInitialEvents requires setting resourceVersionMatch to NotOlderThan',
    });
  }
  if (match !== undefined) {
    if (o.sendInitialEvents === undefined) {
      errs.push({
        type: 'FieldValueForbidden',
        field: 'resourceVersionMatch',
        detail: 'resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided',
      });
    }
    if (match !== 'NotOlderThan') {
      errs.push({
        type: 'FieldValueNotSupported',
        field: 'resourceVersionMatch',
        value: match,
        detail: 'supported values: "NotOlderThan"',
      });
    }
    if (o.continueToken !== undefined) {
      errs.push({
        type: 'FieldValueForbidden',
        field: 'resourceVersionMatch',
        detail: 'resourceVersionMatch is forbidden when continue is provided',
      });
    }
  }
  return errs;
}

/** A resourceVersion query parameter as a revision number (400 for anything but a uint64). */
export function parseRv(rv: string): number {
  return parseResourceVersion(rv);
}

/** 504 for a resourceVersion the store has not reached (the reference waits up to 3 s first). */
export function tooLargeRv(requested: number, current: number): StatusError {
  return new StatusError(
    504,
    'Timeout',
    `Too large resource version: ${requested}, current: ${current}`,
    {
      causes: [{ reason: 'ResourceVersionTooLarge', message: `Too large resource version` }],
      retryAfterSeconds: 1,
    },
  );
}

/** A requested resourceVersion the store has not reached yet: wait up to 3 s, then 504. */
export async function waitForRv(
  registry: Registry,
  o: Pick<ListOptions, 'resourceVersion' | 'continueToken'>,
): Promise<void> {
  if (o.resourceVersion === undefined || o.continueToken !== undefined) return;
  const rv = parseRv(o.resourceVersion);
  if (rv === 0 || rv <= registry.store.currentRevision()) return;
  if (!(await registry.store.waitForRevision(rv, 3000)))
    throw tooLargeRv(rv, registry.store.currentRevision());
}

/** Whether an object passes the label, field and shard selectors. */
export function objectMatcher(
  def: ResourceDef,
  o: Pick<ListOptions, 'labelSelector' | 'fieldSelector' | 'shardSelector'>,
): (obj: Obj) => boolean {
  const { labelSelector, fieldSelector, shardSelector } = o;
  if (labelSelector === undefined && fieldSelector === undefined && shardSelector === undefined)
    return () => true;
  return (obj) => {
    if (labelSelector !== undefined) {
      const labels = metaOf(obj)['labels'];
      if (!labelSelector.matches(stringRecordOf(labels))) return false;
    }
    if (fieldSelector !== undefined && !fieldSelector.matches(fieldGetter(def, obj))) return false;
    if (shardSelector !== undefined && !shardSelector.matches(obj)) return false;
    return true;
  };
}

/** A field's value for selectors; a view's labels read the stored shape's fields. */
function fieldGetter(def: ResourceDef, obj: Obj): (field: string) => string | undefined {
  const view = def.view;
  if (view === undefined) return fieldGetterFor(def.resource, obj);
  const stored = fieldGetterFor(view.storage.resource, view.toStorage(obj));
  return (field) => {
    const label = view.fieldLabels[field];
    return label === undefined ? undefined : stored(label);
  };
}

export interface ListResult {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: {
    resourceVersion: string;
    continue?: string;
    remainingItemCount?: number;
    shardInfo?: { selector: string };
  };
  readonly items: Obj[];
}

/** Runs a list. */
export async function listObjects(
  registry: Registry,
  def: ResourceDef,
  namespace: string,
  o: ListOptions,
): Promise<ListResult> {
  const matches = objectMatcher(def, o);
  const page = await runList(registry, def, namespace, o, async (row) => {
    const obj = await decodeRow(registry, def, row.key, row.rv, row.value);
    return matches(obj) ? obj : undefined;
  });
  return {
    apiVersion: apiVersionOf(def),
    kind: def.listKind,
    metadata: page.metadata,
    items: page.items,
  };
}

/**
 * A list as JSON text: the same list as listObjects, each item's text shared through the served
 * cache.
 */
export async function listJson(
  registry: Registry,
  def: ResourceDef,
  namespace: string,
  o: ListOptions,
): Promise<string> {
  const matches = objectMatcher(def, o);
  const cache = registry.served;
  const maker = registry.servedMaker;
  const prefill =
    maker === undefined || hasSelectors(o) || def.view !== undefined
      ? undefined
      : (rows: readonly RawRevision[]) => prefillServed(registry, def, maker, 'json', rows);
  const page = await runList(
    registry,
    def,
    namespace,
    o,
    async (row) => {
      let text = cache.json(def, row.key, row.rv, row.value.length);
      if (text !== undefined && !hasSelectors(o)) return text;
      const obj = await decodeRow(registry, def, row.key, row.rv, row.value);
      if (!matches(obj)) return undefined;
      if (text === undefined) {
        text = JSON.stringify(obj);
        cache.set('json', def, row.key, row.rv, row.value.length, text);
      }
      return text;
    },
    prefill,
  );
  // Field order as JSON.stringify of a ListResult.
  const head = JSON.stringify({
    apiVersion: apiVersionOf(def),
    kind: def.listKind,
    metadata: page.metadata,
  });
  return `${head.slice(0, -1)},"items":[${page.items.join(',')}]}`;
}

/** Rows not worth a message to the worker threads: fewer are served inline. */
const MIN_PREFILL = 16;

/**
 * Puts the served text or message of a window's rows that the cache lacks into it, made by
 * `maker` (the worker threads); a row it cannot make (a value that does not decrypt or read back,
 * or does not fit its message) is left to the list's own decoding, which reports it.
 */
async function prefillServed(
  registry: Registry,
  def: ResourceDef,
  maker: ServedMaker,
  format: ServedFormat,
  window: readonly RawRevision[],
): Promise<void> {
  const cache = registry.served;
  const cached = (r: RawRevision): Served | undefined =>
    format === 'json'
      ? cache.json(def, r.key, r.rv, r.value.length)
      : cache.protobuf(def, r.key, r.rv, r.value.length);
  const misses = window.filter((r) => cached(r) === undefined);
  if (misses.length < MIN_PREFILL) return;
  const plains = await Promise.allSettled(
    misses.map((r) => registry.store.plaintext(r.key, r.value)),
  );
  const rows: RawRevision[] = [];
  const sent: { plain: Uint8Array; rv: number }[] = [];
  for (const [i, p] of plains.entries()) {
    const row = misses[i];
    if (p.status !== 'fulfilled' || row === undefined) continue;
    rows.push(row);
    sent.push({ plain: p.value, rv: row.rv });
  }
  const served = await maker(format, def.kind, apiVersionOf(def), sent);
  for (const [i, row] of rows.entries()) {
    const made = served[i];
    if (made !== undefined) cache.set(format, def, row.key, row.rv, row.value.length, made);
  }
}

/**
 * A list as an enveloped protobuf message, each item's message bytes shared through the served
 * cache; undefined when the kind has no protobuf message or an item does not fit it (the caller
 * then answers through the general encoder, which falls back to JSON and says so).
 */
export async function listProtobuf(
  registry: Registry,
  def: ResourceDef,
  namespace: string,
  o: ListOptions,
): Promise<Buffer | undefined> {
  const apiVersion = apiVersionOf(def);
  if (!hasProtobuf(apiVersion, def.listKind) || !hasProtobuf(apiVersion, def.kind))
    return undefined;
  const matches = hasSelectors(o) ? objectMatcher(def, o) : undefined;
  const maker = registry.servedMaker;
  const prefill =
    maker === undefined || matches !== undefined || def.view !== undefined
      ? undefined
      : (rows: readonly RawRevision[]) => prefillServed(registry, def, maker, 'protobuf', rows);
  let unfit = false;
  const page = await runList(
    registry,
    def,
    namespace,
    o,
    async (row) => {
      if (unfit) return undefined;
      const m = await itemMessage(registry, def, row, matches);
      if (m === 'unfit') unfit = true;
      return typeof m === 'string' ? undefined : m;
    },
    prefill,
  );
  // set inside the row callback above
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition
  return unfit
    ? undefined
    : encodeListEnvelope(apiVersion, def.listKind, page.metadata, page.items);
}

/**
 * A stored object's protobuf message, encoded once per object, version and resource and kept in
 * the served cache (lists and watches in protobuf share it); 'dropped' when `matches` (the
 * selectors) drops it, 'unfit' when it does not fit its message.
 */
export async function itemMessage(
  registry: Registry,
  def: ResourceDef,
  row: RawRevision,
  matches?: (obj: Obj) => boolean,
): Promise<Uint8Array | 'dropped' | 'unfit'> {
  const cache = registry.served;
  let bytes = cache.protobuf(def, row.key, row.rv, row.value.length);
  if (bytes !== undefined && matches === undefined) return bytes;
  const obj = await decodeRow(registry, def, row.key, row.rv, row.value);
  if (matches !== undefined && !matches(obj)) return 'dropped';
  if (bytes === undefined) {
    try {
      bytes = encodeMessage(obj, apiVersionOf(def), def.kind);
    } catch {
      return 'unfit';
    }
    cache.set('protobuf', def, row.key, row.rv, row.value.length, bytes);
  }
  return bytes;
}

function hasSelectors(
  o: Pick<ListOptions, 'labelSelector' | 'fieldSelector' | 'shardSelector'>,
): boolean {
  return (
    o.labelSelector !== undefined || o.fieldSelector !== undefined || o.shardSelector !== undefined
  );
}

interface Snapshot {
  readonly prefix: string;
  readonly end: string;
  readonly from: string;
  readonly atRev: number;
  /** The keys live under the prefix at atRev, when the list starts at the prefix's first key. */
  readonly liveAtStart: number | undefined;
}

/** Where a list starts and which revision it reads, from resourceVersion, match and continue. */
async function snapshotOf(
  registry: Registry,
  def: ResourceDef,
  namespace: string,
  o: ListOptions,
): Promise<Snapshot> {
  const store = registry.store;
  const domain = registry.platformDomain;
  const prefix = registry.prefix(def, namespace);
  const end = prefixEnd(prefix);
  await waitForRv(registry, o);
  const current = store.currentRevision();
  let from = prefix;
  let atRev = current;
  const rv = o.resourceVersion === undefined ? undefined : parseRv(o.resourceVersion);
  if (o.continueToken !== undefined) {
    if (rv !== undefined && rv !== 0)
      throw badRequest('specifying resource version is not allowed when using continue');
    const token = decodeContinue(domain, o.continueToken);
    from = prefix + token.start;
    if (token.rv > 0) {
      if (token.rv < store.compactedRevision()) {
        const fresh = encodeContinue(domain, { rv: -1, start: token.start });
        throw expired(
          'The provided continue parameter is too old to display a consistent list ' +
            'result. You can start a new list without the continue parameter, or use the ' +
            'continue token in this response to retrieve the remainder of the results. ' +
            'Continuing with the provided token results in an inconsistent list - objects ' +
            'that were created, modified, or deleted between the time the first chunk was ' +
            'returned and now may show up in the list.',
          fresh,
        );
      }
      atRev = token.rv;
    }
  } else if (rv !== undefined && rv !== 0) {
    const exact =
      o.resourceVersionMatch === 'Exact' ||
      (o.resourceVersionMatch === undefined && o.limit !== undefined && o.limit > 0);
    if (rv > current) throw tooLargeRv(rv, current);
    if (exact) {
      if (rv < store.compactedRevision())
        throw expired(`too old resource version: ${rv} (${store.compactedRevision() + 1})`);
      atRev = rv;
    }
  }
  // A first page at the newest revision: the live count, taken in the same step as the revision.
  const fromStart = from === prefix && atRev === current;
  const pagedPlain = o.limit !== undefined && o.limit > 0 && !hasSelectors(o);
  const liveAtStart = fromStart && pagedPlain ? store.liveCount(prefix) : undefined;
  return { prefix, end, from, atRev, liveAtStart };
}

interface Page<T> {
  readonly metadata: ListResult['metadata'];
  readonly items: T[];
}

/**
 * Rows whose items are made at once: with --worker-threads their served text is made on the
 * threads in one hand-off, and their decryption runs side by side there. An item past the page's
 * end that fails is never reported, as when the rows were read one by one.
 */
const ROW_WINDOW = 512;

/** A page's items so far, the key of the last row read, and whether a row was left over. */
interface Taken<T> {
  readonly items: T[];
  lastKey: string | undefined;
  more: boolean;
}

/** Adds the rows' items to the page in order, up to its limit; a row left over sets `more`. */
async function takeRows<T>(
  t: Taken<T>,
  rows: readonly RawRevision[],
  limit: number | undefined,
  item: (row: RawRevision) => Promise<T | undefined>,
  prefill: ((window: readonly RawRevision[]) => Promise<void>) | undefined,
): Promise<void> {
  for (let i = 0; i < rows.length; i += ROW_WINDOW) {
    const window = rows.slice(i, i + ROW_WINDOW);
    if (prefill !== undefined) await prefill(window);
    const done = await Promise.allSettled(window.map(item));
    for (const [j, row] of window.entries()) {
      if (limit !== undefined && t.items.length >= limit) {
        t.more = true;
        return;
      }
      const it = done[j];
      if (it?.status === 'rejected') throw it.reason;
      t.lastKey = row.key;
      if (it?.value !== undefined) t.items.push(it.value);
    }
  }
}

/**
 * Reads one page of the snapshot; `item` turns a row into an item, or undefined when the selectors
 * drop it.
 */
async function runList<T>(
  registry: Registry,
  def: ResourceDef,
  namespace: string,
  o: ListOptions,
  item: (row: RawRevision) => Promise<T | undefined>,
  /** Awaited before each window's items are made (listJson: the served text made elsewhere). */
  prefill?: (window: readonly RawRevision[]) => Promise<void>,
): Promise<Page<T>> {
  const store = registry.store;
  const snap = await snapshotOf(registry, def, namespace, o);
  const { prefix, end, atRev } = snap;
  const limit = o.limit !== undefined && o.limit > 0 ? o.limit : undefined;
  const t: Taken<T> = { items: [], lastKey: undefined, more: false };
  const { items } = t;
  let cursor = snap.from;
  try {
    for (;;) {
      const want = limit === undefined ? -1 : Math.max(limit - items.length, 1) + 1;
      const rows = store.rangeRaw(cursor, end, atRev, want);
      await takeRows(t, rows, limit, item, prefill);
      if (t.more || rows.length === 0 || limit === undefined || rows.length < want) break;
      const last = rows[rows.length - 1];
      if (last === undefined) break;
      cursor = last.key + '\u0000';
      if (items.length >= limit) {
        // Exactly filled: more remain only if another key follows.
        t.more = store.rangeRaw(cursor, end, atRev, 1).length > 0;
        break;
      }
    }
  } catch (err) {
    if (err instanceof CompactedError) throw expired(err.message);
    throw err;
  }
  const metadata: ListResult['metadata'] = { resourceVersion: String(atRev) };
  const { more, lastKey } = t;
  if (more && lastKey !== undefined) {
    const nextStart = lastKey.slice(prefix.length) + '\u0000';
    metadata.continue = encodeContinue(registry.platformDomain, { rv: atRev, start: nextStart });
    if (!hasSelectors(o))
      metadata.remainingItemCount = remainingAfter(
        registry,
        snap,
        prefix + nextStart,
        items.length,
      );
  }
  if (o.shardSelector !== undefined) metadata.shardInfo = { selector: o.shardSelector.selector };
  return { metadata, items };
}

/**
 * Live keys after this page: the count at its start (the store's live count for a first page, or
 * the one remembered from the page before) less what it returned, or else a count in the store.
 */
function remainingAfter(
  registry: Registry,
  snap: Snapshot,
  next: string,
  returned: number,
): number {
  const counts = registry.remainingCounts;
  const before = snap.liveAtStart ?? counts.get(snap.atRev, snap.from, snap.end);
  const remaining =
    before === undefined
      ? registry.store.countRange(next, snap.end, snap.atRev)
      : before - returned;
  counts.set(snap.atRev, next, snap.end, remaining);
  return remaining;
}

export async function decodeRow(
  registry: Registry,
  def: ResourceDef,
  key: string,
  rv: number,
  value: Uint8Array,
): Promise<Obj> {
  try {
    return servedShape(def, await registry.store.decode(key, rv, value));
  } catch (err) {
    if (err instanceof StoreReadError)
      throw storeReadFailure(err, def, key.split('/').pop() ?? key);
    throw err;
  }
}
