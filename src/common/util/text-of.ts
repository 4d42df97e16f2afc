// A value from outside as text for a message: strings as they are, anything else as JSON, so an
// object never prints as "[object Object]".
export function textOf(v: unknown): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'bigint') return v.toString();
  // JSON has no text for these
  if (v === undefined || typeof v === 'function' || typeof v === 'symbol') return String(v);
  try {
    return JSON.stringify(v);
  } catch {
    return Object.prototype.toString.call(v);
  }
}
