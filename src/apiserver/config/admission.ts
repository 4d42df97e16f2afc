// AdmissionConfiguration (per-plugin configuration) and the EventRateLimit plugin's own
// configuration kind, which may be embedded or live in a file named by `path`.
import { z } from 'zod';
import { checkUnique } from './common.js';
import type { FieldPath, IssueList } from './issues.js';
import { isOneOf } from '../../common/util/json-shape.js';

export const ADMISSION_PLUGIN_NAMES = [
  'ServiceAccount',
  'NodeRestriction',
  'DefaultTolerationSeconds',
  'CertificateApproval',
  'CertificateSigning',
  'CertificateSubjectRestriction',
  'EventRateLimit',
] as const;
export type AdmissionPluginName = (typeof ADMISSION_PLUGIN_NAMES)[number];

export const admissionConfigurationSchema = z.strictObject({
  apiVersion: z.string(),
  kind: z.literal('AdmissionConfiguration'),
  plugins: z.array(
    z.strictObject({
      name: z.string(),
      path: z.string().optional(),
      configuration: z.record(z.string(), z.unknown()).optional(),
    }),
  ),
});
export type AdmissionConfiguration = z.infer<typeof admissionConfigurationSchema>;

export const EVENT_RATE_LIMIT_TYPES = ['Server', 'Namespace', 'User', 'SourceAndObject'] as const;
export type EventRateLimitType = (typeof EVENT_RATE_LIMIT_TYPES)[number];
export const EVENT_RATE_LIMIT_DEFAULT_CACHE_SIZE = 4096;

export function eventRateLimitApiVersion(platformDomain: string): string {
  return `eventratelimit.admission.${platformDomain}/v1alpha1`;
}

export const eventRateLimitConfigurationSchema = z.strictObject({
  apiVersion: z.string(),
  kind: z.literal('Configuration'),
  limits: z.array(
    z.strictObject({
      type: z.string(),
      qps: z.number().int(),
      burst: z.number().int(),
      cacheSize: z.number().int().optional(),
    }),
  ),
});
export type EventRateLimitConfiguration = z.infer<typeof eventRateLimitConfigurationSchema>;

export function validateAdmission(issues: IssueList, cfg: AdmissionConfiguration): void {
  cfg.plugins.forEach((p, i) => {
    if (p.name === '') issues.required(['plugins', i, 'name']);
    else if (!isOneOf(ADMISSION_PLUGIN_NAMES, p.name)) {
      issues.unsupported(['plugins', i, 'name'], p.name, ADMISSION_PLUGIN_NAMES);
    }
  });
  checkUnique(
    issues,
    cfg.plugins.map((p, i) => ({
      value: p.name === '' ? undefined : p.name,
      path: ['plugins', i, 'name'],
    })),
  );
}

export function validateEventRateLimit(
  issues: IssueList,
  base: FieldPath,
  cfg: EventRateLimitConfiguration,
  platformDomain: string,
): void {
  const want = eventRateLimitApiVersion(platformDomain);
  if (cfg.apiVersion !== want) issues.unsupported([...base, 'apiVersion'], cfg.apiVersion, [want]);
  if (cfg.limits.length === 0) issues.required([...base, 'limits']);
  cfg.limits.forEach((l, i) => {
    const p = [...base, 'limits', i];
    if (!isOneOf(EVENT_RATE_LIMIT_TYPES, l.type))
      issues.unsupported([...p, 'type'], l.type, EVENT_RATE_LIMIT_TYPES);
    if (l.qps <= 0) issues.invalid([...p, 'qps'], String(l.qps), 'must be positive');
    if (l.burst <= 0) issues.invalid([...p, 'burst'], String(l.burst), 'must be positive');
    if (l.cacheSize !== undefined && l.cacheSize < 0)
      issues.invalid([...p, 'cacheSize'], String(l.cacheSize), 'must not be negative');
    if (l.cacheSize !== undefined && l.type === 'Server')
      issues.invalid(
        [...p, 'cacheSize'],
        String(l.cacheSize),
        'cacheSize is not used for type Server',
      );
  });
  checkUnique(
    issues,
    cfg.limits.map((l, i) => ({ value: l.type, path: [...base, 'limits', i, 'type'] })),
  );
}
