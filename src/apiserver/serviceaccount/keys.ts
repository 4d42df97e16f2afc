// The service-account token keys: the signing key (--service-account-signing-key-file: a PEM RSA
// or ECDSA private key) and the verification keys (--service-account-key-file: PEM RSA or ECDSA
// public keys, private keys or certificates, several per file). A key's ID is the reference's:
// the unpadded base64url SHA-256 of its public key's PKIX (SubjectPublicKeyInfo) DER.

import { createHash, createPublicKey, createPrivateKey, X509Certificate } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import { FlagError, userMessage } from '../../common/util/errors.js';

export type JwsAlgorithm = 'RS256' | 'ES256' | 'ES384' | 'ES512';

export interface SigningKey {
  readonly key: KeyObject;
  readonly alg: JwsAlgorithm;
  readonly kid: string;
}

export interface VerificationKey {
  readonly key: KeyObject;
  readonly kid: string;
}

export function keyIdOf(publicKey: KeyObject): string {
  const der = publicKey.export({ type: 'spki', format: 'der' });
  return createHash('sha256').update(der).digest('base64url');
}

/**
 * The JWS algorithm the reference signs with for a key (RS256, or ES256/384/512 by curve), else why
 * none.
 */
export function algorithmOf(key: KeyObject): string {
  if (key.asymmetricKeyType === 'rsa') return 'RS256';
  if (key.asymmetricKeyType === 'ec') {
    const curve = key.asymmetricKeyDetails?.namedCurve;
    if (curve === 'prime256v1') return 'ES256';
    if (curve === 'secp384r1') return 'ES384';
    if (curve === 'secp521r1') return 'ES512';
    return 'unknown private key curve, must be 256, 384, or 521';
  }
  return `unknown private key type ${key.asymmetricKeyType ?? 'unknown'}, must be RSA or ECDSA`;
}

const PEM_BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----[\s\S]*?-----END \1-----/g;

function blocks(text: string): { type: string; pem: string }[] {
  return [...text.matchAll(PEM_BLOCK)].map((m) => ({ type: m[1] ?? '', pem: m[0] }));
}

/** The signing key of --service-account-signing-key-file's text. */
export function parseSigningKey(text: string, file: string): SigningKey {
  const flag = 'service-account-signing-key-file';
  const priv = blocks(text).find((b) => b.type.endsWith('PRIVATE KEY'));
  if (priv === undefined)
    throw new FlagError(
      `failed to parse service-account-issuer-key-file: ${file}: data does not contain ` +
        `a private key (RSA or ECDSA, PEM)`,
      { flag },
    );
  let key: KeyObject;
  try {
    key = createPrivateKey(priv.pem);
  } catch (err) {
    throw new FlagError(
      `failed to parse service-account-issuer-key-file: ${file}: ${userMessage(err)}`,
      { flag, cause: err },
    );
  }
  const alg = algorithmOf(key);
  if (alg !== 'RS256' && alg !== 'ES256' && alg !== 'ES384' && alg !== 'ES512')
    throw new FlagError(`failed to build token generator: ${file}: ${alg}`, { flag });
  return { key, alg, kid: keyIdOf(createPublicKey(key)) };
}

function publicKeyOf(block: { type: string; pem: string }): KeyObject | undefined {
  if (block.type === 'CERTIFICATE') return new X509Certificate(block.pem).publicKey;
  if (block.type.endsWith('PRIVATE KEY')) return createPublicKey(createPrivateKey(block.pem));
  if (block.type.endsWith('PUBLIC KEY')) return createPublicKey(block.pem);
  return undefined;
}

/** The RSA and ECDSA public keys of one --service-account-key-file's text (at least one). */
export function parseVerificationKeys(text: string, file: string): VerificationKey[] {
  const flag = 'service-account-key-file';
  const keys: VerificationKey[] = [];
  for (const b of blocks(text)) {
    let key: KeyObject | undefined;
    try {
      key = publicKeyOf(b);
    } catch (err) {
      throw new FlagError(`failed to parse key file ${JSON.stringify(file)}: ${userMessage(err)}`, {
        flag,
        cause: err,
      });
    }
    if (key === undefined) continue;
    if (key.asymmetricKeyType !== 'rsa' && key.asymmetricKeyType !== 'ec') continue;
    keys.push({ key, kid: keyIdOf(key) });
  }
  if (keys.length === 0)
    throw new FlagError(
      `failed to parse key file ${JSON.stringify(file)}: data does not contain any ` +
        `valid RSA or ECDSA public keys`,
      { flag },
    );
  return keys;
}
