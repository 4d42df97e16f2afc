// The claims of a bound service-account token, as the reference writes them (pkg/serviceaccount):
// iss, sub `system:serviceaccount:<ns>:<name>`, aud, exp, iat, nbf, jti, and `kubernetes.io` with
// the namespace, the service account, the pod (and its node) or secret or node it is bound to, and
// `warnafter` when the expiry was extended. Reading them back checks the times with go-jose's one
// minute leeway and answers in the reference's words.

import { randomUUID } from 'node:crypto';
import { WIRE_NAMES } from '../../common/names.js';
import { isRecord, listOf } from '../../common/util/json-shape.js';

/** The reference's WarnOnlyBoundTokenExpirationSeconds: the admission-injected token's life. */
export const WARN_ONLY_BOUND_TOKEN_EXPIRATION_SECONDS = 60 * 60 + 7;
/** The reference's ExpirationExtensionSeconds: one year. */
export const EXPIRATION_EXTENSION_SECONDS = 24 * 365 * 60 * 60;
/** go-jose's DefaultLeeway. */
export const LEEWAY_SECONDS = 60;

export interface Ref {
  readonly name: string;
  readonly uid: string;
}

export interface TokenBinding {
  readonly serviceAccount: Ref & { readonly namespace: string };
  readonly pod?: Ref;
  readonly secret?: Ref;
  readonly node?: Ref;
}

export function serviceAccountUsername(namespace: string, name: string): string {
  return `system:serviceaccount:${namespace}:${name}`;
}

/** The payload of a token issued now (seconds) for `expirationSeconds`, `warnAfter` 0 for none. */
export function tokenClaims(p: {
  readonly issuer: string;
  readonly audiences: readonly string[];
  readonly nowSeconds: number;
  readonly expirationSeconds: number;
  readonly warnAfterSeconds: number;
  readonly binding: TokenBinding;
}): Record<string, unknown> {
  const b = p.binding;
  const ref = (r: Ref | undefined): Ref | undefined =>
    r === undefined ? undefined : { name: r.name, uid: r.uid };
  return {
    aud: [...p.audiences],
    exp: p.nowSeconds + p.expirationSeconds,
    iat: p.nowSeconds,
    iss: p.issuer,
    jti: randomUUID(),
    [WIRE_NAMES.serviceAccountTokenClaim]: {
      namespace: b.serviceAccount.namespace,
      serviceaccount: { name: b.serviceAccount.name, uid: b.serviceAccount.uid },
      pod: ref(b.pod),
      secret: ref(b.secret),
      node: ref(b.node),
      warnafter: p.warnAfterSeconds === 0 ? undefined : p.nowSeconds + p.warnAfterSeconds,
    },
    nbf: p.nowSeconds,
    sub: serviceAccountUsername(b.serviceAccount.namespace, b.serviceAccount.name),
  };
}

/** What a verified token's payload says, read without trusting its shape. */
export interface ReadClaims {
  readonly iss: string;
  readonly sub: string;
  readonly aud: readonly string[];
  readonly exp: number | undefined;
  readonly nbf: number | undefined;
  readonly iat: number | undefined;
  readonly jti: string;
  readonly namespace: string;
  readonly serviceAccount: Ref;
  readonly pod: Ref | undefined;
  readonly secret: Ref | undefined;
  readonly node: Ref | undefined;
  readonly warnAfter: number | undefined;
}

const text = (v: unknown): string => (typeof v === 'string' ? v : '');
const num = (v: unknown): number | undefined => (typeof v === 'number' ? v : undefined);

function refOf(v: unknown): Ref | undefined {
  return isRecord(v) ? { name: text(v['name']), uid: text(v['uid']) } : undefined;
}

export function readClaims(payload: Record<string, unknown>): ReadClaims {
  const claim = payload[WIRE_NAMES.serviceAccountTokenClaim];
  const k = isRecord(claim) ? claim : {};
  const aud = payload['aud'];
  return {
    iss: text(payload['iss']),
    sub: text(payload['sub']),
    // go-jose reads a single audience written as a string too.
    aud: typeof aud === 'string' ? [aud] : listOf(aud).filter((a) => typeof a === 'string'),
    exp: num(payload['exp']),
    nbf: num(payload['nbf']),
    iat: num(payload['iat']),
    jti: text(payload['jti']),
    namespace: text(k['namespace']),
    serviceAccount: refOf(k['serviceaccount']) ?? { name: '', uid: '' },
    pod: refOf(k['pod']),
    secret: refOf(k['secret']),
    node: refOf(k['node']),
    warnAfter: num(k['warnafter']),
  };
}

/**
 * go-jose's time checks (nbf, exp, iat with the leeway) in the reference's words; undefined when
 * good.
 */
export function timeProblem(c: ReadClaims, nowSeconds: number): string | undefined {
  if (c.nbf !== undefined && nowSeconds + LEEWAY_SECONDS < c.nbf)
    return 'service account token is not valid yet';
  if (c.exp !== undefined && nowSeconds - LEEWAY_SECONDS > c.exp)
    return 'service account token has expired';
  if (c.iat !== undefined && nowSeconds + LEEWAY_SECONDS < c.iat)
    return 'service account token is issued in the future';
  return undefined;
}
