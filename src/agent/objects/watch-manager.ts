// configMapAndSecretChangeDetectionStrategy Watch: one watch per object registered pods refer
// to (fieldSelector metadata.name), started when the first pod refers to it and stopped when the
// last one goes; an immutable object's watch stops once it has been read. `get` waits up to 1 s
// for the watch's first list, then answers from it, with the reference's messages:
// `configmap "x" not found` (the singular resource, as its watch-based cache names it),
// `failed to sync configmap cache: timed out waiting for the condition`,
// `object "ns"/"x" not registered`.
import { afterMs, type Clock } from '../../common/util/clock.js';
import { BackoffSequence } from '../../common/util/backoff.js';
import type { Logger } from '../../common/log/types.js';
import { userMessage } from '../../common/util/errors.js';
import type { Pod } from '../pod/types.js';
import type { ObjectReader } from './reader.js';
import { PodRegistrations, type ObjectRef } from './registrations.js';
import {
  ObjectNotFoundError,
  objectKey,
  toPodObject,
  type ObjectKind,
  type PodObject,
  type PodObjects,
  type RawObject,
} from './types.js';

/** How long `get` waits for a new watch's first list (the reference polls for 1 s). */
export const SYNC_WAIT_MS = 1000;

interface Item {
  readonly ref: ObjectRef;
  readonly ac: AbortController;
  synced: boolean;
  object: RawObject | undefined;
  readonly waiters: Set<() => void>;
}

export class WatchingObjectManager implements PodObjects {
  private readonly items = new Map<string, Item>();
  private readonly regs = new PodRegistrations();

  constructor(private readonly o: { reader: ObjectReader; clock: Clock; logger: Logger }) {}

  registerPod(pod: Pod): void {
    const { added, removed } = this.regs.register(pod);
    for (const r of added) this.start(r);
    for (const r of removed) this.drop(r);
  }

  unregisterPod(pod: Pod): void {
    for (const r of this.regs.unregister(pod)) this.drop(r);
  }

  stop(): void {
    for (const item of this.items.values()) item.ac.abort();
    this.items.clear();
  }

  async get(kind: ObjectKind, namespace: string, name: string): Promise<PodObject> {
    const item = this.items.get(objectKey(kind, namespace, name));
    if (item === undefined) throw new Error(`object "${namespace}"/"${name}" not registered`);
    if (!item.synced && !(await this.waitSynced(item)))
      throw new Error(
        `failed to sync ${kind.toLowerCase()} cache: timed out waiting for the condition`,
      );
    const raw = item.object;
    if (raw === undefined)
      throw new ObjectNotFoundError(kind, name, `${kind.toLowerCase()} "${name}" not found`);
    if (raw.immutable === true) item.ac.abort();
    return toPodObject(kind, raw, namespace, name);
  }

  private waitSynced(item: Item): Promise<boolean> {
    return new Promise((resolve) => {
      const done = (): void => {
        cancel();
        item.waiters.delete(done);
        resolve(item.synced);
      };
      const cancel = afterMs(this.o.clock, SYNC_WAIT_MS, done);
      item.waiters.add(done);
    });
  }

  private start(ref: ObjectRef): void {
    const key = objectKey(ref.kind, ref.namespace, ref.name);
    const item: Item = {
      ref,
      ac: new AbortController(),
      synced: false,
      object: undefined,
      waiters: new Set(),
    };
    this.items.set(key, item);
    void this.run(item);
  }

  private drop(ref: ObjectRef): void {
    const key = objectKey(ref.kind, ref.namespace, ref.name);
    this.items.get(key)?.ac.abort();
    this.items.delete(key);
  }

  /** The watch of one object, reopened with a back-off after a failure until it is dropped. */
  private async run(item: Item): Promise<void> {
    const { ref, ac } = item;
    const backoff = new BackoffSequence({
      clock: this.o.clock,
      policy: { initialMs: 500, maxMs: 30_000 },
    });
    while (!ac.signal.aborted) {
      try {
        for await (const ev of this.o.reader.watch(ref.kind, ref.namespace, ref.name, ac.signal)) {
          if (ev.type === 'RELIST') this.set(item, ev.object.items[0]);
          else if (ev.type === 'ADDED' || ev.type === 'MODIFIED') this.set(item, ev.object);
          else if (ev.type === 'DELETED') this.set(item, undefined);
          backoff.reset();
        }
      } catch (err) {
        // The signal may abort while the watch is read.
        // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition
        if (ac.signal.aborted) return;
        this.o.logger.warn(
          { kind: ref.kind, namespace: ref.namespace, name: ref.name, err: userMessage(err) },
          'watch of an object pods refer to failed; retrying',
        );
        await backoff.sleep(ac.signal).catch(() => undefined);
      }
    }
  }

  private set(item: Item, raw: RawObject | undefined): void {
    item.object = raw;
    item.synced = true;
    for (const w of [...item.waiters]) w();
  }
}
