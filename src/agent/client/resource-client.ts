// A typed client for one resource (get/list/create/update/patch/delete/watch), namespaced or
// cluster-scoped. NodeClient, PodClient, EventClient and CsrClient are instances of it.
//
//   const pods = createPodClient<Pod>(rest);
//   const pod = await pods.get('web-1', { namespace: 'default' });
//   for await (const ev of pods.watch({ namespace: 'default', fieldSelector: 'spec.nodeName=n1',
// signal })) { ... }
import { NodeAgentError } from '../../common/util/errors.js';
import { systemClock, type Clock } from '../../common/util/clock.js';
import { silentLogger, type Logger } from '../../common/log/types.js';
import type { RequestOptions, RequestPriority, RestClient } from './rest-client.js';
import {
  isStatus,
  type ApiObject,
  type ObjectList,
  type Status,
  type WatchEvent,
} from './types.js';
import { AnswerDecoder, decodeStatus } from './answer-decoder.js';
import type { AnswerSchema } from './answer-schema.js';
import { resilientWatch } from './watch.js';

export interface ResourceClientOptions<T extends ApiObject> {
  client: RestClient;
  /** Decodes each answer (and each watched object) into T: nothing reaches the caller unchecked. */
  schema: AnswerSchema<T>;
  /** '' for the core group (served under /api). */
  group: string;
  version: string;
  /** Plural resource name, e.g. 'pods'. */
  resource: string;
  kind: string;
  namespaced: boolean;
  /** Rate-limit class for every call of this client (events and heartbeats bypass qps). */
  priority?: RequestPriority;
  clock?: Clock;
  logger?: Logger;
}

export interface CallOptions {
  namespace?: string;
  signal?: AbortSignal;
}

export interface GetOptions extends CallOptions {
  /** "0": any version the server holds, which the reference serves from its cache. */
  resourceVersion?: string;
}

export interface ListOptions extends CallOptions {
  labelSelector?: string;
  fieldSelector?: string;
  limit?: number;
  continue?: string;
  resourceVersion?: string;
  resourceVersionMatch?: string;
}

export interface WriteOptions extends CallOptions {
  dryRun?: 'All';
  fieldManager?: string;
  fieldValidation?: 'Ignore' | 'Warn' | 'Strict';
}

export interface DeleteOptions extends CallOptions {
  gracePeriodSeconds?: number;
  propagationPolicy?: 'Orphan' | 'Background' | 'Foreground';
  preconditions?: { uid?: string; resourceVersion?: string };
}

export type PatchType = 'merge' | 'json' | 'strategic';

export interface WatchOptions extends CallOptions {
  labelSelector?: string;
  fieldSelector?: string;
  /** Start from here; unset: list first (yielded as a RELIST event), then watch. */
  resourceVersion?: string;
  allowWatchBookmarks?: boolean;
  /** Server-side timeout of each watch request; the iterator reconnects after it. */
  timeoutSeconds?: number;
}

const PATCH_TYPES: Record<PatchType, string> = {
  merge: 'application/merge-patch+json',
  json: 'application/json-patch+json',
  strategic: 'application/strategic-merge-patch+json',
};

export class ResourceClient<T extends ApiObject> {
  readonly rest: RestClient;
  readonly group: string;
  readonly version: string;
  readonly resource: string;
  readonly kind: string;
  readonly namespaced: boolean;
  private readonly priority: RequestPriority;
  private readonly clock: Clock;
  private readonly logger: Logger;
  private readonly decoder: AnswerDecoder<T>;

  constructor(options: ResourceClientOptions<T>) {
    this.rest = options.client;
    this.group = options.group;
    this.version = options.version;
    this.resource = options.resource;
    this.kind = options.kind;
    this.namespaced = options.namespaced;
    this.priority = options.priority ?? 'default';
    this.clock = options.clock ?? systemClock;
    this.logger = options.logger ?? silentLogger();
    this.decoder = new AnswerDecoder({ schema: options.schema, kind: options.kind });
  }

  /** One call, its answer decoded as T. */
  private async call(opts: RequestOptions): Promise<T> {
    return this.decodeObject(await this.rest.request(opts), opts);
  }

  private decodeObject(value: unknown, opts: RequestOptions): Promise<T> {
    return this.decoder.object(value, `${opts.method ?? 'GET'} ${opts.path}`);
  }

  get apiVersion(): string {
    return this.group ? `${this.group}/${this.version}` : this.version;
  }

  /** Collection path (optionally under `watch/`), with the namespace when namespaced. */
  path(namespace: string | undefined, name?: string, subresource?: string, watch = false): string {
    const root = this.group ? `/apis/${this.group}/${this.version}` : `/api/${this.version}`;
    let p = root + (watch ? '/watch' : '');
    if (this.namespaced) {
      if (namespace) p += `/namespaces/${encodeURIComponent(namespace)}`;
      else if (name !== undefined)
        throw new NodeAgentError(
          'Api',
          `${this.resource} are namespaced: a namespace is required for ${name}`,
        );
    }
    p += `/${this.resource}`;
    if (name !== undefined) p += `/${encodeURIComponent(name)}`;
    if (subresource) p += `/${subresource}`;
    return p;
  }

  private ns(opts: CallOptions | undefined, obj?: T): string | undefined {
    return this.namespaced ? (opts?.namespace ?? obj?.metadata?.namespace) : undefined;
  }

