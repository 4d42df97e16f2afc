// Reading values of unknown shape (parsed JSON or YAML, stored objects) without type assertions:
// the guards and readers that narrow them, so a wrong shape reads as absent instead of lying to
// the compiler.

/** A plain object (not null, not an array). */
export function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** `v` when it is a plain object, else a new empty one. */
export function recordOf(v: unknown): Record<string, unknown> {
  return isRecord(v) ? v : {};
}

/** `v` when it is an array, else a new empty one. */
export function listOf(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}

/** True when `v` is an array of strings. */
export function isStringList(v: unknown): v is string[] {
  return Array.isArray(v) && v.every((x) => typeof x === 'string');
}

/** True when `v` is one of `values` (a string union's list of members). */
export function isOneOf<T extends string>(values: readonly T[], v: string): v is T {
  return values.some((x) => x === v);
}

/** The string-valued entries of `v` (labels, annotations); empty when `v` is not an object. */
export function stringRecordOf(v: unknown): Record<string, string> {
  // fromEntries defines own properties, so even a "__proto__" key stays a key.
  return Object.fromEntries(
    Object.entries(recordOf(v)).filter((e): e is [string, string] => typeof e[1] === 'string'),
  );
}
