// Private keys for signing: ECDSA P-256 generation, PKCS#8 PEM export, and import of a CA key in
// any PEM form node:crypto reads (PKCS#8, PKCS#1 RSA, SEC1 EC) as a WebCrypto signing key.

import 'reflect-metadata';
import { createPrivateKey, webcrypto } from 'node:crypto';
import { encodePem } from '../../common/util/pem.js';

type SubtleCryptoKey = webcrypto.CryptoKey;

export interface SigningKey {
  readonly key: SubtleCryptoKey;
  /** The algorithm to pass as signingAlgorithm when creating certificates. */
  readonly signingAlgorithm:
    webcrypto.Algorithm | webcrypto.EcdsaParams | webcrypto.RsaHashedImportParams;
}

export async function generateEcKeyPair(): Promise<webcrypto.CryptoKeyPair> {
  return webcrypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, [
    'sign',
    'verify',
  ]);
}

export async function exportPkcs8Pem(key: SubtleCryptoKey): Promise<string> {
  const der = await webcrypto.subtle.exportKey('pkcs8', key);
  return encodePem('PRIVATE KEY', new Uint8Array(der));
}

/** Imports a PEM private key for signing. Throws an Error naming the unsupported type. */
export async function importSigningKey(keyPem: string): Promise<SigningKey> {
  const ko = createPrivateKey(keyPem);
  const der = ko.export({ format: 'der', type: 'pkcs8' });
  const t = ko.asymmetricKeyType;
  if (t === 'ec') {
    const curve = ko.asymmetricKeyDetails?.namedCurve;
    const map: Record<string, [string, string]> = {
      prime256v1: ['P-256', 'SHA-256'],
      secp384r1: ['P-384', 'SHA-384'],
      secp521r1: ['P-521', 'SHA-512'],
    };
    const m = curve !== undefined ? map[curve] : undefined;
    if (m === undefined) throw new Error(`unsupported EC curve ${curve ?? 'unknown'}`);
    const key = await webcrypto.subtle.importKey(
      'pkcs8',
      der,
      { name: 'ECDSA', namedCurve: m[0] },
      false,
      ['sign'],
    );
    return { key, signingAlgorithm: { name: 'ECDSA', hash: m[1] } };
  }
  if (t === 'rsa') {
    const alg = { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' };
    const key = await webcrypto.subtle.importKey('pkcs8', der, alg, false, ['sign']);
    return { key, signingAlgorithm: alg };
  }
  if (t === 'ed25519') {
    const key = await webcrypto.subtle.importKey('pkcs8', der, { name: 'Ed25519' }, false, [
      'sign',
    ]);
    return { key, signingAlgorithm: { name: 'Ed25519' } };
  }
  throw new Error(`unsupported private key type ${t ?? 'unknown'}`);
}
