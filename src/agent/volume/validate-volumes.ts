// The reference's validation of the volume sources the volume manager sets up (configMap, secret,
// downwardAPI, projected): names, items (key, local path, mode), defaultMode, downward API field
// paths, service account token lifetimes; and, on process://, the mounts a host process cannot
// have (it runs in the host's file system: only a hostPath mounted at its own path, without
// subPath, is what the process sees anyway).
import { forbidden, invalid, required } from '../pod/field-errors.js';
import type { Container, DownwardAPIVolumeFile, KeyToPath, Pod, Volume } from '../pod/types.js';

const FILE_MODE_MSG = 'must be a number between 0 and 0777 (octal), both inclusive';
const DOWNWARD_FIELDS = new Set([
  'metadata.name',
  'metadata.namespace',
  'metadata.labels',
  'metadata.annotations',
  'metadata.uid',
]);
const SUBSCRIPTED = /^metadata\.(labels|annotations)\['.+'\]$/;

function mode(path: string, m: number | undefined, out: string[]): void {
  if (m !== undefined && (m < 0 || m > 0o777)) out.push(invalid(path, m, FILE_MODE_MSG));
}

/** ValidateLocalNonReservedPath. */
function localPath(path: string, p: string, out: string[]): void {
  if (p.startsWith('/')) out.push(invalid(path, p, 'must be a relative path'));
  if (p.split('/').includes('..')) out.push(invalid(path, p, "must not contain '..'"));
  if (p.startsWith('..')) out.push(invalid(path, p, "must not start with '..'"));
}

function items(path: string, list: readonly KeyToPath[] | undefined, out: string[]): void {
  (list ?? []).forEach((kp, i) => {
    const at = `${path}.items[${i}]`;
    if (kp.key === '') out.push(required(`${at}.key`));
    if (kp.path === '') out.push(required(`${at}.path`));
    localPath(`${at}.path`, kp.path, out);
    mode(`${at}.mode`, kp.mode, out);
  });
}

function downwardFiles(
  path: string,
  files: readonly DownwardAPIVolumeFile[] | undefined,
  out: string[],
): void {
  (files ?? []).forEach((f, i) => {
    const at = `${path}.items[${i}]`;
    if (f.path === '') out.push(required(`${at}.path`));
    localPath(`${at}.path`, f.path, out);
    const fp = f.fieldRef?.fieldPath;
    if (fp !== undefined && !DOWNWARD_FIELDS.has(fp) && !SUBSCRIPTED.test(fp))
      out.push(
        `${at}.fieldRef.fieldPath: Unsupported value: "${fp}": supported values: ` +
          `"metadata.annotations", "metadata.labels", "metadata.name", ` +
          `"metadata.namespace", "metadata.uid"`,
      );
    if (f.fieldRef !== undefined && f.resourceFieldRef !== undefined)
      out.push(
        invalid(
          at,
          'resource',
          'fieldRef and resourceFieldRef can not be specified simultaneously',
        ),
      );
    if (f.fieldRef === undefined && f.resourceFieldRef === undefined)
      out.push(required(at, 'one of fieldRef and resourceFieldRef is required'));
    mode(`${at}.mode`, f.mode, out);
  });
}

function projected(path: string, p: NonNullable<Volume['projected']>, out: string[]): void {
  mode(`${path}.defaultMode`, p.defaultMode, out);
  (p.sources ?? []).forEach((s, i) => {
    const at = `${path}.sources[${i}]`;
    if (s.configMap) {
      if ((s.configMap.name ?? '') === '') out.push(required(`${at}.configMap.name`));
      items(`${at}.configMap`, s.configMap.items, out);
    }
    if (s.secret) {
      if ((s.secret.name ?? '') === '') out.push(required(`${at}.secret.name`));
      items(`${at}.secret`, s.secret.items, out);
    }
    if (s.downwardAPI) downwardFiles(`${at}.downwardAPI`, s.downwardAPI.items, out);
    const t = s.serviceAccountToken;
    if (t) {
      const e = t.expirationSeconds;
      if (e !== undefined && e < 600)
        out.push(
          invalid(
            `${at}.serviceAccountToken.expirationSeconds`,
            e,
            'may not specify a duration less than 10 minutes',
          ),
        );
      if (e !== undefined && e > 2 ** 32)
        out.push(
          invalid(
            `${at}.serviceAccountToken.expirationSeconds`,
            e,
            'may not specify a duration larger than 2^32 seconds',
          ),
        );
      if (t.path === '') out.push(required(`${path}.path`));
    }
  });
}

