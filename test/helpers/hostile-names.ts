// Identifiers that must never become a path segment: traversal, absolute, separators,
// percent-encoded traversal, NUL, control characters, over-long. Shared by the path-escape tests.
export const HOSTILE_SEGMENTS: readonly string[] = [
  '..',
  '.',
  '',
  '../../victim',
  '/etc',
  '/',
  'a/b',
  'a\\b',
  '%2e%2e',
  '%2E%2E%2Fvictim',
  '..%2fvictim',
  'a\0b',
  'new\nline',
  'x'.repeat(256),
];
