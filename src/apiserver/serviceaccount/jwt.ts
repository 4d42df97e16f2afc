// Compact JWS (RFC 7515) as the reference's service-account tokens use it: a protected header of
// alg and kid, a JSON payload whose keys are written sorted (go-jose builds the claims as a Go
// map), and an RSA PKCS#1 v1.5 or ECDSA (r||s) SHA-2 signature, made and checked with node:crypto.

import { sign, verify, type KeyObject } from 'node:crypto';
import { isRecord } from '../../common/util/json-shape.js';
import { algorithmOf, type JwsAlgorithm, type SigningKey, type VerificationKey } from './keys.js';

const HASH: Readonly<Record<JwsAlgorithm, string>> = {
  RS256: 'sha256',
  ES256: 'sha256',
  ES384: 'sha384',
  ES512: 'sha512',
};

function isAlgorithm(v: unknown): v is JwsAlgorithm {
  return typeof v === 'string' && Object.hasOwn(HASH, v);
}

/** JSON with every object's keys sorted, as Go writes a map. */
export function sortedJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(sortedJson).join(',')}]`;
  if (isRecord(v))
    return `{${Object.keys(v)
      .filter((k) => v[k] !== undefined)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${sortedJson(v[k])}`)
      .join(',')}}`;
  return JSON.stringify(v);
}

function b64(text: string): string {
  return Buffer.from(text, 'utf8').toString('base64url');
}

function signatureOptions(
  alg: JwsAlgorithm,
  key: KeyObject,
): { key: KeyObject; dsaEncoding?: 'ieee-p1363' } {
  return alg === 'RS256' ? { key } : { key, dsaEncoding: 'ieee-p1363' };
}

export function signJwt(key: SigningKey, payload: Record<string, unknown>): string {
  const input = `${b64(sortedJson({ alg: key.alg, kid: key.kid }))}.${b64(sortedJson(payload))}`;
  const sig = sign(HASH[key.alg], Buffer.from(input), signatureOptions(key.alg, key.key));
  return `${input}.${sig.toString('base64url')}`;
}

/** A token split into its parts; undefined when it is not a compact JWS of a known algorithm. */
export interface ParsedJwt {
  readonly alg: JwsAlgorithm;
  readonly kid: string;
  readonly payload: Record<string, unknown>;
  readonly signingInput: Buffer;
  readonly signature: Buffer;
}

const B64URL = /^[A-Za-z0-9_-]*$/;

function jsonPart(part: string): Record<string, unknown> | undefined {
  if (!B64URL.test(part)) return undefined;
  try {
    const v: unknown = JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
    return isRecord(v) ? v : undefined;
  } catch {
    return undefined;
  }
}

export function parseJwt(token: string): ParsedJwt | undefined {
  const parts = token.split('.');
  if (parts.length !== 3) return undefined;
  const [h = '', p = '', s = ''] = parts;
  const header = jsonPart(h);
  const payload = jsonPart(p);
  if (header === undefined || payload === undefined || !B64URL.test(s)) return undefined;
  const alg = header['alg'];
  if (!isAlgorithm(alg)) return undefined;
  const kid = header['kid'];
  return {
    alg,
    kid: typeof kid === 'string' ? kid : '',
    payload,
    signingInput: Buffer.from(`${h}.${p}`),
    signature: Buffer.from(s, 'base64url'),
  };
}

/** Whether one of the keys made the token's signature (the key's type must suit the algorithm). */
export function verifiedBy(jwt: ParsedJwt, keys: readonly VerificationKey[]): boolean {
  return keys.some((k) => {
    if (algorithmOf(k.key) !== jwt.alg) return false;
    try {
      return verify(
        HASH[jwt.alg],
        jwt.signingInput,
        signatureOptions(jwt.alg, k.key),
        jwt.signature,
      );
    } catch {
      return false;
    }
  });
}
