// URL userinfo (`scheme://user:password@host`) is a secret: it is masked wherever a URL is shown
// (served or printed configuration, log lines, error messages). The marker is the reference's
// (Go's url.URL.Redacted writes `xxxxx`); the user name goes too, as it often is the token.
// userinfo is what RFC 3986 allows there (unreserved, %XX, sub-delims, ':'): anything but
// white space, the delimiters / ? # @ and characters a URL cannot hold unencoded (" \ < > `)
const USERINFO = /([a-z][a-z0-9+.-]*:\/\/)([^\s/?#@"\\<>`]+)@/gi;

export const USERINFO_MASK = 'xxxxx';

/** `text` with the userinfo of every URL in it masked: `https://xxxxx:xxxxx@host/...`. */
export function maskUrlUserinfo(text: string): string {
  if (!text.includes('://')) return text;
  return text.replace(
    USERINFO,
    (_m, scheme: string, info: string) =>
      `${scheme}${info.includes(':') ? `${USERINFO_MASK}:${USERINFO_MASK}` : USERINFO_MASK}@`,
  );
}

/**
 * A deep copy of `value` with `maskUrlUserinfo` applied to every string in it. The copy has the
 * shape of `value` (strings stay strings), which the compiler cannot follow through the walk:
 * hence the assertions back to T.
 */
export function maskUrlUserinfoDeep<T>(value: T): T {
  if (typeof value === 'string') return maskUrlUserinfo(value) as T;
  if (Array.isArray(value)) return value.map((v: unknown) => maskUrlUserinfoDeep(v)) as T;
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, maskUrlUserinfoDeep(v)]),
    ) as T;
  }
  return value;
}
