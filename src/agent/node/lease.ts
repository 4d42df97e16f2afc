// The node lease, as the reference's: a coordination Lease named after the node in the profile's
// node-lease namespace (kube-node-lease), holder the node name, leaseDurationSeconds from
// nodeLeaseDurationSeconds, renewed every quarter of that duration (renewTime a MicroTime),
// owned by the Node, created when missing. A failed renewal is retried with a doubling back-off
// (200 ms to 7 s, on the injected Clock) until it succeeds. A server without the lease API (404
// on the resource itself) is warned about once; the lease is then tried again at each interval
// and `active()` is false, so node status goes back to every nodeStatusUpdateFrequency.

import type { Logger } from '../../common/log/types.js';
import type { Clock } from '../../common/util/clock.js';
import { BackoffSequence } from '../../common/util/backoff.js';
import { isConflict, isNotFound, userMessage } from '../../common/util/errors.js';
import type { ApiObject } from '../client/types.js';
import { ObjectMetaSchema } from '../client/api-schemas.js';
import { z } from 'zod';

export const LEASE_RETRY_INITIAL_MS = 200;
export const LEASE_RETRY_MAX_MS = 7_000;

export interface Lease extends ApiObject {
  spec?: { holderIdentity?: string; leaseDurationSeconds?: number; renewTime?: string };
}

/**
 * A Lease as answered: metadata and the spec fields the controller reads, the rest passed through.
 */
export const LeaseSchema: z.ZodType<Lease> = z.looseObject({
  apiVersion: z.string().exactOptional(),
  kind: z.string().exactOptional(),
  metadata: ObjectMetaSchema.exactOptional(),
  spec: z
    .looseObject({
      holderIdentity: z.string().exactOptional(),
      leaseDurationSeconds: z.number().exactOptional(),
      renewTime: z.string().exactOptional(),
    })
    .exactOptional(),
});

/** What the controller needs of a lease client (the typed ResourceClient has it). */
export interface LeaseApi {
  readonly group: string;
  get(name: string, opts: { namespace: string; signal?: AbortSignal }): Promise<Lease>;
  create(obj: Lease, opts: { namespace: string; signal?: AbortSignal }): Promise<Lease>;
  update(obj: Lease, opts: { namespace: string; signal?: AbortSignal }): Promise<Lease>;
}

export interface NodeLeaseOptions {
  leases: LeaseApi;
  /**
   * The Node's uid, for the owner reference (undefined while unknown); the read ends on `signal`.
   */
  nodeUid: (signal?: AbortSignal) => Promise<string | undefined>;
  nodeName: string;
  namespace: string;
  durationSeconds: number;
  clock: Clock;
  logger: Logger;
}

/** RFC 3339 with microseconds, as the reference's MicroTime. */
export function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

export class NodeLeaseController {
  private current: Lease | undefined;
  private lastRenewMs: number | undefined;
  private warnedUnsupported = false;
  renewals = 0;
  failures = 0;

  constructor(private readonly o: NodeLeaseOptions) {}

  get intervalMs(): number {
    return (this.o.durationSeconds * 1000) / 4;
  }

  /** The lease was renewed within its duration: it is the node's heartbeat. */
  active(): boolean {
    return (
      this.lastRenewMs !== undefined &&
      this.o.clock.nowMs() - this.lastRenewMs < this.o.durationSeconds * 1000
    );
  }

