// A KMS v2 plugin client over gRPC on a unix socket, with a deadline on every call and errors
// that say which plugin, where, and what failed.
import * as grpc from '@grpc/grpc-js';
import { RuntimeError } from '../../../common/util/errors.js';
import { afterMs, type Clock } from '../../../common/util/clock.js';
import {
  kmsServiceDefinition,
  type DecryptRequest,
  type DecryptResponse,
  type EncryptRequest,
  type EncryptResponse,
  type StatusResponse,
} from './proto.js';

type Unary<Req, Res> = (
  req: Req,
  md: grpc.Metadata,
  opts: grpc.CallOptions,
  cb: (err: grpc.ServiceError | null, res?: Res) => void,
) => grpc.ClientUnaryCall;

interface KmsStub extends grpc.Client {
  Status: Unary<Record<string, never>, StatusResponse>;
  Encrypt: Unary<EncryptRequest, EncryptResponse>;
  Decrypt: Unary<DecryptRequest, DecryptResponse>;
}

export interface KmsClientOptions {
  readonly name: string;
  /** `unix:///path/to/socket`. */
  readonly endpoint: string;
  readonly timeoutMs: number;
  /** Times each call's deadline (the call is cancelled when it passes). */
  readonly clock: Clock;
}

export class KmsPluginError extends RuntimeError {}

export class KmsClient {
  private readonly stub: KmsStub;
  private readonly name: string;
  private readonly endpoint: string;
  private readonly timeoutMs: number;
  private readonly clock: Clock;

  constructor(opts: KmsClientOptions) {
    this.name = opts.name;
    this.endpoint = opts.endpoint;
    this.timeoutMs = opts.timeoutMs;
    this.clock = opts.clock;
    const Ctor = grpc.makeGenericClientConstructor(kmsServiceDefinition(), 'KeyManagementService');
    // grpc-js's generic client has its methods only at run time (from the service definition):
    // KmsStub is their typed view, and the casts in this file are that boundary.
    this.stub = new Ctor(opts.endpoint, grpc.credentials.createInsecure()) as unknown as KmsStub;
  }

  status(): Promise<StatusResponse> {
    return this.call('Status', {});
  }

  encrypt(req: EncryptRequest): Promise<EncryptResponse> {
    return this.call('Encrypt', req);
  }

  decrypt(req: DecryptRequest): Promise<DecryptResponse> {
    return this.call('Decrypt', req);
  }

  close(): void {
    this.stub.close();
  }

  private call<M extends 'Status' | 'Encrypt' | 'Decrypt'>(
    method: M,
    req: Parameters<KmsStub[M]>[0],
  ): Promise<NonNullable<Parameters<Parameters<KmsStub[M]>[3]>[1]>> {
    return new Promise((resolve, reject) => {
      const fn = this.stub[method] as unknown as Unary<typeof req, unknown>;
      // The deadline runs on the injected clock: the call is cancelled when it passes.
      let pastDeadline = false;
      let cancelDeadline = (): void => undefined;
      const call = fn.call(this.stub, req, new grpc.Metadata(), {}, (err, res) => {
        cancelDeadline();
        if (err !== null || res === undefined) {
          const why =
            err === null
              ? 'empty response'
              : pastDeadline || err.code === grpc.status.DEADLINE_EXCEEDED
                ? `no answer within ${this.timeoutMs}ms`
                : err.code === grpc.status.UNAVAILABLE
                  ? `the plugin is unavailable (${err.details})`
                  : `${grpc.status[err.code]}: ${err.details}`;
          reject(
            new KmsPluginError(
              `KMS provider "${this.name}" at ${this.endpoint}: ${method} failed: ${why}`,
              { cause: err ?? undefined },
            ),
          );
          return;
        }
        resolve(res as NonNullable<Parameters<Parameters<KmsStub[M]>[3]>[1]>);
      });
      cancelDeadline = afterMs(this.clock, this.timeoutMs, () => {
        pastDeadline = true;
        call.cancel();
      });
    });
  }
}
