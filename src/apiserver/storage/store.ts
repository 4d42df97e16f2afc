// The object store: a multi-version key/value table in SQLite (better-sqlite3), shaped like the
// reference's etcd. Every write gets the next value of one global, monotonically increasing
// revision (the resourceVersion). Old revisions stay until compaction, so a list can be served
// as of an earlier revision (consistent pages across `continue`) and a watch can resume from any
// revision that has not been compacted. Values pass through the TransformerRegistry (encryption
// at rest) on the way in and out. On disk (`--data-dir`) the writes of one event-loop turn are
// committed together, and the log is synced off the event loop, one sync for every batch
// committed while the last one ran (write-batch.ts, wal-sync.ts). Readers see only what is
// durable: the revision the store serves (`currentRevision`) moves once a sync covered a batch,
// every read is bounded by it, and no write is answered before then.

import type Database from 'better-sqlite3';
import { openDatabase, prepareKept } from './sqlite-handles.js';
import { ensureDirSync } from './ensure-dir.js';
import { LiveCounts, liveDelta } from './live-counts.js';
import {
  LogSyncError,
  WriteBatcher,
  type CommittedBatch,
  type LogSync,
  type PendingWrite,
  type WriteOutcome,
} from './write-batch.js';
import { walSync, type WalSync } from './wal-sync.js';
import { FlagError } from '../../common/util/errors.js';
import { join } from 'node:path';
import type { TransformerRegistry, ValueTransformer } from '../interfaces.js';
import type { Logger } from '../../common/log/types.js';
import type { Clock } from '../../common/util/clock.js';
import { recordOf } from '../../common/util/json-shape.js';
import { storedObjectOf } from './stored-object.js';

export type ChangeType = 'ADDED' | 'MODIFIED' | 'DELETED';
const opCode: Record<ChangeType, number> = { ADDED: 0, MODIFIED: 1, DELETED: 2 };
const opName: readonly ChangeType[] = ['ADDED', 'MODIFIED', 'DELETED'];

export type StoredObject = Record<string, unknown>;

/** A raw row: the value is still in its stored (possibly encrypted) form. */
export interface RawRevision {
  readonly key: string;
  readonly rv: number;
  readonly type: ChangeType;
  readonly value: Uint8Array;
}

/** A change announced to watchers right after it is committed. */
export interface Change {
  readonly key: string;
  readonly rv: number;
  readonly type: ChangeType;
  /** The object as written (for DELETED: its last state), resourceVersion set to `rv`. */
  readonly object: StoredObject;
  /** The state before this change, when there was one. */
  readonly prev: StoredObject | undefined;
}

export type ChangeListener = (change: Change) => void;

/**
 * The storage key names the resource it belongs to: `/<group or core>/<resource>/[<ns>/]<name>`.
 */
export interface KeyInfo {
  readonly group: string;
  readonly resource: string;
}

export function parseKey(key: string): KeyInfo {
  const parts = key.split('/');
  const g = parts[1] ?? '';
  return { group: g === 'core' ? '' : g, resource: parts[2] ?? '' };
}

/** A stored value that cannot be decrypted or decoded. */
export class StoreReadError extends Error {
  readonly key: string;
  constructor(key: string, cause: unknown) {
    super(
      `failed to read stored object ${key}: ` +
        (cause instanceof Error ? cause.message : String(cause)),
      { cause },
    );
    this.key = key;
  }
}

/** The revision a read asked for has been compacted away. */
export class CompactedError extends Error {
  readonly requested: number;
  readonly oldest: number;
  constructor(requested: number, oldest: number) {
    super(`too old resource version: ${requested} (${oldest})`);
    this.requested = requested;
    this.oldest = oldest;
  }
}

/**
 * Thrown inside a write when the current state is not what the writer read (optimistic
 * concurrency).
 */
export class StoreConflictError extends Error {}

export interface StoreOptions {
  /** Directory for the database file; undefined keeps everything in memory. */
  readonly dataDir?: string | undefined;
  readonly transformers: TransformerRegistry;
  readonly logger: Logger;
  readonly clock: Clock;
  /** How long superseded revisions stay readable (continue tokens, watch resumption). */
  readonly compactionIntervalMs: number;
  /** On disk: the log's sync as seen by the writes (tests wrap the real one to hold it). */
  readonly logSync?: (real: LogSync) => LogSync;
}

const encoder = new TextEncoder();

