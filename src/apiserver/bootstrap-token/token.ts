// Bootstrap tokens as the reference keeps them (k8s.io/cluster-bootstrap): a token
// `<id>.<secret>` (6 and 16 of [a-z0-9]) is a Secret `bootstrap-token-<id>` of type
// `bootstrap.<domain>/token` in the system namespace, with keys token-id, token-secret,
// expiration (RFC 3339), usage-bootstrap-authentication, usage-bootstrap-signing,
// auth-extra-groups and description. Its user is `system:bootstrap:<id>` in `system:bootstrappers`
// plus the extra groups (each `system:bootstrappers:...`).

import { randomInt, timingSafeEqual } from 'node:crypto';
import type { UserInfo } from '../../common/auth/user.js';
import { REFERENCE_NAMES } from '../../common/names.js';
import { recordOf } from '../../common/util/json-shape.js';

/** Where the reference keeps its bootstrap tokens (kube-system). */
export const SYSTEM_NAMESPACE = REFERENCE_NAMES.namespaces.system;
export const SECRET_PREFIX = 'bootstrap-token-';
export const BOOTSTRAPPERS_GROUP = 'system:bootstrappers';
export const BOOTSTRAP_USER_PREFIX = 'system:bootstrap:';
export const USAGES = ['authentication', 'signing'] as const;

const TOKEN = /^([a-z0-9]{6})\.([a-z0-9]{16})$/;
const EXTRA_GROUP = /^system:bootstrappers:[a-z0-9:-]{0,255}[a-z0-9]$/;
const ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';

export function bootstrapTokenSecretType(platformDomain: string): string {
  return `bootstrap.${platformDomain}/token`;
}

export function parseToken(token: string): { id: string; secret: string } | undefined {
  const m = TOKEN.exec(token);
  return m === null ? undefined : { id: m[1] ?? '', secret: m[2] ?? '' };
}

export function generateToken(): string {
  const pick = (n: number): string =>
    Array.from({ length: n }, () => ALPHABET[randomInt(ALPHABET.length)]).join('');
  return `${pick(6)}.${pick(16)}`;
}

/** Checks extra groups as the reference does; returns the problem or undefined. */
export function extraGroupsProblem(groups: readonly string[]): string | undefined {
  const bad = groups.find((g) => !EXTRA_GROUP.test(g));
  return bad === undefined
    ? undefined
    : `group "${bad}" does not match the pattern system:bootstrappers:[a-z0-9:-]{0,255}[a-z0-9]`;
}

type Obj = Record<string, unknown>;

/** A data value of the Secret, decoded from base64 ('' when absent). */
export function secretValue(secret: Obj, key: string): string {
  const data = secret['data'];
  const v = recordOf(data)[key];
  return typeof v === 'string' ? Buffer.from(v, 'base64').toString('utf8') : '';
}

/** The reference's HasExpired: an expiration that does not parse counts as expired. */
export function expired(secret: Obj, now: Date): boolean {
  const text = secretValue(secret, 'expiration');
  if (text === '') return false;
  const t = Date.parse(text);
  return Number.isNaN(t) || !/^\d{4}-\d\d-\d\dT/.test(text) || t <= now.getTime();
}

/** When the token expires (ms since the epoch), undefined when it never does. */
export function expiresAtMs(secret: Obj): number | undefined {
  const text = secretValue(secret, 'expiration');
  if (text === '') return undefined;
  const t = Date.parse(text);
  return Number.isNaN(t) ? 0 : t;
}

function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * The user a token Secret authenticates, or why it does not (the reference's checks, in its
 * order). `secretText` is the secret half of the presented token; it never appears in a reason.
 */
export function tokenUser(
  secret: Obj,
  id: string,
  secretText: string,
  platformDomain: string,
  now: Date,
): { user: UserInfo } | { problem: string } {
  const meta = recordOf(secret['metadata']);
  if (meta['deletionTimestamp'] !== undefined)
    return { problem: 'is deleted and awaiting removal' };
  const type = bootstrapTokenSecretType(platformDomain);
  if (secret['type'] !== type || secret['data'] === undefined)
    return { problem: `has invalid type, expected ${type}.` };
  if (!sameText(secretValue(secret, 'token-secret'), secretText))
    return { problem: 'has invalid value for key token-secret.' };
  if (secretValue(secret, 'token-id') !== id)
    return { problem: 'has invalid value for key token-id.' };
  if (expired(secret, now))
    return { problem: `has expired (expiration ${secretValue(secret, 'expiration')})` };
  if (secretValue(secret, 'usage-bootstrap-authentication') !== 'true')
    return { problem: 'not marked usage-bootstrap-authentication=true.' };
  const extra = secretValue(secret, 'auth-extra-groups')
    .split(',')
    .map((g) => g.trim())
    .filter((g) => g !== '');
  const problem = extraGroupsProblem(extra);
  if (problem !== undefined)
    return { problem: `has invalid value for key auth-extra-groups: ${problem}.` };
  return {
    user: {
      username: `${BOOTSTRAP_USER_PREFIX}${id}`,
      groups: [...new Set([BOOTSTRAPPERS_GROUP, ...extra])],
    },
  };
}
