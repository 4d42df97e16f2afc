// AuthenticationConfiguration: JWT authenticators and anonymous access (spec: "API server
// configuration types"). The zod schema checks the shape; `validateAuthentication` the rules
// that span fields: exclusions, uniqueness, audience policy, prefixes, CEL types, extra keys.
import { X509Certificate } from 'node:crypto';
import { z } from 'zod';
import { compileCel, type CelResult, type CelVariable } from './cel.js';
import { checkUnique, isDns1123Subdomain } from './common.js';
import type { FieldPath, IssueList } from './issues.js';
import { pemBlocksOfType } from '../../common/util/pem.js';

const prefixedClaimOrExpression = z.strictObject({
  claim: z.string().optional(),
  prefix: z.string().optional(),
  expression: z.string().optional(),
});

const claimOrExpression = z.strictObject({
  claim: z.string().optional(),
  expression: z.string().optional(),
});

export const jwtAuthenticatorSchema = z.strictObject({
  issuer: z.strictObject({
    url: z.string(),
    discoveryURL: z.string().optional(),
    certificateAuthority: z.string().optional(),
    audiences: z.array(z.string()),
    audienceMatchPolicy: z.string().optional(),
    egressSelectorType: z.string().optional(),
  }),
  claimValidationRules: z
    .array(
      z.strictObject({
        claim: z.string().optional(),
        requiredValue: z.string().optional(),
        expression: z.string().optional(),
        message: z.string().optional(),
      }),
    )
    .optional(),
  claimMappings: z.strictObject({
    username: prefixedClaimOrExpression,
    groups: prefixedClaimOrExpression.optional(),
    uid: claimOrExpression.optional(),
    extra: z.array(z.strictObject({ key: z.string(), valueExpression: z.string() })).optional(),
  }),
  userValidationRules: z
    .array(z.strictObject({ expression: z.string(), message: z.string().optional() }))
    .optional(),
});

export const anonymousSchema = z.strictObject({
  enabled: z.boolean(),
  conditions: z.array(z.strictObject({ path: z.string() })).optional(),
});

export const authenticationConfigurationSchema = z.strictObject({
  apiVersion: z.string(),
  kind: z.literal('AuthenticationConfiguration'),
  jwt: z.array(jwtAuthenticatorSchema).optional(),
  anonymous: anonymousSchema.optional(),
});

export type JWTAuthenticatorConfig = z.infer<typeof jwtAuthenticatorSchema>;
export type AnonymousAuthConfig = z.infer<typeof anonymousSchema>;
export type AuthenticationConfiguration = z.infer<typeof authenticationConfigurationSchema>;

export interface AuthenticationValidationOptions {
  /** `--anonymous-auth` was given on the command line (then `anonymous` must not be set). */
  readonly anonymousAuthFlagSet: boolean;
}

function checkHttpsUrl(issues: IssueList, path: FieldPath, value: string): void {
  let u: URL;
  try {
    u = new URL(value);
  } catch {
    issues.invalid(path, value, 'must be a valid URL');
    return;
  }
  if (u.protocol !== 'https:') issues.invalid(path, value, 'must use https scheme');
  else if (u.username !== '' || u.password !== '')
    issues.invalid(path, value, 'must not contain a username or password');
  else if (u.search !== '' || value.includes('?'))
    issues.invalid(path, value, 'must not contain a query');
  else if (u.hash !== '' || value.includes('#'))
    issues.invalid(path, value, 'must not contain a fragment');
}

function checkCel(
  issues: IssueList,
  path: FieldPath,
  expression: string,
  variable: CelVariable,
  result: CelResult,
): void {
  const r = compileCel(expression, variable, result);
  if (!r.ok) issues.add(path, r.message);
}