export class Store {
  private readonly db: Database.Database;
  private readonly transformers: TransformerRegistry;
  private readonly logger: Logger;
  private readonly clock: Clock;
  private readonly compactionIntervalMs: number;
  private readonly listeners = new Set<ChangeListener>();
  /** The newest durable revision: what readers see. */
  private rv: number;
  /** The newest committed revision (ahead of `rv` while a sync is under way). */
  private committedRv: number;
  private compacted: number;
  /**
   * (revision, time) marks; compaction removes what was superseded before the mark one interval
   * old.
   */
  private readonly marks: { rv: number; at: number }[] = [];
  private readonly stmts: ReturnType<Store['prepare']>;
  private readonly commitTxn: Database.Transaction<
    (key: string, op: number, value: Uint8Array, expectRev: number) => number
  >;
  /** Live keys per listed prefix (for remainingItemCount), kept as writes commit. */
  private readonly live = new LiveCounts((p) => this.countRange(p, prefixEnd(p), this.rv));
  /** (key, delta) pairs of the transaction under way, applied to `live` once it committed. */
  private pendingLive: (string | number)[] = [];
  private readonly goneListeners = new Set<(key: string) => void>();
  /** Group commit, on disk only (in memory there is no fsync to share). */
  private readonly batcher: WriteBatcher | undefined;
  private readonly wal: WalSync | undefined;

  constructor(opts: StoreOptions) {
    this.transformers = opts.transformers;
    this.logger = opts.logger;
    this.clock = opts.clock;
    this.compactionIntervalMs = opts.compactionIntervalMs;
    if (opts.dataDir !== undefined) {
      const file = join(opts.dataDir, 'plat-apiserver.db');
      try {
        ensureDirSync(opts.dataDir, 0o700);
        this.db = openDatabase(file);
        // exec, not pragma(): pragma() prepares a statement each call (see sqlite-handles.ts).
        // NORMAL: a commit does not flush the log; wal-sync.ts does, off the event loop.
        this.db.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;');
      } catch (err) {
        throw new FlagError(
          `--data-dir ${opts.dataDir}: cannot open the database ${file}: ` +
            (err instanceof Error ? err.message : String(err)),
          { flag: 'data-dir', cause: err },
        );
      }
    } else {
      this.db = openDatabase(':memory:');
    }
    this.db.exec(`
      CREATE TABLE IF NOT EXISTS revisions (
        key TEXT NOT NULL, rv INTEGER NOT NULL, op INTEGER NOT NULL, value BLOB NOT NULL,
        PRIMARY KEY (key, rv)) WITHOUT ROWID;
      CREATE INDEX IF NOT EXISTS revisions_by_rv ON revisions (rv);
      CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value INTEGER NOT NULL);
    `);
    this.stmts = this.prepare();
    // One prepared transaction (creating it per write is measurably slower).
    this.commitTxn = this.db.transaction(
      (key: string, op: number, value: Uint8Array, expectRev: number): number => {
        const cur = this.stmts.latest.get(key);
        const curRev = cur === undefined || cur.op === 2 ? 0 : cur.rv;
        if (curRev !== expectRev)
          throw new StoreConflictError(`${key}: expected revision ${expectRev}, found ${curRev}`);
        const rv = this.committedRv + 1;
        this.stmts.insert.run(key, rv, op, value);
        this.stmts.setMeta.run('rv', rv);
        this.pendingLive.push(key, liveDelta(curRev !== 0, op));
        return rv;
      },
    );
    this.wal = opts.dataDir === undefined ? undefined : this.openWal(opts.dataDir);
    this.batcher =
      this.wal === undefined ? undefined : this.makeBatcher(opts.logSync?.(this.wal) ?? this.wal);
    this.rv = this.stmts.getMeta.get('rv')?.value ?? 0;
    this.committedRv = this.rv;
    this.compacted = this.stmts.getMeta.get('compacted')?.value ?? 0;
    this.marks.push({ rv: this.rv, at: this.clock.nowMs() });
  }

  private prepare() {
    return { ...this.prepareKeyed(), ...this.prepareScans() };
  }

