// AuthorizationConfiguration: an ordered chain of authorizers; Webhook ones with their cache,
// timeout, failure policy, connection and CEL match conditions.
import { isAbsolute } from 'node:path';
import { z } from 'zod';
import { compileCel } from './cel.js';
import { checkDuration, checkUnique, isDns1123Label, isDns1123Subdomain } from './common.js';
import type { IssueList } from './issues.js';
import { isOneOf } from '../../common/util/json-shape.js';

export const AUTHORIZER_TYPES = ['AlwaysAllow', 'AlwaysDeny', 'Node', 'RBAC', 'Webhook'] as const;
export const MAX_MATCH_CONDITIONS = 64;
export const MAX_WEBHOOK_TIMEOUT_MS = 30_000;

export const webhookSchema = z.strictObject({
  authorizedTTL: z.string().default('5m0s'),
  cacheAuthorizedRequests: z.boolean().default(true),
  unauthorizedTTL: z.string().default('30s'),
  cacheUnauthorizedRequests: z.boolean().default(true),
  timeout: z.string(),
  subjectAccessReviewVersion: z.string(),
  matchConditionSubjectAccessReviewVersion: z.string(),
  failurePolicy: z.string(),
  connectionInfo: z.strictObject({ type: z.string(), kubeConfigFile: z.string().optional() }),
  matchConditions: z.array(z.strictObject({ expression: z.string() })).default([]),
});

export const authorizationConfigurationSchema = z.strictObject({
  apiVersion: z.string(),
  kind: z.literal('AuthorizationConfiguration'),
  authorizers: z.array(
    z.strictObject({ type: z.string(), name: z.string(), webhook: webhookSchema.optional() }),
  ),
});

export type WebhookConfig = z.infer<typeof webhookSchema>;
export type AuthorizationConfiguration = z.infer<typeof authorizationConfigurationSchema>;

export function validateAuthorization(issues: IssueList, cfg: AuthorizationConfiguration): void {
  if (cfg.authorizers.length === 0) issues.required(['authorizers']);
  cfg.authorizers.forEach((a, i) => {
    const p = ['authorizers', i];
    if (a.type === '') issues.required([...p, 'type']);
    else if (!isOneOf(AUTHORIZER_TYPES, a.type))
      issues.unsupported([...p, 'type'], a.type, AUTHORIZER_TYPES);
    if (a.name === '') issues.required([...p, 'name']);
    else if (!isDns1123Label(a.name) && !isDns1123Subdomain(a.name)) {
      issues.invalid([...p, 'name'], a.name, 'must be a valid DNS 1123 label or subdomain');
    }
    if (a.type === 'Webhook' && a.webhook === undefined) issues.required([...p, 'webhook']);
    if (a.type !== 'Webhook' && a.webhook !== undefined) {
      issues.invalid(
        [...p, 'webhook'],
        undefined,
        'non-null webhook config is only allowed when type is Webhook',
      );
    }
    if (a.webhook !== undefined) validateWebhook(issues, [...p, 'webhook'], a.webhook);
  });
  checkUnique(
    issues,
    cfg.authorizers.map((a, i) => ({
      value: a.name === '' ? undefined : a.name,
      path: ['authorizers', i, 'name'],
    })),
  );
}

type FieldPath = (string | number)[];

/** The cache TTLs (positive when that cache is on) and the timeout (at most 30s). */
function validateWebhookTimes(issues: IssueList, p: FieldPath, w: WebhookConfig): void {
  if (w.cacheAuthorizedRequests)
    checkDuration(issues, [...p, 'authorizedTTL'], w.authorizedTTL, { min: 'positive' });
  else checkDuration(issues, [...p, 'authorizedTTL'], w.authorizedTTL, { min: 'non-negative' });
  if (w.cacheUnauthorizedRequests)
    checkDuration(issues, [...p, 'unauthorizedTTL'], w.unauthorizedTTL, { min: 'positive' });
  else checkDuration(issues, [...p, 'unauthorizedTTL'], w.unauthorizedTTL, { min: 'non-negative' });
  if (w.timeout === '') issues.required([...p, 'timeout']);
  else
    checkDuration(issues, [...p, 'timeout'], w.timeout, {
      min: 'positive',
      maxMs: MAX_WEBHOOK_TIMEOUT_MS,
      maxText: '30s',
    });
}

