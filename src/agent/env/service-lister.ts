// The Services of the cluster, listed and watched once for the service environment variables, as
// the reference's kubelet keeps its service informer (GET /api/v1/services, then a watch; the
// Node authorizer and the system:node role allow both). `synced` turns true at the first list;
// an API server that does not serve Services (404) counts as one with none, said once in the
// log, and is asked again with back-off.
import { z } from 'zod';
import { afterMs, type Clock } from '../../common/util/clock.js';
import type { Logger } from '../../common/log/types.js';
import { BackoffSequence } from '../../common/util/backoff.js';
import { ApiError, userMessage } from '../../common/util/errors.js';
import type { RestClient } from '../client/rest-client.js';
import { ResourceClient } from '../client/resource-client.js';
import { ObjectMetaSchema } from '../client/api-schemas.js';
import type { WatchEvent } from '../client/types.js';
import type { ServiceInfo } from './service-env.js';

const ServiceSchema = z.looseObject({
  metadata: ObjectMetaSchema.exactOptional(),
  spec: z
    .looseObject({
      clusterIP: z.string().nullable().exactOptional(),
      ports: z
        .array(
          z.looseObject({
            name: z.string().nullable().exactOptional(),
            port: z.number().int(),
            protocol: z.string().nullable().exactOptional(),
          }),
        )
        .nullable()
        .exactOptional(),
    })
    .nullable()
    .exactOptional(),
});
type ApiService = z.infer<typeof ServiceSchema>;

function infoOf(s: ApiService): ServiceInfo | undefined {
  const { name, namespace } = s.metadata ?? {};
  if (name === undefined || namespace === undefined) return undefined;
  return {
    namespace,
    name,
    clusterIP: s.spec?.clusterIP ?? '',
    ports: (s.spec?.ports ?? []).map((p) => ({
      name: p.name ?? '',
      port: p.port,
      protocol: p.protocol ?? '',
    })),
  };
}

export interface ServiceListerOptions {
  rest: RestClient;
  clock: Clock;
  logger: Logger;
  /** Retry delays after a failed list or watch (default 800 ms doubling to 30 s). */
  retry?: { initialMs: number; maxMs: number };
}

export class ServiceLister {
  private readonly services = new Map<string, ServiceInfo>();
  private readonly client: ResourceClient<ApiService>;
  private listed = false;
  private notServedSaid = false;
  private readonly waiters = new Set<() => void>();

  constructor(private readonly o: ServiceListerOptions) {
    this.client = new ResourceClient<ApiService>({
      client: o.rest,
      schema: ServiceSchema,
      group: '',
      version: 'v1',
      resource: 'services',
      kind: 'Service',
      namespaced: true,
      clock: o.clock,
      logger: o.logger,
    });
  }

  /** Whether the Services have been read at least once. */
  synced(): boolean {
    return this.listed;
  }

  /** Resolves true once the Services have been read, false if they have not within `ms`. */
  waitForSync(ms: number): Promise<boolean> {
    if (this.listed) return Promise.resolve(true);
    return new Promise((resolve) => {
      const done = (): void => {
        this.waiters.delete(done);
        cancel();
        resolve(this.listed);
      };
      this.waiters.add(done);
      const cancel = afterMs(this.o.clock, ms, done, { unref: true });
    });
  }

  private markListed(): void {
    this.listed = true;
    for (const w of [...this.waiters]) w();
  }

  list(): ServiceInfo[] {
    return [...this.services.values()];
  }

  /** Lists and watches until the signal aborts; failures are retried with back-off. */
  start(signal: AbortSignal): void {
    void this.run(signal);
  }

  private onEvent(ev: WatchEvent<ApiService>): void {
    const key = (s: ApiService): string =>
      `${s.metadata?.namespace ?? ''}/${s.metadata?.name ?? ''}`;
    if (ev.type === 'RELIST') {
      this.services.clear();
      for (const s of ev.object.items) {
        const info = infoOf(s);
        if (info !== undefined) this.services.set(key(s), info);
      }
      this.markListed();
    } else if (ev.type === 'ADDED' || ev.type === 'MODIFIED') {
      const info = infoOf(ev.object);
      if (info !== undefined) this.services.set(key(ev.object), info);
    } else if (ev.type === 'DELETED') this.services.delete(key(ev.object));
  }

  /** A 404: the API server serves no Services, so there are none (said once). */
  private notServed(err: unknown): boolean {
    if (!(err instanceof ApiError) || err.status !== 404) return false;
    this.services.clear();
    this.markListed();
    if (!this.notServedSaid)
      this.o.logger.warn(
        { err: userMessage(err) },
        'the API server does not serve services: containers get no service environment ' +
          'variables until it does',
      );
    this.notServedSaid = true;
    return true;
  }

  private async run(signal: AbortSignal): Promise<void> {
    const backoff = new BackoffSequence({
      clock: this.o.clock,
      policy: this.o.retry ?? { initialMs: 800, maxMs: 30_000 },
    });
    while (!signal.aborted) {
      try {
        for await (const ev of this.client.watch({ signal, allowWatchBookmarks: true })) {
          if (ev.type === 'RELIST') backoff.reset();
          this.onEvent(ev);
        }
      } catch (err) {
        // The signal may abort during the watch.
        // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition
        if (signal.aborted) return;
        if (!this.notServed(err))
          this.o.logger.warn(
            { err: userMessage(err), retryInMs: backoff.peekMs() },
            'list or watch of services failed; retrying with back-off',
          );
      }
      await backoff.sleep(signal).catch(() => undefined);
    }
  }
}