  /** Statements on one key (and the meta table). */
  private prepareKeyed() {
    const db = this.db;
    return {
      getMeta: prepareKept<[string], { value: number }>(
        db,
        'SELECT value FROM meta WHERE name = ?',
      ),
      setMeta: prepareKept<[string, number]>(
        db,
        'INSERT INTO meta (name, value) VALUES (?, ?) ON CONFLICT(name) DO UPDATE SET ' +
          'value = excluded.value',
      ),
      latest: prepareKept<[string], { rv: number; op: number; value: Buffer }>(
        db,
        'SELECT rv, op, value FROM revisions WHERE key = ? ORDER BY rv DESC LIMIT 1',
      ),
      atRev: prepareKept<[string, number], { rv: number; op: number; value: Buffer }>(
        db,
        'SELECT rv, op, value FROM revisions WHERE key = ? AND rv <= ? ORDER BY rv DESC LIMIT 1',
      ),
      before: prepareKept<[string, number], { rv: number; op: number; value: Buffer }>(
        db,
        'SELECT rv, op, value FROM revisions WHERE key = ? AND rv < ? ORDER BY rv DESC LIMIT 1',
      ),
      insert: prepareKept<[string, number, number, Uint8Array]>(
        db,
        'INSERT INTO revisions (key, rv, op, value) VALUES (?, ?, ?, ?)',
      ),
      corrupt: prepareKept<[Uint8Array, string, number]>(
        db,
        'UPDATE revisions SET value = ? WHERE key = ? AND rv = ?',
      ),
    };
  }

  /** Statements over key ranges and revisions: lists, counts, changes, compaction. */
  private prepareScans() {
    const db = this.db;
    return {
      range: prepareKept<
        [string, string, number, number],
        { key: string; rv: number; op: number; value: Buffer }
      >(
        db,
        'SELECT key, MAX(rv) AS rv, op, value FROM revisions WHERE key >= ? AND key < ? ' +
          'AND rv <= ? GROUP BY key ORDER BY key LIMIT ?',
      ),
      count: prepareKept<[string, string, number], { n: number }>(
        db,
        'SELECT COUNT(*) AS n FROM (SELECT MAX(rv) AS rv, op FROM revisions WHERE key ' +
          '>= ? AND key < ? AND rv <= ? GROUP BY key) WHERE op != 2',
      ),
      changes: prepareKept<
        [number, number, string, string],
        { key: string; rv: number; op: number; value: Buffer }
      >(
        db,
        'SELECT key, rv, op, value FROM revisions WHERE rv > ? AND rv <= ? AND key >= ? ' +
          'AND key < ? ORDER BY rv',
      ),
      compactSuperseded: prepareKept<[number, number]>(
        db,
        `DELETE FROM revisions WHERE rv <= ? AND EXISTS (
           SELECT 1 FROM revisions AS newer
           WHERE newer.key = revisions.key AND newer.rv > revisions.rv AND newer.rv <= ?)`,
      ),
      compactTombstones: prepareKept<[number]>(
        db,
        'DELETE FROM revisions WHERE op = 2 AND rv <= ?',
      ),
    };
  }

  private openWal(dataDir: string): WalSync {
    try {
      return walSync(join(dataDir, 'plat-apiserver.db'));
    } catch (err) {
      this.db.close();
      throw new FlagError(
        `--data-dir ${dataDir}: cannot open the database's log: ` +
          (err instanceof Error ? err.message : String(err)),
        { flag: 'data-dir', cause: err },
      );
    }
  }

  private makeBatcher(log: LogSync): WriteBatcher {
    const txn = this.db.transaction((writes: readonly PendingWrite<unknown>[]): WriteOutcome[] => {
      let rv = this.committedRv;
      const out = writes.map((w): WriteOutcome => {
        const cur = this.stmts.latest.get(w.key);
        const curRev = cur === undefined || cur.op === 2 ? 0 : cur.rv;
        if (curRev !== w.expectRev)
          return new StoreConflictError(
            `${w.key}: expected revision ${w.expectRev}, found ${curRev}`,
          );
        rv += 1;
        this.stmts.insert.run(w.key, rv, w.op, w.value);
        this.pendingLive.push(w.key, liveDelta(curRev !== 0, w.op));
        return rv;
      });
      if (rv !== this.committedRv) this.stmts.setMeta.run('rv', rv);
      return out;
    });
    return new WriteBatcher({
      commit: (writes) => this.committing(() => txn.immediate(writes)),
      log,
      onFail: (err) => this.logger.error({ err }, 'storage stopped taking writes'),
    });
  }

  /**
   * Runs a write transaction. What it changed (the revision readers see, the live-key counts)
   * shows once the batch is durable; nothing of a transaction that threw.
   */
  private committing(txn: () => WriteOutcome[]): CommittedBatch {
    this.pendingLive = [];
    try {
      const outcomes = txn();
      const live = this.pendingLive;
      let last = this.committedRv;
      for (const o of outcomes) if (typeof o === 'number') last = o;
      this.committedRv = last;
      return { outcomes, durable: () => this.madeDurable(last, live) };
    } finally {
      this.pendingLive = [];
    }
  }

  private madeDurable(rv: number, live: readonly (string | number)[]): void {
    if (rv > this.rv) this.rv = rv;
    for (let i = 0; i < live.length; i += 2) {
      const key = live[i] as string;
      const delta = live[i + 1] as number;
      this.live.apply(key, delta);
      if (delta < 0) for (const l of this.goneListeners) l(key);
    }
  }

