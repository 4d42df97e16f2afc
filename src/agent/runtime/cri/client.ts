// The CRI client: runtime.v1 RuntimeService and ImageService over gRPC on unix sockets
// (@grpc/grpc-js), each call with a deadline (--runtime-request-timeout, plus the call's own
// time where the reference adds it) and answers of at most 16 MiB (the reference's maxMsgSize).
// Failures are RuntimeErrors naming the call, the socket and gRPC's status; an endpoint that
// answers without runtime.v1 is said so.
import * as grpc from '@grpc/grpc-js';
import type { Clock } from '../../../common/util/clock.js';
import type { Logger } from '../../../common/log/types.js';
import { RuntimeError } from '../../../common/util/errors.js';
import { recordOf } from '../../../common/util/json-shape.js';
import { decodeCri, encodeCri } from './codec.js';
import type { CriEndpoint } from './endpoint.js';
import { CRI_METHODS, type CriMessages, type CriMethods } from './types.generated.js';

/** The reference's limit on a CRI message (16 MiB), both ways. */
export const MAX_CRI_MESSAGE_BYTES = 16 * 1024 * 1024;

export type CriMethod = keyof CriMethods;
export type CriRequest<M extends CriMethod> = CriMessages[CriMethods[M]['request']];
export type CriResponse<M extends CriMethod> = CriMessages[CriMethods[M]['response']];

/**
 * A call that failed; `code` is gRPC's status code (14 UNAVAILABLE: nothing answers the socket).
 */
export class CriCallError extends RuntimeError {
  /** The runtime's status message alone: what a pod's status and events show (runtimeWords). */
  readonly runtimeWords: string;
  constructor(
    readonly method: CriMethod,
    readonly grpcCode: grpc.status,
    message: string,
    runtimeWords: string = message,
  ) {
    super(message);
    this.name = 'CriCallError';
    this.runtimeWords = runtimeWords;
  }
}

export interface CriClientOptions {
  runtime: CriEndpoint;
  image: CriEndpoint;
  /** --runtime-request-timeout in milliseconds; 0: no deadline. */
  timeoutMs: number;
  clock: Clock;
  /** Each call's method, duration and the calls in flight, at -v=10 (the reference's level). */
  logger?: Logger;
}

const CHANNEL_OPTIONS: grpc.ChannelOptions = {
  'grpc.max_receive_message_length': MAX_CRI_MESSAGE_BYTES,
  'grpc.max_send_message_length': MAX_CRI_MESSAGE_BYTES,
  // a runtime that went away is tried again promptly once it is back
  'grpc.initial_reconnect_backoff_ms': 200,
  'grpc.max_reconnect_backoff_ms': 2000,
};

function statusName(code: number): string {
  return grpc.status[code] ?? String(code);
}

function isServiceError(err: unknown): err is grpc.ServiceError {
  return err instanceof Error && typeof (err as Partial<grpc.ServiceError>).code === 'number';
}

/** What a call is about, for its trace line: the pod's or container's name, or an ID. */
function subjectOf(message: unknown): Record<string, unknown> {
  const r = recordOf(message);
  const out: Record<string, unknown> = {};
  for (const key of ['container_id', 'pod_sandbox_id'])
    if (typeof r[key] === 'string') out[key] = r[key];
  const nameOf = (v: unknown): unknown => recordOf(recordOf(v)['metadata'])['name'];
  const pod = nameOf(r['sandbox_config']);
  const own = nameOf(r['config']);
  if (pod !== undefined) out['pod'] = pod;
  if (pod === undefined && own !== undefined) out['pod'] = own;
  if (pod !== undefined && own !== undefined) out['container'] = own;
  return out;
}

export class CriClient {
  private readonly runtime: grpc.Client;
  private readonly image: grpc.Client;
  private inFlight = 0;

  constructor(private readonly o: CriClientOptions) {
    this.runtime = new grpc.Client(o.runtime.target, grpc.credentials.createInsecure(), {
      ...CHANNEL_OPTIONS,
    });
    this.image =
      o.image.target === o.runtime.target
        ? this.runtime
        : new grpc.Client(o.image.target, grpc.credentials.createInsecure(), {
            ...CHANNEL_OPTIONS,
          });
  }

  /** The socket a method goes to. */
  socketOf(method: CriMethod): string {
    return method.startsWith('ImageService/') ? this.o.image.path : this.o.runtime.path;
  }

  /**
   * One unary call. `extraMs` is added to the request timeout (a stop's grace period, an exec's
   * own timeout); `noDeadline` leaves the call unbounded (PullImage, as the reference pulls).
   */
  call<M extends CriMethod>(
    method: M,
    request: CriRequest<M>,
    opts: { extraMs?: number; noDeadline?: boolean } = {},
  ): Promise<CriResponse<M>> {
    const client = method.startsWith('ImageService/') ? this.image : this.runtime;
    const types = CRI_METHODS[method];
    const options: grpc.CallOptions = {};
    if (this.o.timeoutMs > 0 && opts.noDeadline !== true)
      options.deadline = new Date(this.o.clock.nowMs() + this.o.timeoutMs + (opts.extraMs ?? 0));
    const t0 = this.o.clock.nowMs();
    this.inFlight++;
    const done = (value: unknown): void => {
      this.inFlight--;
      this.o.logger?.trace(
        {
          v: 10,
          method,
          ms: this.o.clock.nowMs() - t0,
          inFlight: this.inFlight,
          ...subjectOf(request),
          ...subjectOf(value),
        },
        'CRI call',
      );
    };
    return new Promise((resolve, reject) => {
      client.makeUnaryRequest(
        `/runtime.v1.${method}`,
        (req: CriRequest<M>) => encodeCri<CriMethods[M]['request']>(types.request, req),
        (bytes: Buffer) => decodeCri<CriMethods[M]['response']>(types.response, bytes),
        request,
        new grpc.Metadata(),
        options,
        (err, value) => {
          done(value);
          if (err !== null || value === undefined) reject(this.failure(method, err));
          else resolve(value);
        },
      );
    });
  }

  private failure(method: CriMethod, err: unknown): Error {
    if (!isServiceError(err))
      return new CriCallError(method, grpc.status.UNKNOWN, `CRI ${method}: ${String(err)}`);
    const where = this.socketOf(method);
    // grpc-js ends an unreachable socket's details with an empty "Resolution note: "
    const details = err.details.replace(/\.?\s*Resolution note:\s*$/, '');
    const detail = details === '' ? statusName(err.code) : details;
    let message = `CRI ${method} on ${where}: ${statusName(err.code)}: ${detail}`;
    if (err.code === grpc.status.UNIMPLEMENTED)
      message =
        `CRI ${method} on ${where}: the runtime does not implement it (runtime.v1 ` +
        `${method}): ${detail}`;
    if (err.code === grpc.status.DEADLINE_EXCEEDED)
      message =
        `CRI ${method} on ${where}: context deadline exceeded (--runtime-request-timeout ` +
        `${this.o.timeoutMs / 1000}s)`;
    const words = err.code === grpc.status.DEADLINE_EXCEEDED ? 'context deadline exceeded' : detail;
    return new CriCallError(method, err.code, message, words);
  }

  close(): void {
    this.runtime.close();
    if (this.image !== this.runtime) this.image.close();
  }
}
