// What differs between what the kubelet and nodeagent left: each object flattened to its paths
// (`status.containerStatuses[0].state.waiting.reason`), with what varies from run to run spelt
// the same on both sides (times, uids, IPs, container IDs, the program's own names), and the
// paths whose values differ listed with both values.

/** The run-to-run values, replaced by placeholders; `program` is the node program's name. */
export function normalized(text: string, program: string, namespace: string): string {
  return text
    .replaceAll(`-${program}`, '-X')
    .replaceAll(namespace, 'NS')
    .replace(/\d{4}-\d\d-\d\dT[\d:.]+Z/g, 'TIME')
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, 'UID')
    .replace(/[0-9a-f]{64}/g, 'ID')
    .replace(/kube-api-access-[a-z0-9]{5}/g, 'kube-api-access-X')
    .replace(/(?<![\d.])\d+\.\d+\.\d+\.\d+(?![\d.])/g, 'IP')
    .replace(/\.\.\d{4}_\d\d_\d\d_\d\d_\d\d_\d\d\.\d+/g, '..DATA');
}

function flatten(value: unknown, path: string, out: Map<string, string>): void {
  if (Array.isArray(value)) value.forEach((v, i) => flatten(v, `${path}[${i}]`, out));
  else if (value !== null && typeof value === 'object')
    for (const [k, v] of Object.entries(value)) flatten(v, path === '' ? k : `${path}.${k}`, out);
  else out.set(path, JSON.stringify(value));
}

/** The paths where `a` and `b` differ, as `path: a-value | b-value` (`-` when absent). */
export function differences(a: unknown, b: unknown, ignore: readonly RegExp[] = []): string[] {
  const fa = new Map<string, string>();
  const fb = new Map<string, string>();
  flatten(a, '', fa);
  flatten(b, '', fb);
  const paths = [...new Set([...fa.keys(), ...fb.keys()])].sort();
  return paths
    .filter((p) => fa.get(p) !== fb.get(p) && !ignore.some((r) => r.test(p)))
    .map((p) => `${p}: ${fa.get(p) ?? '-'} | ${fb.get(p) ?? '-'}`);
}

/** The lines only one side printed, each marked with its side. */
export function lineDifferences(a: string, b: string): string[] {
  const la = a.split('\n');
  const lb = b.split('\n');
  const onlyA = la.filter((l) => !lb.includes(l)).map((l) => `kubelet only:   ${l}`);
  const onlyB = lb.filter((l) => !la.includes(l)).map((l) => `nodeagent only: ${l}`);
  return [...onlyA, ...onlyB];
}