/** The review versions and the failure policy: required, one of the supported values. */
function validateWebhookVersions(issues: IssueList, p: FieldPath, w: WebhookConfig): void {
  if (w.subjectAccessReviewVersion === '') issues.required([...p, 'subjectAccessReviewVersion']);
  else if (!['v1', 'v1beta1'].includes(w.subjectAccessReviewVersion)) {
    issues.unsupported([...p, 'subjectAccessReviewVersion'], w.subjectAccessReviewVersion, [
      'v1',
      'v1beta1',
    ]);
  }
  if (w.matchConditionSubjectAccessReviewVersion === '')
    issues.required([...p, 'matchConditionSubjectAccessReviewVersion']);
  else if (w.matchConditionSubjectAccessReviewVersion !== 'v1') {
    issues.unsupported(
      [...p, 'matchConditionSubjectAccessReviewVersion'],
      w.matchConditionSubjectAccessReviewVersion,
      ['v1'],
    );
  }
  if (w.failurePolicy === '') issues.required([...p, 'failurePolicy']);
  else if (!['NoOpinion', 'Deny'].includes(w.failurePolicy))
    issues.unsupported([...p, 'failurePolicy'], w.failurePolicy, ['NoOpinion', 'Deny']);
}

/** connectionInfo: a KubeConfigFile with an absolute path (InClusterConfig has no cluster here). */
function validateConnectionInfo(issues: IssueList, p: FieldPath, w: WebhookConfig): void {
  const ci = w.connectionInfo;
  const cp = [...p, 'connectionInfo'];
  if (ci.type === '') issues.required([...cp, 'type']);
  else if (ci.type === 'InClusterConfig') {
    issues.invalid(
      [...cp, 'type'],
      ci.type,
      'InClusterConfig is not allowed for the API server itself: use KubeConfigFile',
    );
    if (ci.kubeConfigFile !== undefined && ci.kubeConfigFile !== '') {
      issues.invalid(
        [...cp, 'kubeConfigFile'],
        undefined,
        'can only be set when type=KubeConfigFile',
      );
    }
  } else if (ci.type === 'KubeConfigFile') {
    if (ci.kubeConfigFile === undefined || ci.kubeConfigFile === '')
      issues.required([...cp, 'kubeConfigFile']);
    else if (!isAbsolute(ci.kubeConfigFile))
      issues.invalid([...cp, 'kubeConfigFile'], ci.kubeConfigFile, 'must be an absolute path');
  } else issues.unsupported([...cp, 'type'], ci.type, ['KubeConfigFile', 'InClusterConfig']);
}

/** matchConditions: at most MAX_MATCH_CONDITIONS, each a distinct boolean CEL expression. */
function validateMatchConditions(issues: IssueList, p: FieldPath, w: WebhookConfig): void {
  if (w.matchConditions.length > MAX_MATCH_CONDITIONS) {
    issues.add(
      [...p, 'matchConditions'],
      `Too many: ${w.matchConditions.length}: must have at most ${MAX_MATCH_CONDITIONS} items`,
    );
  }
  w.matchConditions.forEach((m, i) => {
    const mp = [...p, 'matchConditions', i, 'expression'];
    if (m.expression.trim() === '') {
      issues.required(mp);
      return;
    }
    const r = compileCel(m.expression, 'request', 'bool');
    if (!r.ok) issues.add(mp, r.message);
  });
  checkUnique(
    issues,
    w.matchConditions.map((m, i) => ({
      value: m.expression === '' ? undefined : m.expression,
      path: [...p, 'matchConditions', i, 'expression'],
    })),
  );
}

function validateWebhook(issues: IssueList, p: FieldPath, w: WebhookConfig): void {
  validateWebhookTimes(issues, p, w);
  validateWebhookVersions(issues, p, w);
  validateConnectionInfo(issues, p, w);
  validateMatchConditions(issues, p, w);
}
