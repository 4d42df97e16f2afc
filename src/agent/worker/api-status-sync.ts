// Reports pod status to the API server: the status of pods that came from it, and mirror pods
// (read-only reflections, annotated with the static pod's config hash) for static pods. A mirror
// pod whose hash no longer matches its static pod is replaced, so edits show up. Work for one
// pod name is serialized; failed writes are retried every `retryMs` (and on the next change).
// Every call carries the stop signal given to start(): once the agent stops, writes in flight or
// waiting for a retry give up at once (the reference's status manager stops with the kubelet and
// makes no last write), so a stop does not wait on an API server that is away.
import type { Names } from '../../common/names.js';
import type { Logger } from '../../common/log/types.js';
import type { Clock } from '../../common/util/clock.js';
import { isAlreadyExists, isNotFound, userMessage } from '../../common/util/errors.js';
import type { ResourceClient } from '../client/resource-client.js';
import {
  configHashAnnotation,
  configMirrorAnnotation,
  configSourceAnnotation,
  isStaticPod,
} from '../pod/static.js';
import type { Pod, PodStatus } from '../pod/types.js';
import type { ApiPod } from '../source/apiserver.js';
import { statusPatch } from './status-patch.js';

/** The image mirror pods show for process:// containers, which run without one. */
export const PROCESS_IMAGE = 'process';

export interface ApiStatusSyncOptions {
  pods: ResourceClient<ApiPod>;
  names: Names;
  logger: Logger;
  clock: Clock;
  /** Retry period of failed writes. Default 10 s. */
  retryMs?: number;
  /**
   * This node's name and UID, read when a mirror pod is written: mirror pods carry a controller
   * owner reference to their Node, as the reference's (NodeRestriction refuses them otherwise).
   */
  ownerNode?: (signal?: AbortSignal) => Promise<{ name: string; uid: string }>;
}

export class ApiStatusSync {
  private readonly opts: ApiStatusSyncOptions;
  private readonly chains = new Map<string, Promise<void>>();
  /** Last status sent per uid (JSON), to skip identical writes. */
  private readonly sent = new Map<string, string>();
  /** Writes that failed, by pod uid, retried by the loop. */
  private readonly failed = new Map<string, () => Promise<void>>();
  private loop: Promise<void> = Promise.resolve();
  /** The stop signal of start(): every call carries it. */
  private signal: AbortSignal | undefined;

  constructor(opts: ApiStatusSyncOptions) {
    this.opts = opts;
  }

  /** Retries failed writes every `retryMs` until `signal` aborts. */
  start(signal: AbortSignal): void {
    this.signal = signal;
    this.loop = (async () => {
      while (!signal.aborted) {
        try {
          await this.opts.clock.sleep(this.opts.retryMs ?? 10_000, signal);
        } catch {
          return;
        }
        const retries = [...this.failed.values()];
        this.failed.clear();
        await Promise.all(retries.map((r) => r()));
      }
    })();
  }

  stopped(): Promise<void> {
    return this.loop;
  }

  private enqueue(
    key: string,
    uid: string,
    fn: () => Promise<void>,
    retry: () => Promise<void>,
  ): Promise<void> {
    const prev = this.chains.get(key) ?? Promise.resolve();
    const next = prev.then(fn).then(
      () => {
        if (this.failed.get(uid) === retry) this.failed.delete(uid);
      },
      (err: unknown) => {
        if (this.signal?.aborted === true) {
          this.opts.logger.debug(
            { pod: key, err: userMessage(err) },
            'pod status not reported: the agent is stopping',
          );
          return;
        }
        const first = !this.failed.has(uid);
        this.failed.set(uid, retry);
        const fields = { pod: key, err: userMessage(err) };
        if (first)
          this.opts.logger.warn(fields, 'could not report pod status to the API server; retrying');
        else this.opts.logger.debug(fields, 'pod status report still failing');
      },
    );
    this.chains.set(key, next);
    void next.finally(() => {
      if (this.chains.get(key) === next) this.chains.delete(key);
    });
    return next;
  }

  /** The options of one call: the stop signal when started, and `extra`. */
  private call<T extends object>(extra: T): T & { signal?: AbortSignal } {
    return this.signal === undefined ? extra : { ...extra, signal: this.signal };
  }

  /** A pod's status changed (called by the status manager). */
  statusChanged(pod: Pod, status: PodStatus): Promise<void> {
    const key = `${pod.metadata.namespace}/${pod.metadata.name}`;
    const body = JSON.stringify(status);
    if (this.sent.get(pod.metadata.uid) === body) return Promise.resolve();
    const retry = (): Promise<void> => this.statusChanged(pod, status);
    return this.enqueue(
      key,
      pod.metadata.uid,
      async () => {
        if (isStaticPod(pod, this.opts.names)) await this.ensureMirror(pod);
        await this.opts.pods.patch(
          pod.metadata.name,
          statusPatch(pod, status),
          this.call({
            type: 'strategic' as const,
            subresource: 'status',
            namespace: pod.metadata.namespace,
          }),
        );
        this.sent.set(pod.metadata.uid, body);
      },
      retry,
    );
  }

