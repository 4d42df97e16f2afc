// Pieces shared by the five configuration kinds.
import { tryDurationMs } from '../../common/util/values/duration.js';
import type { FieldPath, IssueList } from './issues.js';

export { DEFAULT_PLATFORM_DOMAIN } from '../../common/names.js';

export function configGroup(platformDomain: string): string {
  return `apiserver.config.${platformDomain}`;
}

export function configApiVersion(platformDomain: string): string {
  return `${configGroup(platformDomain)}/v1`;
}

const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

export function isDns1123Label(s: string): boolean {
  return s.length <= 63 && DNS1123_LABEL.test(s);
}

export function isDns1123Subdomain(s: string): boolean {
  return (
    s.length > 0 &&
    s.length <= 253 &&
    s.split('.').every((l) => l.length <= 63 && DNS1123_LABEL.test(l))
  );
}

/** Validates a Go duration field; returns milliseconds or undefined (after adding an issue). */
export function checkDuration(
  issues: IssueList,
  path: FieldPath,
  text: string,
  rules: { min?: 'positive' | 'non-negative'; maxMs?: number; maxText?: string },
): number | undefined {
  const ms = tryDurationMs(text);
  if (ms === undefined) {
    issues.invalid(path, text, 'must be a duration such as "30s", "5m0s" or "1h"');
    return undefined;
  }
  if (rules.min === 'positive' && ms <= 0) {
    issues.invalid(path, text, 'must be greater than zero');
    return undefined;
  }
  if (rules.min === 'non-negative' && ms < 0) {
    issues.invalid(path, text, 'must not be negative');
    return undefined;
  }
  if (rules.maxMs !== undefined && ms > rules.maxMs) {
    issues.invalid(path, text, `must not be greater than ${rules.maxText ?? `${rules.maxMs}ms`}`);
    return undefined;
  }
  return ms;
}

export function checkUnique(
  issues: IssueList,
  items: readonly { value: string | undefined; path: FieldPath }[],
): void {
  const seen = new Set<string>();
  for (const { value, path } of items) {
    if (value === undefined) continue;
    if (seen.has(value)) issues.duplicate(path, value);
    seen.add(value);
  }
}
