// KMS v2 envelope encryption: values are sealed with AES-GCM under a data encryption key (DEK);
// the DEK, encrypted by the plugin, travels with each value. A DEK is made once and reused until
// the plugin reports a new key id (or it gets old), so writes need no plugin call; reads decrypt
// each distinct DEK once and cache it.
import { randomBytes, randomUUID } from 'node:crypto';
import type { Clock } from '../../../common/util/clock.js';
import { aesGcmProvider, type EncryptionProvider } from '../providers.js';
import type { KmsClient } from './client.js';
import { isRecord, stringRecordOf } from '../../../common/util/json-shape.js';

export function kmsPrefix(name: string): string {
  return `plat:enc:kms:v2:${name}:`;
}

/** Re-check the plugin's key id at most this often on the write path. */
const STATUS_INTERVAL_MS = 60_000;
/** A DEK is replaced after this long even without a key rotation. */
const DEK_MAX_AGE_MS = 24 * 3600_000;
const DEK_CACHE_SIZE = 1000;

interface CurrentDek {
  readonly key: Buffer;
  readonly encryptedDek: Buffer;
  readonly keyId: string;
  readonly annotations: Record<string, Uint8Array>;
  readonly createdMs: number;
}

// Stored body: u16 keyId length | keyId | u32 encrypted DEK length | encrypted DEK |
// u16 annotations-JSON length | annotations JSON | AES-GCM(nonce|ciphertext|tag).
function encodeEnvelope(d: CurrentDek, sealed: Uint8Array): Buffer {
  const keyId = Buffer.from(d.keyId);
  const ann = Buffer.from(
    JSON.stringify(
      Object.fromEntries(
        Object.entries(d.annotations).map(([k, v]) => [k, Buffer.from(v).toString('base64')]),
      ),
    ),
  );
  const head = Buffer.alloc(2 + keyId.length + 4 + d.encryptedDek.length + 2 + ann.length);
  let o = head.writeUInt16BE(keyId.length, 0);
  o += keyId.copy(head, o);
  o = head.writeUInt32BE(d.encryptedDek.length, o);
  o += d.encryptedDek.copy(head, o);
  o = head.writeUInt16BE(ann.length, o);
  ann.copy(head, o);
  return Buffer.concat([head, sealed]);
}

function decodeEnvelope(body: Uint8Array): {
  keyId: string;
  encryptedDek: Buffer;
  annotations: Record<string, Uint8Array>;
  sealed: Buffer;
} {
  const b = Buffer.from(body);
  let o = 0;
  const need = (n: number): void => {
    if (o + n > b.length) throw new Error('the stored KMS envelope is truncated');
  };
  need(2);
  const kl = b.readUInt16BE(o);
  o += 2;
  need(kl);
  const keyId = b.subarray(o, o + kl).toString();
  o += kl;
  need(4);
  const dl = b.readUInt32BE(o);
  o += 4;
  need(dl);
  const encryptedDek = b.subarray(o, o + dl);
  o += dl;
  need(2);
  const al = b.readUInt16BE(o);
  o += 2;
  need(al);
  const annJson: unknown = JSON.parse(b.subarray(o, o + al).toString());
  if (!isRecord(annJson) || !Object.values(annJson).every((v) => typeof v === 'string'))
    throw new Error("the stored KMS envelope's annotations are not a map of strings");
  o += al;
  const annotations = Object.fromEntries(
    Object.entries(stringRecordOf(annJson)).map(([k, v]) => [k, Buffer.from(v, 'base64')]),
  );
  return { keyId, encryptedDek, annotations, sealed: b.subarray(o) };
}

export interface KmsEnvelopeOptions {
  readonly name: string;
  readonly client: KmsClient;
  readonly clock: Clock;
}

export class KmsEnvelopeProvider implements EncryptionProvider {
  readonly prefix: string;
  readonly description: string;
  private readonly client: KmsClient;
  private readonly clock: Clock;
  private current: CurrentDek | undefined;
  private pending: Promise<CurrentDek> | undefined;
  private lastStatusMs = 0;
  /** base64(encrypted DEK) → DEK, most recently used last. */
  private readonly cache = new Map<string, Buffer>();

  constructor(opts: KmsEnvelopeOptions) {
    this.prefix = kmsPrefix(opts.name);
    this.description = `kms v2 provider "${opts.name}"`;
    this.client = opts.client;
    this.clock = opts.clock;
  }

  async encrypt(plaintext: Uint8Array, context: string): Promise<Uint8Array> {
    const dek = await this.currentDek();
    const sealed = await aesGcmProvider('dek', dek.key).encrypt(plaintext, context);
    return encodeEnvelope(dek, sealed);
  }

  async decrypt(body: Uint8Array, context: string): Promise<Uint8Array> {
    const env = decodeEnvelope(body);
    const id = env.encryptedDek.toString('base64');
    let key = this.cache.get(id);
    if (key === undefined) {
      const res = await this.client.decrypt({
        ciphertext: env.encryptedDek,
        uid: randomUUID(),
        key_id: env.keyId,
        annotations: env.annotations,
      });
      key = Buffer.from(res.plaintext);
      this.remember(id, key);
    } else {
      this.cache.delete(id);
      this.cache.set(id, key);
    }
    return aesGcmProvider('dek', key).decrypt(env.sealed, context);
  }

  private remember(id: string, key: Buffer): void {
    this.cache.set(id, key);
    while (this.cache.size > DEK_CACHE_SIZE) {
      const oldest = this.cache.keys().next().value;
      if (oldest === undefined) break;
      this.cache.delete(oldest);
    }
  }

  private async currentDek(): Promise<CurrentDek> {
    const now = this.clock.nowMs();
    const cur = this.current;
    if (
      cur !== undefined &&
      now - cur.createdMs < DEK_MAX_AGE_MS &&
      now - this.lastStatusMs < STATUS_INTERVAL_MS
    )
      return cur;
    this.pending ??= this.refresh(cur).finally(() => {
      this.pending = undefined;
    });
    return this.pending;
  }

  private async refresh(cur: CurrentDek | undefined): Promise<CurrentDek> {
    const status = await this.client.status();
    if (status.healthz !== 'ok')
      throw new Error(`${this.description}: the plugin reports healthz "${status.healthz}"`);
    const now = this.clock.nowMs();
    this.lastStatusMs = now;
    if (cur?.keyId === status.key_id && now - cur.createdMs < DEK_MAX_AGE_MS) return cur;
    const key = randomBytes(32);
    const res = await this.client.encrypt({ plaintext: key, uid: randomUUID() });
    const next: CurrentDek = {
      key,
      encryptedDek: Buffer.from(res.ciphertext),
      keyId: res.key_id,
      annotations: res.annotations,
      createdMs: now,
    };
    this.remember(next.encryptedDek.toString('base64'), key);
    this.current = next;
    return next;
  }
}