  /**
   * Calls `listener` with each key that stops being live (deleted, force-deleted included), once
   * the deletion is durable and readers see it; returns the unsubscribe function.
   */
  onKeyGone(listener: (key: string) => void): () => void {
    this.goneListeners.add(listener);
    return () => this.goneListeners.delete(listener);
  }

  /** The keys live under `prefix` (ending in `/`) at the newest revision. */
  liveCount(prefix: string): number {
    return this.live.get(prefix);
  }

  /** The newest committed revision. */
  currentRevision(): number {
    return this.rv;
  }

  /** Revisions at or below this one may be gone. */
  compactedRevision(): number {
    return this.compacted;
  }

  private transformer(key: string): ValueTransformer {
    const k = parseKey(key);
    return this.transformers.transformerFor(k.resource, k.group);
  }

  /** Encodes an object for storage (without its resourceVersion, which the row carries). */
  async encode(key: string, obj: StoredObject): Promise<Uint8Array> {
    const meta = { ...recordOf(obj['metadata']) };
    delete meta['resourceVersion'];
    const plain = encoder.encode(JSON.stringify({ ...obj, metadata: meta }));
    return this.transformer(key).toStorage(plain, key);
  }

  /** Decodes a stored value; a value that cannot be read throws StoreReadError. */
  async decode(key: string, rv: number, value: Uint8Array): Promise<StoredObject> {
    try {
      return storedObjectOf(await this.plaintext(key, value), rv);
    } catch (err) {
      throw err instanceof StoreReadError ? err : new StoreReadError(key, err);
    }
  }

  /** A stored value's plaintext (decrypted); one that cannot be decrypted throws StoreReadError. */
  async plaintext(key: string, value: Uint8Array): Promise<Uint8Array> {
    try {
      return (await this.transformer(key).fromStorage(value, key)).data;
    } catch (err) {
      throw new StoreReadError(key, err);
    }
  }

  /** The current raw state of one key (undefined when absent or deleted). */
  getRaw(key: string, atRev?: number): RawRevision | undefined {
    if (atRev !== undefined && atRev < this.compacted)
      throw new CompactedError(atRev, this.compacted + 1);
    const row = this.stmts.atRev.get(key, Math.min(atRev ?? this.rv, this.rv));
    if (row === undefined || row.op === 2) return undefined;
    return { key, rv: row.rv, type: opName[row.op] ?? 'MODIFIED', value: row.value };
  }

  async get(key: string, atRev?: number): Promise<StoredObject | undefined> {
    const raw = this.getRaw(key, atRev);
    return raw === undefined ? undefined : this.decode(key, raw.rv, raw.value);
  }

  /**
   * Raw rows of the live keys in [from, to) as of revision `atRev`, in key order, at most `max`.
   * Synchronous and fully read, so no statement stays open across an await, and a caller can
   * read a snapshot and register a listener in one tick.
   */
  rangeRaw(from: string, to: string, atRev: number, max = -1): RawRevision[] {
    if (atRev < this.compacted) throw new CompactedError(atRev, this.compacted + 1);
    const rev = Math.min(atRev, this.rv);
    const out: RawRevision[] = [];
    let cursor = from;
    const batch = max < 0 ? 100000 : max;
    while (max < 0 || out.length < max) {
      const rows = this.stmts.range.all(cursor, to, rev, batch);
      for (const row of rows) {
        if (row.op === 2) continue;
        out.push({
          key: row.key,
          rv: row.rv,
          type: opName[row.op] ?? 'MODIFIED',
          value: row.value,
        });
        if (max >= 0 && out.length >= max) break;
      }
      const last = rows[rows.length - 1];
      if (rows.length < batch || last === undefined) break;
      cursor = last.key + '\u0000';
    }
    return out;
  }

  /** How many live keys [from, to) holds as of `atRev`. */
  countRange(from: string, to: string, atRev: number): number {
    return this.stmts.count.get(from, to, Math.min(atRev, this.rv))?.n ?? 0;
  }

  /** Changes in (afterRev, upToRev] under [from, to), in revision order. */
  changesRaw(afterRev: number, upToRev: number, from: string, to: string): RawRevision[] {
    if (afterRev < this.compacted) throw new CompactedError(afterRev, this.compacted + 1);
    return this.stmts.changes.all(afterRev, Math.min(upToRev, this.rv), from, to).map((row) => ({
      key: row.key,
      rv: row.rv,
      type: opName[row.op] ?? 'MODIFIED',
      value: row.value,
    }));
  }

