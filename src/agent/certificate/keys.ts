// Private keys: ECDSA P-256 for everything we generate; existing EC or RSA keys (PEM: PKCS#8,
// "EC PRIVATE KEY", "RSA PRIVATE KEY") are accepted when reused. Keys are written as PKCS#8 PEM.
import {
  createPrivateKey,
  createPublicKey,
  generateKeyPair as generateKeyPairCb,
  webcrypto,
  type KeyObject,
} from 'node:crypto';
import { promisify } from 'node:util';
import { CertificateError, userMessage } from '../../common/util/errors.js';
import { decodePemBlocks, encodePem } from '../../common/util/pem.js';

const generateKeyPairAsync = promisify(generateKeyPairCb);

export interface PrivateKey {
  privateKey: KeyObject;
  publicKey: KeyObject;
  /** PKCS#8 PEM. */
  pem: string;
  type: 'ec' | 'rsa';
}

export async function generatePrivateKey(): Promise<PrivateKey> {
  const { privateKey, publicKey } = await generateKeyPairAsync('ec', { namedCurve: 'prime256v1' });
  return {
    privateKey,
    publicKey,
    pem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    type: 'ec',
  };
}

const PRIVATE_KEY_TYPES = new Set(['PRIVATE KEY', 'EC PRIVATE KEY', 'RSA PRIVATE KEY']);

/** Parses the first private key found in `pem` (which may also hold certificates). */
export function parsePrivateKey(pem: string, file?: string): PrivateKey {
  const block = decodePemBlocks(pem).find((b) => PRIVATE_KEY_TYPES.has(b.type));
  if (!block)
    throw new CertificateError(
      `${file ?? 'data'} holds no PEM private key (expected PRIVATE KEY, EC PRIVATE KEY ` +
        `or RSA PRIVATE KEY)`,
      file === undefined ? {} : { file },
    );
  let privateKey: KeyObject;
  try {
    privateKey = createPrivateKey({ key: encodePem(block.type, block.bytes), format: 'pem' });
  } catch (err) {
    throw new CertificateError(
      `${file ?? 'data'}: the private key cannot be parsed: ${userMessage(err)}`,
      file === undefined ? { cause: err } : { file, cause: err },
    );
  }
  const kt = privateKey.asymmetricKeyType;
  if (kt !== 'ec' && kt !== 'rsa')
    throw new CertificateError(
      `${file ?? 'data'}: unsupported key type ${kt ?? 'unknown'} (ECDSA or RSA expected)`,
      file === undefined ? {} : { file },
    );
  return {
    privateKey,
    publicKey: createPublicKey(privateKey),
    pem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    type: kt,
  };
}

/** SubjectPublicKeyInfo DER of the key's public half. */
export function publicKeyDer(key: PrivateKey | KeyObject): Buffer {
  const pub =
    'publicKey' in key ? key.publicKey : key.type === 'private' ? createPublicKey(key) : key;
  return pub.export({ type: 'spki', format: 'der' });
}

/** The WebCrypto pair @peculiar/x509 signs with. */
export async function toCryptoKeyPair(key: PrivateKey): Promise<{
  privateKey: webcrypto.CryptoKey;
  publicKey: webcrypto.CryptoKey;
  algorithm: EcdsaParams | RsaHashedImportParams;
}> {
  const algorithm =
    key.type === 'ec'
      ? { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' }
      : { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' };
  const pkcs8 = key.privateKey.export({ type: 'pkcs8', format: 'der' });
  const spki = publicKeyDer(key);
  const subtle = webcrypto.subtle;
  const privateKey = await subtle.importKey('pkcs8', pkcs8, algorithm, true, ['sign']);
  const publicKey = await subtle.importKey('spki', spki, algorithm, true, ['verify']);
  return { privateKey, publicKey, algorithm: algorithm as EcdsaParams | RsaHashedImportParams };
}

interface EcdsaParams {
  name: string;
  hash: string;
  namedCurve?: string;
}
interface RsaHashedImportParams {
  name: string;
  hash: string;
}
