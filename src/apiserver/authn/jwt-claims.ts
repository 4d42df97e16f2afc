// Claim validation rules, claim mappings and user validation rules of one JWT authenticator,
// compiled once; `toUser` turns verified claims into a UserInfo or says why the token is refused.
import { compileCel, type CompiledCel } from '../config/cel.js';
import type { JWTAuthenticatorConfig } from '../config/authentication.js';
import type { UserInfo } from '../../common/auth/user.js';

export type Claims = Record<string, unknown>;

function compile(
  expression: string,
  variable: 'claims' | 'user',
  kind: 'bool' | 'string' | 'string-or-list',
): CompiledCel {
  const r = compileCel(expression, variable, kind);
  // The file was validated at load, so this only trips on programming errors.
  if (!r.ok) throw new Error(`invalid CEL expression ${JSON.stringify(expression)}: ${r.message}`);
  return r.compiled;
}

type Mapping =
  | { readonly kind: 'claim'; readonly claim: string; readonly prefix: string }
  | { readonly kind: 'expression'; readonly cel: CompiledCel };

export class TokenRejected extends Error {}

/** CEL sees claims as parsed JSON; integers become CEL ints so `claims.n == 1` works. */
function celValue(v: unknown): unknown {
  if (typeof v === 'number' && Number.isInteger(v)) return BigInt(v);
  if (Array.isArray(v)) return v.map(celValue);
  if (v !== null && typeof v === 'object')
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, celValue(x)]));
  return v;
}

function evalCel(cel: CompiledCel, value: unknown, what: string): unknown {
  try {
    return cel.evaluate(value);
  } catch (err) {
    const msg = err instanceof Error ? (err.message.split('\n')[0] ?? '') : String(err);
    throw new TokenRejected(
      `oidc: error evaluating ${what} expression: ${JSON.stringify(cel.expression)}: ${msg}`,
    );
  }
}

/**
 * string or list result → list; '' / [] / null → [] (mapping absent); empty entries dropped.
 */
function toStringList(v: unknown, what: string): string[] {
  if (v === null || v === undefined) return [];
  if (typeof v === 'string') return v === '' ? [] : [v];
  if (Array.isArray(v) && v.every((x) => typeof x === 'string')) return v.filter((x) => x !== '');
  throw new TokenRejected(`oidc: ${what} must be a string or a list of strings`);
}

export class ClaimProcessor {
  private readonly rules: readonly (
    | { kind: 'claim'; claim: string; requiredValue: string }
    | { kind: 'expression'; cel: CompiledCel; message: string | undefined }
  )[];
  private readonly username: Mapping;
  private readonly groups: Mapping | undefined;
  private readonly uid:
    { kind: 'claim'; claim: string } | { kind: 'expression'; cel: CompiledCel } | undefined;
  private readonly extra: readonly { key: string; cel: CompiledCel }[];
  private readonly userRules: readonly { cel: CompiledCel; message: string | undefined }[];

  constructor(cfg: JWTAuthenticatorConfig) {
    this.rules = (cfg.claimValidationRules ?? []).map((r) =>
      r.expression !== undefined && r.expression !== ''
        ? {
            kind: 'expression' as const,
            cel: compile(r.expression, 'claims', 'bool'),
            message: r.message,
          }
        : { kind: 'claim' as const, claim: r.claim ?? '', requiredValue: r.requiredValue ?? '' },
    );
    const m = cfg.claimMappings;
    const mapping = (
      p: {
        claim?: string | undefined;
        prefix?: string | undefined;
        expression?: string | undefined;
      },
      kind: 'string' | 'string-or-list',
    ): Mapping =>
      p.expression !== undefined && p.expression !== ''
        ? { kind: 'expression', cel: compile(p.expression, 'claims', kind) }
        : { kind: 'claim', claim: p.claim ?? '', prefix: p.prefix ?? '' };
    this.username = mapping(m.username, 'string');
    this.groups =
      m.groups === undefined ||
      ((m.groups.claim ?? '') === '' && (m.groups.expression ?? '') === '')
        ? undefined
        : mapping(m.groups, 'string-or-list');
    this.uid =
      m.uid === undefined
        ? undefined
        : m.uid.expression !== undefined && m.uid.expression !== ''
          ? { kind: 'expression', cel: compile(m.uid.expression, 'claims', 'string') }
          : { kind: 'claim', claim: m.uid.claim ?? '' };
    this.extra = (m.extra ?? []).map((e) => ({
      key: e.key,
      cel: compile(e.valueExpression, 'claims', 'string-or-list'),
    }));
    this.userRules = (cfg.userValidationRules ?? []).map((r) => ({
      cel: compile(r.expression, 'user', 'bool'),
      message: r.message,
    }));
  }

