// The local encryption-at-rest providers (one per configured key) and the identity provider.
// Each encrypting provider owns a prefix `plat:enc:<kind>:v1:<key name>:` that starts its values.
import { createCipheriv, createDecipheriv, randomBytes, type CipherGCMTypes } from 'node:crypto';
import nacl from 'tweetnacl';

export interface EncryptionProvider {
  /** Stored values written by this provider start with it; empty for identity. */
  readonly prefix: string;
  /** For messages: kind and key name, never key material. */
  readonly description: string;
  encrypt(plaintext: Uint8Array, context: string): Promise<Uint8Array>;
  decrypt(body: Uint8Array, context: string): Promise<Uint8Array>;
}

export function localPrefix(kind: 'aesgcm' | 'aescbc' | 'secretbox', keyName: string): string {
  return `plat:enc:${kind}:v1:${keyName}:`;
}

const GCM_NONCE = 12;
const GCM_TAG = 16;

/** The AES-GCM cipher of a key's length (16, 24 or 32 bytes, as validated on load). */
function gcmAlgorithm(keyName: string, bytes: number): CipherGCMTypes {
  if (bytes === 16) return 'aes-128-gcm';
  if (bytes === 24) return 'aes-192-gcm';
  if (bytes === 32) return 'aes-256-gcm';
  throw new Error(`aesgcm key "${keyName}" is ${bytes} bytes long; 16, 24 or 32 are accepted`);
}

/** AES-GCM with a random 96-bit nonce; the storage key is the authenticated data. */
export function aesGcmProvider(keyName: string, key: Uint8Array): EncryptionProvider {
  const algo = gcmAlgorithm(keyName, key.length);
  return {
    prefix: localPrefix('aesgcm', keyName),
    description: `aesgcm key "${keyName}"`,
    encrypt(plaintext, context) {
      const nonce = randomBytes(GCM_NONCE);
      const c = createCipheriv(algo, key, nonce);
      c.setAAD(Buffer.from(context));
      const body = Buffer.concat([c.update(plaintext), c.final()]);
      return Promise.resolve(Buffer.concat([nonce, body, c.getAuthTag()]));
    },
    decrypt(data, context) {
      if (data.length < GCM_NONCE + GCM_TAG)
        return Promise.reject(new Error('the stored value is too short for AES-GCM'));
      const buf = Buffer.from(data);
      const d = createDecipheriv(algo, key, buf.subarray(0, GCM_NONCE));
      d.setAAD(Buffer.from(context));
      d.setAuthTag(buf.subarray(buf.length - GCM_TAG));
      return Promise.resolve(
        Buffer.concat([d.update(buf.subarray(GCM_NONCE, buf.length - GCM_TAG)), d.final()]),
      );
    },
  };
}

/** AES-CBC with PKCS#7 padding and a random IV in front (the reference's aescbc). */
export function aesCbcProvider(keyName: string, key: Uint8Array): EncryptionProvider {
  return {
    prefix: localPrefix('aescbc', keyName),
    description: `aescbc key "${keyName}"`,
    encrypt(plaintext) {
      const iv = randomBytes(16);
      const c = createCipheriv('aes-256-cbc', key, iv);
      return Promise.resolve(Buffer.concat([iv, c.update(plaintext), c.final()]));
    },
    decrypt(data) {
      if (data.length < 32 || data.length % 16 !== 0)
        return Promise.reject(new Error('the stored value is not a whole number of AES blocks'));
      const buf = Buffer.from(data);
      const d = createDecipheriv('aes-256-cbc', key, buf.subarray(0, 16));
      return Promise.resolve(Buffer.concat([d.update(buf.subarray(16)), d.final()]));
    },
  };
}

/** XSalsa20-Poly1305 (NaCl secretbox) with a random 24-byte nonce in front. */
export function secretboxProvider(keyName: string, key: Uint8Array): EncryptionProvider {
  return {
    prefix: localPrefix('secretbox', keyName),
    description: `secretbox key "${keyName}"`,
    encrypt(plaintext) {
      const nonce = nacl.randomBytes(nacl.secretbox.nonceLength);
      const box = nacl.secretbox(plaintext, nonce, key);
      const out = new Uint8Array(nonce.length + box.length);
      out.set(nonce);
      out.set(box, nonce.length);
      return Promise.resolve(out);
    },
    decrypt(data) {
      const n = nacl.secretbox.nonceLength;
      const opened =
        data.length > n ? nacl.secretbox.open(data.subarray(n), data.subarray(0, n), key) : null;
      return opened === null
        ? Promise.reject(
            new Error('secretbox: the value could not be opened (wrong key or corrupt data)'),
          )
        : Promise.resolve(opened);
    },
  };
}

export type LocalProviderKind = 'aesgcm' | 'aescbc' | 'secretbox';

/** The provider of one local key of the kind (made wherever it is called: a thread of its own). */
export function localProvider(
  kind: LocalProviderKind,
  name: string,
  key: Uint8Array,
): EncryptionProvider {
  if (kind === 'aesgcm') return aesGcmProvider(name, key);
  if (kind === 'aescbc') return aesCbcProvider(name, key);
  return secretboxProvider(name, key);
}

/** No encryption: writes the plaintext, reads anything that carries no known prefix. */
export function identityProvider(): EncryptionProvider {
  return {
    prefix: '',
    description: 'identity',
    encrypt: (plaintext) => Promise.resolve(plaintext),
    decrypt: (body) => Promise.resolve(body),
  };
}