  /** A pod is gone from this node: delete its mirror pod, or finish an API deletion. */
  podRemoved(pod: Pod): Promise<void> {
    this.sent.delete(pod.metadata.uid);
    this.failed.delete(pod.metadata.uid);
    const key = `${pod.metadata.namespace}/${pod.metadata.name}`;
    const retry = (): Promise<void> => this.podRemoved(pod);
    return this.enqueue(
      key,
      pod.metadata.uid,
      async () => {
        const src = pod.metadata.annotations?.[configSourceAnnotation(this.opts.names)];
        if (src === 'api' && pod.metadata.deletionTimestamp === undefined) return;
        try {
          const hash = pod.metadata.annotations?.[configHashAnnotation(this.opts.names)];
          const existing =
            src === 'api'
              ? undefined
              : await this.opts.pods.get(
                  pod.metadata.name,
                  this.call({ namespace: pod.metadata.namespace }),
                );
          // only the mirror of this very static pod (a newer one may carry the same name)
          if (
            existing &&
            existing.metadata?.annotations?.[configMirrorAnnotation(this.opts.names)] !== hash
          )
            return;
          await this.opts.pods.delete(
            pod.metadata.name,
            this.call({
              namespace: pod.metadata.namespace,
              gracePeriodSeconds: 0,
              ...(src === 'api' ? { preconditions: { uid: pod.metadata.uid } } : {}),
            }),
          );
        } catch (err) {
          if (!isNotFound(err)) throw err;
        }
      },
      retry,
    );
  }

  private async mirrorOf(pod: Pod): Promise<ApiPod> {
    const hash =
      pod.metadata.annotations?.[configHashAnnotation(this.opts.names)] ?? pod.metadata.uid;
    const { uid: _uid, resourceVersion: _rv, creationTimestamp: _ct, ...meta } = pod.metadata;
    const owner =
      this.opts.ownerNode === undefined ? undefined : await this.opts.ownerNode(this.signal);
    const ownerReferences =
      owner === undefined
        ? {}
        : {
            ownerReferences: [
              {
                apiVersion: 'v1',
                kind: 'Node',
                name: owner.name,
                uid: owner.uid,
                controller: true,
              },
            ],
          };
    return {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        ...meta,
        ...ownerReferences,
        annotations: {
          ...(meta.annotations ?? {}),
          [configMirrorAnnotation(this.opts.names)]: hash,
        },
      },
      // the API requires an image; process:// containers have none, so the mirror says so
      spec: {
        ...pod.spec,
        containers: pod.spec.containers.map((c) => ({ ...c, image: c.image ?? PROCESS_IMAGE })),
        ...(pod.spec.initContainers
          ? {
              initContainers: pod.spec.initContainers.map((c) => ({
                ...c,
                image: c.image ?? PROCESS_IMAGE,
              })),
            }
          : {}),
      },
    } as unknown as ApiPod;
  }

  private async ensureMirror(pod: Pod): Promise<void> {
    const want = await this.mirrorOf(pod);
    const hash = want.metadata?.annotations?.[configMirrorAnnotation(this.opts.names)];
    try {
      await this.opts.pods.create(want, this.call({ namespace: pod.metadata.namespace }));
      this.opts.logger.info(
        { pod: `${pod.metadata.namespace}/${pod.metadata.name}` },
        'created mirror pod',
      );
      return;
    } catch (err) {
      if (!isAlreadyExists(err)) throw err;
    }
    const existing = await this.opts.pods.get(
      pod.metadata.name,
      this.call({ namespace: pod.metadata.namespace }),
    );
    if (existing.metadata?.annotations?.[configMirrorAnnotation(this.opts.names)] === hash) return;
    // an old mirror (or a pod that is not a mirror of this static pod): replace it
    await this.opts.pods.delete(
      pod.metadata.name,
      this.call({ namespace: pod.metadata.namespace, gracePeriodSeconds: 0 }),
    );
    await this.opts.pods.create(want, this.call({ namespace: pod.metadata.namespace }));
    this.opts.logger.info(
      { pod: `${pod.metadata.namespace}/${pod.metadata.name}` },
      'replaced mirror pod (static pod changed)',
    );
  }

  async idle(): Promise<void> {
    while (this.chains.size > 0) await Promise.all([...this.chains.values()]);
  }
}