  toUser(claims: Claims): UserInfo {
    const celClaims = celValue(claims);
    this.checkClaimRules(claims, celClaims);
    // in the reference's order, so the first problem of a token is the one reported
    const username = this.usernameOf(claims, celClaims);
    const groups = this.groupsOf(claims, celClaims);
    const uid = this.uidOf(claims, celClaims);
    const extra = this.extraOf(celClaims);
    const user: UserInfo = {
      username,
      groups,
      ...(uid === undefined ? {} : { uid }),
      ...(Object.keys(extra).length === 0 ? {} : { extra }),
    };
    this.checkUserRules(user);
    return user;
  }

  private checkClaimRules(claims: Claims, celClaims: unknown): void {
    for (const r of this.rules) {
      if (r.kind === 'claim') {
        const v = claims[r.claim];
        if (v === undefined) throw new TokenRejected(`oidc: required claim ${r.claim} not present`);
        if (typeof v !== 'string' || v !== r.requiredValue) {
          throw new TokenRejected(
            `oidc: required claim ${r.claim} value does not match. Got = ` +
              `${JSON.stringify(v)}, want = ${JSON.stringify(r.requiredValue)}`,
          );
        }
      } else {
        const ok = evalCel(r.cel, celClaims, 'claim validation');
        if (ok !== true)
          throw new TokenRejected(
            r.message ??
              `oidc: claim validation expression ${JSON.stringify(r.cel.expression)} failed`,
          );
      }
    }
  }

  private usernameOf(claims: Claims, celClaims: unknown): string {
    let username: string;
    if (this.username.kind === 'claim') {
      const claim = this.username.claim;
      const v = claims[claim];
      if (v === undefined)
        throw new TokenRejected(
          `oidc: parse username claims ${JSON.stringify(claim)}: claim not present`,
        );
      if (typeof v !== 'string')
        throw new TokenRejected(
          `oidc: parse username claims ${JSON.stringify(claim)}: claim is not a string`,
        );
      if (claim === 'email') {
        // As the reference: a present email_verified must be true when the username is the email.
        const verified = claims['email_verified'];
        if (verified !== undefined && verified !== true)
          throw new TokenRejected('oidc: email not verified');
      }
      username = this.username.prefix + v;
    } else {
      const v = evalCel(this.username.cel, celClaims, 'username');
      if (typeof v !== 'string')
        throw new TokenRejected(
          'oidc: error evaluating username expression: must evaluate to string',
        );
      username = v;
    }
    if (username === '') throw new TokenRejected('oidc: username is empty');
    return username;
  }

  private groupsOf(claims: Claims, celClaims: unknown): string[] {
    if (this.groups?.kind === 'claim') {
      const prefix = this.groups.prefix;
      return toStringList(
        claims[this.groups.claim],
        `groups claim ${JSON.stringify(this.groups.claim)}`,
      ).map((g) => prefix + g);
    }
    if (this.groups?.kind === 'expression')
      return toStringList(evalCel(this.groups.cel, celClaims, 'groups'), 'groups expression');
    return [];
  }

  private uidOf(claims: Claims, celClaims: unknown): string | undefined {
    if (this.uid?.kind === 'claim') {
      const v = claims[this.uid.claim];
      if (v !== undefined && typeof v !== 'string')
        throw new TokenRejected(
          `oidc: uid claim ${JSON.stringify(this.uid.claim)} is not a string`,
        );
      return v === '' ? undefined : v;
    }
    if (this.uid?.kind === 'expression') {
      const v = evalCel(this.uid.cel, celClaims, 'uid');
      if (typeof v !== 'string')
        throw new TokenRejected('oidc: error evaluating uid expression: must evaluate to string');
      return v === '' ? undefined : v;
    }
    return undefined;
  }

  private extraOf(celClaims: unknown): Record<string, string[]> {
    const extra: Record<string, string[]> = {};
    for (const e of this.extra) {
      const values = toStringList(
        evalCel(e.cel, celClaims, `extra ${JSON.stringify(e.key)}`),
        `extra ${JSON.stringify(e.key)}`,
      );
      if (values.length > 0) extra[e.key] = values;
    }
    return extra;
  }

  private checkUserRules(user: UserInfo): void {
    const celUser = {
      username: user.username,
      uid: user.uid ?? '',
      groups: [...user.groups],
      extra: user.extra ?? {},
    };
    for (const r of this.userRules) {
      const ok = evalCel(r.cel, celUser, 'user validation');
      if (ok !== true)
        throw new TokenRejected(
          r.message ?? `oidc: user validation rule ${JSON.stringify(r.cel.expression)} failed`,
        );
    }
  }
}