  private base(opts: CallOptions | undefined): { signal?: AbortSignal; priority: RequestPriority } {
    return opts?.signal
      ? { signal: opts.signal, priority: this.priority }
      : { priority: this.priority };
  }

  get(name: string, opts?: GetOptions): Promise<T> {
    return this.call({
      path: this.path(this.ns(opts), name),
      query: { resourceVersion: opts?.resourceVersion },
      ...this.base(opts),
    });
  }

  async list(opts?: ListOptions): Promise<ObjectList<T>> {
    const path = this.path(this.ns(opts));
    const answer = await this.rest.request({
      path,
      query: {
        labelSelector: opts?.labelSelector,
        fieldSelector: opts?.fieldSelector,
        limit: opts?.limit,
        continue: opts?.continue,
        resourceVersion: opts?.resourceVersion,
        resourceVersionMatch: opts?.resourceVersionMatch,
      },
      ...this.base(opts),
    });
    return this.decoder.list(answer, `GET ${path}`);
  }

  create(obj: T, opts?: WriteOptions): Promise<T> {
    const body = { apiVersion: this.apiVersion, kind: this.kind, ...obj };
    return this.call({
      method: 'POST',
      path: this.path(this.ns(opts, obj)),
      query: writeQuery(opts),
      body,
      ...this.base(opts),
    });
  }

  /** PUT of the whole object (or of a subresource such as 'status'). */
  update(obj: T, opts?: WriteOptions & { subresource?: string }): Promise<T> {
    const name = obj.metadata?.name;
    if (!name) throw new NodeAgentError('Api', `update of ${this.resource} needs metadata.name`);
    const body = { apiVersion: this.apiVersion, kind: this.kind, ...obj };
    return this.call({
      method: 'PUT',
      path: this.path(this.ns(opts, obj), name, opts?.subresource),
      query: writeQuery(opts),
      body,
      ...this.base(opts),
    });
  }

  updateStatus(obj: T, opts?: WriteOptions): Promise<T> {
    return this.update(obj, { ...opts, subresource: 'status' });
  }

  patch(
    name: string,
    patch: unknown,
    opts?: WriteOptions & { type?: PatchType; subresource?: string },
  ): Promise<T> {
    return this.call({
      method: 'PATCH',
      path: this.path(this.ns(opts), name, opts?.subresource),
      query: writeQuery(opts),
      body: patch,
      bodyContentType: PATCH_TYPES[opts?.type ?? 'merge'],
      ...this.base(opts),
    });
  }

  /** The deleted object, or the Status the server answers with (once it is gone). */
  async delete(name: string, opts?: DeleteOptions): Promise<Status | T> {
    const body: Record<string, unknown> = { apiVersion: 'v1', kind: 'DeleteOptions' };
    if (opts?.gracePeriodSeconds !== undefined) body.gracePeriodSeconds = opts.gracePeriodSeconds;
    if (opts?.propagationPolicy) body.propagationPolicy = opts.propagationPolicy;
    if (opts?.preconditions) body.preconditions = opts.preconditions;
    const call: RequestOptions = {
      method: 'DELETE',
      path: this.path(this.ns(opts), name),
      body,
      ...this.base(opts),
    };
    const answer = await this.rest.request(call);
    return isStatus(answer)
      ? decodeStatus(answer, `DELETE ${call.path}`)
      : this.decodeObject(answer, call);
  }

  /**
   * Watch as an async iterator. Resumes from the last resourceVersion after a disconnect,
   * lists again after 410 Gone (RELIST event); BOOKMARK events only move the resourceVersion
   * forward and are passed on. Stop by breaking out of the loop or aborting `signal`.
   */
  watch(opts: WatchOptions = {}): AsyncGenerator<WatchEvent<T>> {
    const namespace = this.ns(opts);
    const listOpts: ListOptions = {};
    if (namespace) listOpts.namespace = namespace;
    if (opts.labelSelector) listOpts.labelSelector = opts.labelSelector;
    if (opts.fieldSelector) listOpts.fieldSelector = opts.fieldSelector;
    return resilientWatch<T>(
      {
        list: (signal) => this.list({ ...listOpts, signal }),
        decode: (object) => this.decoder.object(object, `watch ${this.path(namespace)}`),
        open: async (resourceVersion, signal) => {
          const res = await this.rest.stream({
            path: this.path(namespace),
            query: {
              watch: 'true',
              resourceVersion,
              labelSelector: opts.labelSelector,
              fieldSelector: opts.fieldSelector,
              allowWatchBookmarks: opts.allowWatchBookmarks ?? true,
              timeoutSeconds: opts.timeoutSeconds,
            },
            signal,
            priority: this.priority,
            retry: false,
          });
          return res.body;
        },
      },
      {
        ...(opts.resourceVersion === undefined ? {} : { resourceVersion: opts.resourceVersion }),
        ...(opts.signal ? { signal: opts.signal } : {}),
        clock: this.clock,
        logger: this.logger,
      },
    );
  }
}

function writeQuery(opts: WriteOptions | undefined): Record<string, string | undefined> {
  return {
    dryRun: opts?.dryRun,
    fieldManager: opts?.fieldManager,
    fieldValidation: opts?.fieldValidation,
  };
}