/** Validates an extra key: a domain-prefixed path, lower case. */
export function extraKeyProblem(key: string): string | undefined {
  if (key === '') return 'Required value';
  if (key !== key.toLowerCase()) return 'key must be lowercase';
  const slash = key.indexOf('/');
  if (slash <= 0) return 'must be a domain-prefixed path (such as "acme.io/foo")';
  const domain = key.slice(0, slash);
  const rest = key.slice(slash + 1);
  if (!isDns1123Subdomain(domain))
    return (
      'must be a domain-prefixed path (such as "acme.io/foo"): the part before "/" must ' +
      'be a DNS-1123 subdomain'
    );
  if (rest === '' || !/^[A-Za-z0-9\-._~!$&'()*+,;=:@/%]+$/.test(rest)) {
    return (
      'must be a domain-prefixed path (such as "acme.io/foo"): the part after "/" must be ' +
      'valid HTTP path characters'
    );
  }
  return undefined;
}

// `claims.email` used, but not `claims.email_verified` (the reference checks the CEL AST; field
// access is what matters here, so a token-level match is sufficient).
const USES_EMAIL = /\bclaims\s*\.\s*email\b(?!_)|\bclaims\s*\[\s*["']email["']\s*\]/;
const USES_EMAIL_VERIFIED =
  /\bclaims\s*\.\s*email_verified\b|\bclaims\s*\[\s*["']email_verified["']\s*\]/;

function validateJwt(issues: IssueList, base: FieldPath, a: JWTAuthenticatorConfig): void {
  validateIssuer(issues, [...base, 'issuer'], a.issuer);
  /** The CEL texts of rules and extra mappings: where claims.email_verified may be used. */
  const celTexts: string[] = [];
  validateClaimRules(issues, base, a.claimValidationRules ?? [], celTexts);
  const mp = [...base, 'claimMappings'];
  validateClaimMappings(issues, mp, a.claimMappings, celTexts);
  checkEmailVerified(issues, mp, a.claimMappings.username, celTexts);
  (a.userValidationRules ?? []).forEach((r, i) => {
    const p = [...base, 'userValidationRules', i];
    if (r.expression === '') issues.required([...p, 'expression']);
    else checkCel(issues, [...p, 'expression'], r.expression, 'user', 'bool');
  });
}

/** The issuer's audiences: at least one, none empty, distinct; several need MatchAny. */
function validateAudiences(
  issues: IssueList,
  ip: FieldPath,
  iss: JWTAuthenticatorConfig['issuer'],
): void {
  if (iss.audiences.length === 0) issues.required([...ip, 'audiences']);
  iss.audiences.forEach((aud, i) => {
    if (aud === '') issues.required([...ip, 'audiences', i]);
  });
  checkUnique(
    issues,
    iss.audiences.map((value, i) => ({
      value: value === '' ? undefined : value,
      path: [...ip, 'audiences', i],
    })),
  );
  const policy = iss.audienceMatchPolicy ?? '';
  if (iss.audiences.length > 1 && policy !== 'MatchAny') {
    issues.invalid(
      [...ip, 'audienceMatchPolicy'],
      policy,
      'audienceMatchPolicy must be MatchAny for multiple audiences',
    );
  } else if (iss.audiences.length <= 1 && policy !== '' && policy !== 'MatchAny') {
    issues.invalid(
      [...ip, 'audienceMatchPolicy'],
      policy,
      'audienceMatchPolicy must be empty or MatchAny for single audience',
    );
  }
}

function validateIssuer(
  issues: IssueList,
  ip: FieldPath,
  iss: JWTAuthenticatorConfig['issuer'],
): void {
  if (iss.url === '') issues.required([...ip, 'url']);
  else checkHttpsUrl(issues, [...ip, 'url'], iss.url);
  if (iss.discoveryURL !== undefined && iss.discoveryURL !== '') {
    checkHttpsUrl(issues, [...ip, 'discoveryURL'], iss.discoveryURL);
    if (iss.discoveryURL === iss.url)
      issues.invalid(
        [...ip, 'discoveryURL'],
        iss.discoveryURL,
        'discoveryURL must be different from URL',
      );
  }
  if (
    iss.certificateAuthority !== undefined &&
    iss.certificateAuthority !== '' &&
    !certificatesParse(iss.certificateAuthority)
  ) {
    issues.invalid(
      [...ip, 'certificateAuthority'],
      undefined,
      'must contain PEM-encoded CERTIFICATE blocks that parse',
    );
  }
  validateAudiences(issues, ip, iss);
  if (
    iss.egressSelectorType !== undefined &&
    !['controlplane', 'cluster'].includes(iss.egressSelectorType)
  ) {
    issues.unsupported([...ip, 'egressSelectorType'], iss.egressSelectorType, [
      'controlplane',
      'cluster',
    ]);
  }
}

/** At least one CERTIFICATE block, and every one parses. */
function certificatesParse(pem: string): boolean {
  const blocks = pemBlocksOfType(pem, 'CERTIFICATE');
  if (blocks.length === 0) return false;
  try {
    for (const b of blocks) new X509Certificate(b);
    return true;
  } catch {
    return false;
  }
}

function validateClaimRules(
  issues: IssueList,
  base: FieldPath,
  rules: NonNullable<JWTAuthenticatorConfig['claimValidationRules']>,
  celTexts: string[],
): void {
  const seenClaims: { value: string | undefined; path: FieldPath }[] = [];
  rules.forEach((r, i) => {
    const p = [...base, 'claimValidationRules', i];
    const hasClaim = r.claim !== undefined && r.claim !== '';
    const hasExpr = r.expression !== undefined && r.expression !== '';
    if (hasClaim && hasExpr)
      issues.invalid(p, undefined, 'claim and expression are mutually exclusive');
    else if (!hasClaim && !hasExpr) issues.required(p.concat('claim'));
    if (hasClaim) {
      if (r.message !== undefined)
        issues.invalid(
          [...p, 'message'],
          undefined,
          'message can only be set when expression is set',
        );
      seenClaims.push({ value: r.claim, path: [...p, 'claim'] });
    } else if (r.requiredValue !== undefined) {
      issues.invalid(
        [...p, 'requiredValue'],
        undefined,
        'requiredValue can only be set when claim is set',
      );
    }
    if (hasExpr && !hasClaim && r.expression !== undefined) {
      celTexts.push(r.expression);
      checkCel(issues, [...p, 'expression'], r.expression, 'claims', 'bool');
    }
  });
  checkUnique(issues, seenClaims);
}

function validateClaimMappings(
  issues: IssueList,
  mp: FieldPath,
  cm: JWTAuthenticatorConfig['claimMappings'],
  celTexts: string[],
): void {
  checkPrefixed(issues, [...mp, 'username'], cm.username, true, 'string');
  if (cm.groups !== undefined)
    checkPrefixed(issues, [...mp, 'groups'], cm.groups, false, 'string-or-list');
  if (cm.uid !== undefined) {
    const up = [...mp, 'uid'];
    const hasClaim = cm.uid.claim !== undefined && cm.uid.claim !== '';
    const hasExpr = cm.uid.expression !== undefined && cm.uid.expression !== '';
    if (hasClaim && hasExpr)
      issues.invalid(up, undefined, 'claim and expression are mutually exclusive');
    else if (!hasClaim && !hasExpr) issues.required([...up, 'claim']);
    else if (hasExpr && cm.uid.expression !== undefined)
      checkCel(issues, [...up, 'expression'], cm.uid.expression, 'claims', 'string');
  }
  const keys: { value: string | undefined; path: FieldPath }[] = [];
  (cm.extra ?? []).forEach((e, i) => {
    const p = [...mp, 'extra', i];
    const problem = extraKeyProblem(e.key);
    if (problem === 'Required value') issues.required([...p, 'key']);
    else if (problem !== undefined) issues.invalid([...p, 'key'], e.key, problem);
    keys.push({ value: e.key === '' ? undefined : e.key, path: [...p, 'key'] });
    if (e.valueExpression === '') issues.required([...p, 'valueExpression']);
    else {
      celTexts.push(e.valueExpression);
      checkCel(issues, [...p, 'valueExpression'], e.valueExpression, 'claims', 'string-or-list');
    }
  });
  checkUnique(issues, keys);
}

/**
 * The reference refuses a username from claims.email unless claims.email_verified is checked
 * somewhere.
 */
function checkEmailVerified(
  issues: IssueList,
  mp: FieldPath,
  user: JWTAuthenticatorConfig['claimMappings']['username'],
  celTexts: readonly string[],
): void {
  if (user.expression === undefined || !USES_EMAIL.test(user.expression)) return;
  if ([user.expression, ...celTexts].some((t) => USES_EMAIL_VERIFIED.test(t))) return;
  issues.invalid(
    [...mp, 'username', 'expression'],
    user.expression,
    'claims.email_verified must be used in claimMappings.username.expression or ' +
      'claimMappings.extra[*].valueExpression or claimValidationRules[*].expression when ' +
      'claims.email is used in claimMappings.username.expression',
  );
}

function checkPrefixed(
  issues: IssueList,
  p: FieldPath,
  m: z.infer<typeof prefixedClaimOrExpression>,
  required: boolean,
  result: CelResult,
): void {
  const hasClaim = m.claim !== undefined && m.claim !== '';
  const hasExpr = m.expression !== undefined && m.expression !== '';
  if (hasClaim && hasExpr) {
    issues.invalid(p, undefined, 'claim and expression are mutually exclusive');
    return;
  }
  if (!hasClaim && !hasExpr) {
    if (required || m.prefix !== undefined) issues.required([...p, 'claim']);
    return;
  }
  if (hasClaim && m.prefix === undefined) {
    issues.required([...p, 'prefix']);
  }
  if (hasExpr) {
    if (m.prefix !== undefined)
      issues.invalid([...p, 'prefix'], undefined, 'prefix can only be set when claim is set');
    if (m.expression !== undefined)
      checkCel(issues, [...p, 'expression'], m.expression, 'claims', result);
  }
}

export function validateAuthentication(
  issues: IssueList,
  cfg: AuthenticationConfiguration,
  opts: AuthenticationValidationOptions,
): void {
  const jwts = cfg.jwt ?? [];
  jwts.forEach((a, i) => validateJwt(issues, ['jwt', i], a));
  checkUnique(
    issues,
    jwts.map((a, i) => ({
      value: a.issuer.url === '' ? undefined : a.issuer.url,
      path: ['jwt', i, 'issuer', 'url'],
    })),
  );
  checkUnique(
    issues,
    jwts.map((a, i) => ({
      value:
        a.issuer.discoveryURL === undefined || a.issuer.discoveryURL === ''
          ? undefined
          : a.issuer.discoveryURL,
      path: ['jwt', i, 'issuer', 'discoveryURL'],
    })),
  );
  const anon = cfg.anonymous;
  if (anon !== undefined) {
    if (opts.anonymousAuthFlagSet) {
      issues.forbidden(
        ['anonymous'],
        'anonymous is not allowed to be configured if --anonymous-auth flag is set',
      );
    }
    const conds = anon.conditions ?? [];
    if (!anon.enabled && conds.length > 0)
      issues.invalid(
        ['anonymous', 'conditions'],
        undefined,
        'enabled should be set to true when conditions are defined',
      );
    conds.forEach((c, i) => {
      if (c.path === '') issues.required(['anonymous', 'conditions', i, 'path']);
      else if (!c.path.startsWith('/'))
        issues.invalid(
          ['anonymous', 'conditions', i, 'path'],
          c.path,
          'must be an absolute path starting with "/"',
        );
    });
    checkUnique(
      issues,
      conds.map((c, i) => ({
        value: c.path === '' ? undefined : c.path,
        path: ['anonymous', 'conditions', i, 'path'],
      })),
    );
  }
}
