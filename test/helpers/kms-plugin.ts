// A test KMS v2 plugin: a gRPC KeyManagementService on a unix socket that seals DEKs with AES-GCM
// under its current key (rotatable), counting calls so tests can see caching.
import * as grpc from '@grpc/grpc-js';
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { kmsServiceDefinition } from '../../src/apiserver/encryption/kms/proto.js';

export interface TestKmsPlugin {
  /** `unix:///...` */
  readonly endpoint: string;
  readonly socketPath: string;
  readonly calls: { status: number; encrypt: number; decrypt: number };
  keyId(): string;
  /** Switches to a new key; old keys still decrypt. */
  rotate(): string;
  stop(): Promise<void>;
}

export async function startTestKmsPlugin(): Promise<TestKmsPlugin> {
  const dir = mkdtempSync(join(tmpdir(), 'kms-plugin-'));
  const socketPath = join(dir, 'kms.sock');
  const keys = new Map<string, Buffer>();
  let current = '';
  const rotate = (): string => {
    current = `key-${keys.size + 1}`;
    keys.set(current, randomBytes(32));
    return current;
  };
  rotate();
  const calls = { status: 0, encrypt: 0, decrypt: 0 };
  const server = new grpc.Server();
  type Cb = (err: grpc.ServiceError | null, res?: unknown) => void;
  const fail = (cb: Cb, code: grpc.status, details: string): void =>
    cb(Object.assign(new Error(details), { code, details, metadata: new grpc.Metadata() }));
  server.addService(kmsServiceDefinition(), {
    Status: (_call: grpc.ServerUnaryCall<unknown, unknown>, cb: Cb) => {
      calls.status++;
      cb(null, { version: 'v2', healthz: 'ok', key_id: current });
    },
    Encrypt: (call: grpc.ServerUnaryCall<{ plaintext: Buffer }, unknown>, cb: Cb) => {
      calls.encrypt++;
      const key = keys.get(current) ?? Buffer.alloc(32);
      const iv = randomBytes(12);
      const c = createCipheriv('aes-256-gcm', key, iv);
      const body = Buffer.concat([c.update(call.request.plaintext), c.final()]);
      cb(null, {
        ciphertext: Buffer.concat([iv, body, c.getAuthTag()]),
        key_id: current,
        annotations: { 'kms.example.com/test': Buffer.from('1') },
      });
    },
    Decrypt: (
      call: grpc.ServerUnaryCall<{ ciphertext: Buffer; key_id: string }, unknown>,
      cb: Cb,
    ) => {
      calls.decrypt++;
      const key = keys.get(call.request.key_id);
      if (key === undefined) {
        fail(cb, grpc.status.NOT_FOUND, `unknown key id ${call.request.key_id}`);
        return;
      }
      try {
        const ct = call.request.ciphertext;
        const d = createDecipheriv('aes-256-gcm', key, ct.subarray(0, 12));
        d.setAuthTag(ct.subarray(ct.length - 16));
        cb(null, {
          plaintext: Buffer.concat([d.update(ct.subarray(12, ct.length - 16)), d.final()]),
        });
      } catch {
        fail(cb, grpc.status.INVALID_ARGUMENT, 'cannot decrypt');
      }
    },
  });
  const endpoint = `unix://${socketPath}`;
  await new Promise<void>((resolve, reject) => {
    server.bindAsync(endpoint, grpc.ServerCredentials.createInsecure(), (err) =>
      err ? reject(err) : resolve(),
    );
  });
  return {
    endpoint,
    socketPath,
    calls,
    keyId: () => current,
    rotate,
    stop: () =>
      new Promise<void>((resolve) => {
        server.tryShutdown(() => {
          rmSync(dir, { recursive: true, force: true });
          resolve();
        });
      }),
  };
}
