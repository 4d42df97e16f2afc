// Image matching as the reference's credential provider does it (pkg/credentialprovider:
// ParseSchemelessURL, URLsMatch, Go's filepath.Match on each host label): a glob matches an image
// when the ports are equal, the hosts have as many dot-separated labels and each label matches its
// glob, and the glob's path is a prefix of the image's path. And the image name the plugin is
// asked about: the normalized repository without tag or digest (`busybox:1` ->
// `docker.io/library/busybox`), as the reference's parsers.ParseImageName gives repoToPull.

export interface SchemelessURL {
  host: string;
  path: string;
}

/**
 * Go's url.Parse("https://" + s) for what matchImages and images hold; throws on what Go refuses.
 */
export function parseSchemelessURL(s: string): SchemelessURL {
  // eslint-disable-next-line no-control-regex
  if (/[\x00-\x1f\x7f ]/.test(s)) throw new Error(`parse "https://${s}": invalid character in URL`);
  const bad = /%(?![0-9a-fA-F]{2})/.exec(s);
  if (bad !== null)
    throw new Error(
      `parse "https://${s}": invalid URL escape "${s.slice(bad.index, bad.index + 3)}"`,
    );
  const cut = s.search(/[/?#]/);
  const host = cut < 0 ? s : s.slice(0, cut);
  const rest = cut < 0 ? '' : s.slice(cut);
  const path = rest.startsWith('/') ? rest.replace(/[?#].*$/, '') : '';
  if (host.startsWith('[') && !host.includes(']'))
    throw new Error(`parse "https://${s}": missing ']' in host`);
  // Go's shouldEscape(c, encodeHost): what a host may hold unescaped
  const badChar = /[^A-Za-z0-9\-._~!$&'()*+,;=:[\]<>"%@]/.exec(host);
  if (badChar !== null)
    throw new Error(
      `parse "https://${s}": invalid character ${JSON.stringify(badChar[0])} in host name`,
    );
  return {
    host: host.includes('@') ? host.slice(host.lastIndexOf('@') + 1) : host,
    path: decodeURIComponentSafe(path),
  };
}

function decodeURIComponentSafe(p: string): string {
  try {
    return decodeURIComponent(p);
  } catch {
    return p;
  }
}

/** Go's net.SplitHostPort fallback as splitURL uses it: labels of the host, and the port. */
function splitURL(u: SchemelessURL): { parts: string[]; port: string } {
  const v6 = /^\[([^\]]*)\](?::(\d*))?$/.exec(u.host);
  if (v6 !== null) return { parts: (v6[1] ?? '').split('.'), port: v6[2] ?? '' };
  const m = /^([^:]*):(\d*)$/.exec(u.host);
  if (m !== null) return { parts: (m[1] ?? '').split('.'), port: m[2] ?? '' };
  return { parts: u.host.split('.'), port: '' };
}

/** Go's filepath.Match pattern as a RegExp (the separator `/` never occurs in a host label). */
export function globRegExp(pattern: string): RegExp {
  let re = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i] as string;
    if (c === '*') re += '[^/]*';
    else if (c === '?') re += '[^/]';
    else if (c === '\\') {
      const next = pattern[++i];
      if (next === undefined) throw new Error('syntax error in pattern');
      re += escapeRe(next);
    } else if (c === '[') {
      const end = classEnd(pattern, i);
      re += classRe(pattern.slice(i + 1, end));
      i = end;
    } else re += escapeRe(c);
  }
  return new RegExp(`^${re}$`, 'u');
}

function escapeRe(c: string): string {
  return c.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Inside a character class `-` is special too (the `u` flag allows escaping it only there). */
function escapeClass(c: string): string {
  return c.replace(/[\]\\^-]/g, '\\$&');
}

/** Index of the `]` that closes the class opened at `start`. */
function classEnd(p: string, start: number): number {
  let i = start + 1;
  if (p[i] === '^') i++;
  let items = 0;
  while (i < p.length) {
    if (p[i] === ']' && items > 0) return i;
    if (p[i] === '\\') i++;
    i++;
    items++;
  }
  throw new Error('syntax error in pattern');
}

function classRe(body: string): string {
  let i = 0;
  let out = '[';
  if (body.startsWith('^')) {
    out += '^';
    i++;
  }
  const esc = (): string => {
    let c = body[i];
    if (c === undefined || c === '-' || c === ']') throw new Error('syntax error in pattern');
    if (c === '\\') {
      c = body[++i];
      if (c === undefined) throw new Error('syntax error in pattern');
    }
    i++;
    return c;
  };
  while (i < body.length) {
    const lo = esc();
    out += escapeClass(lo);
    if (body[i] === '-') {
      i++;
      out += `-${escapeClass(esc())}`;
    }
  }
  return `${out}]`;
}

/** URLsMatchStr: whether the glob (a matchImages entry or a response key) matches the image. */
export function urlsMatch(glob: string, target: string): boolean {
  let g: SchemelessURL;
  let t: SchemelessURL;
  try {
    g = parseSchemelessURL(glob);
    t = parseSchemelessURL(target);
  } catch {
    return false;
  }
  const gs = splitURL(g);
  const ts = splitURL(t);
  if (gs.port !== ts.port || gs.parts.length !== ts.parts.length) return false;
  if (!t.path.startsWith(g.path)) return false;
  try {
    return gs.parts.every((part, k) => globRegExp(part).test(ts.parts[k] ?? ''));
  } catch {
    return false;
  }
}

/**
 * The repository to pull, normalized as the reference (docker/distribution's ParseNormalizedNamed).
 */
export function repoToPull(image: string): string {
  let name = image;
  const at = name.indexOf('@');
  if (at >= 0) name = name.slice(0, at);
  const slash = name.lastIndexOf('/');
  const colon = name.lastIndexOf(':');
  if (colon > slash) name = name.slice(0, colon);
  const first = name.indexOf('/');
  const head = first < 0 ? '' : name.slice(0, first);
  if (first < 0 || !(head.includes('.') || head.includes(':') || head === 'localhost')) {
    return `docker.io/${first < 0 ? `library/${name}` : name}`;
  }
  return head === 'index.docker.io' ? `docker.io${name.slice(first)}` : name;
}

/** The registry host of a normalized repository (its first path segment). */
export function registryOf(repo: string): string {
  return repo.split('/')[0] ?? repo;
}