/** The number of volume sources the manager knows that `v` sets. */
export function managedSourceCount(v: Volume): number {
  return [v.configMap, v.secret, v.downwardAPI, v.projected].filter((x) => x !== undefined).length;
}

export function validateManagedVolume(v: Volume, path: string, out: string[]): void {
  if (v.configMap) {
    if ((v.configMap.name ?? '') === '') out.push(required(`${path}.configMap.name`));
    mode(`${path}.configMap.defaultMode`, v.configMap.defaultMode, out);
    items(`${path}.configMap`, v.configMap.items, out);
  }
  if (v.secret) {
    if ((v.secret.secretName ?? '') === '') out.push(required(`${path}.secret.secretName`));
    mode(`${path}.secret.defaultMode`, v.secret.defaultMode, out);
    items(`${path}.secret`, v.secret.items, out);
  }
  if (v.downwardAPI) {
    mode(`${path}.downwardAPI.defaultMode`, v.downwardAPI.defaultMode, out);
    downwardFiles(`${path}.downwardAPI`, v.downwardAPI.items, out);
  }
  if (v.projected) projected(`${path}.projected`, v.projected, out);
  if (v.emptyDir?.medium !== undefined && !['', 'Memory'].includes(v.emptyDir.medium))
    out.push(
      forbidden(
        `${path}.emptyDir.medium`,
        `medium ${v.emptyDir.medium} is not supported by this agent (it manages no huge pages)`,
      ),
    );
}

/** process://: a mount other than a hostPath at its own path is refused, naming the runtime. */
export function processMountProblems(pod: Pod, c: Container, path: string, out: string[]): void {
  (c.volumeMounts ?? []).forEach((m, j) => {
    const v = (pod.spec.volumes ?? []).find((x) => x.name === m.name);
    const at = `${path}.volumeMounts[${j}]`;
    const own = v?.hostPath?.path.replace(/\/+$/, '');
    const identity =
      own === m.mountPath.replace(/\/+$/, '') &&
      (m.subPath ?? '') === '' &&
      (m.subPathExpr ?? '') === '';
    if (!identity)
      out.push(
        forbidden(
          at,
          `the process:// runtime runs host processes in the host's file system without ` +
            `a mount namespace, so volume "${m.name}" cannot be mounted at ${m.mountPath} ` +
            `(only a hostPath volume mounted at its own path, without subPath, is what a ` +
            `host process sees)`,
        ),
      );
  });
}

/**
 * The reference's validateMountPropagation and the subPath/subPathExpr exclusion (its field paths:
 * volumeMounts without an index but for the exclusion).
 */
export function mountProblems(c: Container, path: string, out: string[]): void {
  (c.volumeMounts ?? []).forEach((m, j) => {
    const at = `${path}.volumeMounts[${j}]`;
    const p = m.mountPropagation;
    if (p !== undefined) {
      if (!['Bidirectional', 'HostToContainer', 'None'].includes(p))
        out.push(
          `${path}.volumeMounts.mountPropagation: Unsupported value: "${p}": supported ` +
            `values: "Bidirectional", "HostToContainer", "None"`,
        );
      else if (p === 'Bidirectional' && c.securityContext?.privileged !== true)
        out.push(
          forbidden(
            `${path}.volumeMounts.mountPropagation`,
            'Bidirectional mount propagation is available only to privileged containers',
          ),
        );
    }
    if ((m.subPath ?? '') !== '' && (m.subPathExpr ?? '') !== '')
      out.push(
        invalid(
          `${at}.subPathExpr`,
          m.subPathExpr,
          'subPathExpr and subPath are mutually exclusive',
        ),
      );
    if ((m.subPathExpr ?? '') !== '')
      localPath(`${path}.volumeMounts.subPathExpr`, m.subPathExpr ?? '', out);
  });
}