  /**
   * The lease to write over `base`. The Node is read for its uid only while the lease has no
   * owner reference, as the reference does: once set, renewals carry it without a read.
   */
  private async desired(base: Lease | undefined, signal: AbortSignal | undefined): Promise<Lease> {
    const meta = { ...(base?.metadata ?? {}), name: this.o.nodeName, namespace: this.o.namespace };
    if ((meta.ownerReferences ?? []).length === 0) {
      const uid = await this.o.nodeUid(signal).catch((err: unknown) => {
        this.o.logger.warn(
          { node: this.o.nodeName, err: userMessage(err) },
          "failed to read the node for the lease's owner reference; renewing without it",
        );
        return undefined;
      });
      if (uid !== undefined && uid !== '')
        meta.ownerReferences = [{ apiVersion: 'v1', kind: 'Node', name: this.o.nodeName, uid }];
    }
    return {
      ...(base ?? {}),
      apiVersion: `${this.o.leases.group}/v1`,
      kind: 'Lease',
      metadata: meta,
      spec: {
        ...(base?.spec ?? {}),
        holderIdentity: this.o.nodeName,
        leaseDurationSeconds: this.o.durationSeconds,
        renewTime: microTime(this.o.clock.nowMs()),
      },
    };
  }

  /** One renewal: update the cached lease, else read it, else create it. Throws on failure. */
  async renew(signal?: AbortSignal): Promise<void> {
    const opts = signal !== undefined ? { signal } : {};
    if (this.current !== undefined) {
      try {
        this.current = await this.o.leases.update(await this.desired(this.current, signal), {
          ...opts,
          namespace: this.o.namespace,
        });
        this.renewed();
        return;
      } catch (err) {
        if (!isConflict(err) && !isNotFound(err)) throw err;
        this.current = undefined;
      }
    }
    let existing: Lease | undefined;
    try {
      existing = await this.o.leases.get(this.o.nodeName, { ...opts, namespace: this.o.namespace });
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
    if (existing !== undefined)
      this.current = await this.o.leases.update(await this.desired(existing, signal), {
        ...opts,
        namespace: this.o.namespace,
      });
    else this.current = await this.createLease(signal);
    this.renewed();
  }

  private async createLease(signal: AbortSignal | undefined): Promise<Lease> {
    try {
      return await this.o.leases.create(await this.desired(undefined, signal), {
        ...(signal !== undefined ? { signal } : {}),
        namespace: this.o.namespace,
      });
    } catch (err) {
      if (isNotFound(err) && !this.warnedUnsupported) {
        this.warnedUnsupported = true;
        this.o.logger.warn(
          { namespace: this.o.namespace, group: this.o.leases.group, err: userMessage(err) },
          'the API server does not serve node leases (404): falling back to node status ' +
            'updates every nodeStatusUpdateFrequency as the heartbeat; the lease is tried again ' +
            'at each interval',
        );
      }
      throw err;
    }
  }

  private renewed(): void {
    if (this.warnedUnsupported)
      this.o.logger.info(
        { namespace: this.o.namespace },
        'node lease created: the lease is the heartbeat again',
      );
    this.warnedUnsupported = false;
    this.lastRenewMs = this.o.clock.nowMs();
    this.renewals++;
  }

  /** Renews every quarter of the lease duration until `signal` aborts. */
  async run(signal: AbortSignal): Promise<void> {
    const backoff = new BackoffSequence({
      clock: this.o.clock,
      policy: { initialMs: LEASE_RETRY_INITIAL_MS, maxMs: LEASE_RETRY_MAX_MS },
    });
    while (!signal.aborted) {
      let waitMs = this.intervalMs;
      try {
        await this.renew(signal);
        backoff.reset();
      } catch (err) {
        // The signal may abort during the renewal.
        // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition
        if (signal.aborted) return;
        this.failures++;
        if (!this.warnedUnsupported)
          this.o.logger.warn(
            {
              node: this.o.nodeName,
              err: userMessage(err),
              retryInMs: Math.min(backoff.peekMs(), this.intervalMs),
            },
            'failed to renew the node lease, will retry',
          );
        const delayMs = backoff.nextMs();
        waitMs = this.warnedUnsupported ? this.intervalMs : Math.min(delayMs, this.intervalMs);
      }
      await this.o.clock.sleep(waitMs, signal).catch(() => undefined);
    }
  }
}