  /** The raw state of `key` just before revision `rv` (for watch filtering of resumed changes). */
  previousRaw(key: string, rv: number): RawRevision | undefined {
    const row = this.stmts.before.get(key, Math.min(rv, this.rv + 1));
    if (row === undefined || row.op === 2) return undefined;
    return { key, rv: row.rv, type: opName[row.op] ?? 'MODIFIED', value: row.value };
  }

  /**
   * Commits one change. `expectRev` is the revision the writer based its change on (0 = the key
   * must not exist); a mismatch throws StoreConflictError. Returns the committed change.
   */
  async write(
    key: string,
    type: ChangeType,
    obj: StoredObject,
    expectRev: number,
    prev: StoredObject | undefined,
  ): Promise<Change> {
    const value = await this.encode(key, obj);
    const announce = (rv: number): Change => {
      const meta = {
        ...recordOf(obj['metadata']),
        resourceVersion: String(rv),
      };
      const change: Change = { key, rv, type, object: { ...obj, metadata: meta }, prev };
      this.emit(change);
      return change;
    };
    if (this.batcher !== undefined)
      return this.batcher.add({ key, op: opCode[type], value, expectRev, done: announce });
    return announce(this.commit(key, type, value, expectRev));
  }

  /**
   * Removes a key without reading its value (for values that can no longer be decoded), durable
   * when it returns.
   */
  forceDelete(key: string): number {
    this.batcher?.drainNow(); // the writes queued before it commit first, as they were asked
    const raw = this.getRaw(key);
    if (raw === undefined) return this.rv;
    return this.commit(key, 'DELETED', raw.value, raw.rv);
  }

  /**
   * One write committed at once, durable and visible when it returns: in memory, or a
   * force-delete (on disk through the batcher, after the writes queued before it).
   */
  private commit(key: string, type: ChangeType, value: Uint8Array, expectRev: number): number {
    const txn = (): CommittedBatch =>
      this.committing(() => [this.commitTxn.immediate(key, opCode[type], value, expectRev)]);
    if (this.batcher === undefined) txn().durable();
    else this.batcher.commitNow(txn);
    return this.rv;
  }

  private emit(change: Change): void {
    for (const l of this.listeners) {
      try {
        l(change);
      } catch (err) {
        this.logger.error({ err }, 'watch listener failed');
      }
    }
  }

  /** Registers a listener for committed changes; returns the unsubscribe function. */
  subscribe(listener: ChangeListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Resolves true once the store reaches `rv`, false after `timeoutMs` (the reference waits 3 s).
   */
  waitForRevision(rv: number, timeoutMs: number): Promise<boolean> {
    if (this.rv >= rv) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timeout = new AbortController();
      const done = (ok: boolean): void => {
        timeout.abort();
        unsubscribe();
        resolve(ok);
      };
      this.clock.sleep(timeoutMs, timeout.signal).then(
        () => done(false),
        () => undefined,
      );
      const unsubscribe = this.subscribe((c) => {
        if (c.rv >= rv) done(true);
      });
    });
  }

  listenerCount(): number {
    return this.listeners.size;
  }

  /**
   * Drops revisions superseded before the mark that is one compaction interval old. Call it
   * periodically; it records a new mark each time.
   */
  compact(): void {
    const now = this.clock.nowMs();
    this.marks.push({ rv: this.rv, at: now });
    let target: number | undefined;
    while (this.marks.length > 1 && (this.marks[0]?.at ?? now) <= now - this.compactionIntervalMs) {
      target = this.marks.shift()?.rv;
    }
    if (target === undefined || target <= this.compacted) return;
    const t = target;
    this.db.transaction(() => {
      this.stmts.compactSuperseded.run(t, t);
      this.stmts.compactTombstones.run(t);
      this.stmts.setMeta.run('compacted', t);
    })();
    this.compacted = t;
    this.logger.debug({ revision: t }, 'compacted storage');
  }

  /** Test and operations hook: overwrite a stored value in place (simulates corruption). */
  overwriteRaw(key: string, rv: number, value: Uint8Array): void {
    this.stmts.corrupt.run(value, key, rv);
  }

  close(): void {
    try {
      this.batcher?.drainNow();
    } catch (err) {
      // A failed sync was told when it happened; closing has nothing more to say about it.
      if (!(err instanceof LogSyncError)) throw err;
    } finally {
      this.listeners.clear();
      this.wal?.close();
      this.db.close();
    }
  }
}

/** The upper bound of a key prefix range: the prefix with its last character incremented. */
export function prefixEnd(prefix: string): string {
  return prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1);
}
