// What a request path names, by the reference's rules and independent of the server's code: the
// path is percent-decoded once (an undecodable path names nothing), split on `/` with empty
// segments dropped, NEVER dot-resolved; then `/api/v1` or `/apis/{group}/v1`, an optional
// `watch`, an optional `namespaces/{ns}`, the resource and an optional name. The fuzz suites use
// it as the oracle for "nothing read or changed that the path did not name".

export interface NamedTarget {
  readonly group: string;
  readonly namespace: string;
  readonly resource: string;
  /** '' for a collection. */
  readonly name: string;
}

function decodeOnce(raw: string): string | undefined {
  if (/%(?![0-9a-fA-F]{2})/.test(raw)) return undefined;
  const bytes = raw
    .split(/(%[0-9a-fA-F]{2})/)
    .flatMap((part) =>
      part.startsWith('%') && part.length === 3
        ? [Number.parseInt(part.slice(1), 16)]
        : [...Buffer.from(part, 'utf8')],
    );
  return Buffer.from(bytes).toString('utf8');
}

/** The resource path a raw request target names, or undefined when it names none. */
export function namedTarget(target: string): NamedTarget | undefined {
  const rawPath = target.split('?')[0] ?? '';
  const decoded = decodeOnce(rawPath);
  if (decoded === undefined) return undefined;
  let parts = decoded.split('/').filter((p) => p !== '');
  let group: string;
  if (parts[0] === 'api' && parts[1] === 'v1') {
    group = '';
    parts = parts.slice(2);
  } else if (parts[0] === 'apis' && parts[2] === 'v1') {
    group = parts[1] ?? '';
    parts = parts.slice(3);
  } else return undefined;
  if (parts[0] === 'watch') parts = parts.slice(1);
  let namespace = '';
  if (parts[0] === 'namespaces' && parts.length >= 3) {
    namespace = parts[1] ?? '';
    parts = parts.slice(2);
  }
  const [resource, name = ''] = parts;
  if (resource === undefined) return undefined;
  return { group, namespace, resource, name };
}

/** Whether a request to `target` may read or change the object (a collection path names all of them). */
export function names(
  target: string,
  obj: { group: string; resource: string; namespace: string; name: string },
): boolean {
  const t = namedTarget(target);
  if (t === undefined || t.group !== obj.group || t.resource !== obj.resource) return false;
  if (t.name !== '' && t.name !== obj.name) return false;
  return t.namespace === '' || t.namespace === obj.namespace;
}
