// A list in a strategic merge patch that replaces the server's list whole: the `$patch: replace`
// directive first, then the items. For a list the schema merges by a key that is not unique in
// practice (addresses and IPs by type or ip), where the writer owns every entry.

const REPLACE = { $patch: 'replace' } as const;

export function replacingList<T>(items: readonly T[]): (T | typeof REPLACE)[] {
  return [REPLACE, ...items];
}
