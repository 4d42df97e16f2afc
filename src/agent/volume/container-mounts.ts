// A container's volume mounts as the runtime gets them, made as the reference's makeMounts makes
// them: subPathExpr expanded from the container's environment ($(VAR); a missing or empty value
// fails), subPath joined under the volume (absolute or `..` refused; a missing one made with the
// volume's mode; one that resolves outside the volume through a symlink refused), read-only when
// asked or when the volume is one the reference always mounts read-only (configMap, secret,
// downwardAPI, projected), and mountPropagation as the runtime's bind propagation.
import { mkdir, realpath, stat } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import type { Container, Pod, Volume, VolumeMount } from '../pod/types.js';
import type { ContainerMount } from '../runtime/types.js';

type Propagation = ContainerMount['propagation'];

/** The reference's translateMountPropagation. */
export function propagationOf(mode: string | undefined): Propagation {
  switch (mode ?? 'None') {
    case 'None':
      return 'rprivate';
    case 'HostToContainer':
      return 'rslave';
    case 'Bidirectional':
      return 'rshared';
  }
  throw new Error(`invalid MountPropagation mode: "${mode ?? ''}"`);
}

/** The reference's ExpandContainerVolumeMounts. */
export function expandSubPathExpr(expr: string, env: Readonly<Record<string, string>>): string {
  const missing = new Set<string>();
  const out = expr.replace(/\$\$|\$\(([^)]*)\)/g, (m, name: string | undefined) => {
    if (m === '$$') return '$';
    const v = name !== undefined && Object.hasOwn(env, name) ? env[name] : undefined;
    if (v === undefined || v === '') missing.add(name ?? '');
    return v ?? '';
  });
  if (missing.size > 0) throw new Error(`missing value for ${[...missing].sort().join(', ')}`);
  return out;
}

const ALWAYS_READ_ONLY = (v: Volume): boolean =>
  v.configMap !== undefined ||
  v.secret !== undefined ||
  v.downwardAPI !== undefined ||
  v.projected !== undefined;

async function subPathHostPath(
  volumePath: string,
  subPath: string,
  m: VolumeMount,
  c: Container,
): Promise<string> {
  if (subPath.startsWith('/'))
    throw new Error(`error SubPath \`${subPath}\` must not be an absolute path`);
  if (subPath.split('/').includes('..'))
    throw new Error(`unable to provision SubPath \`${subPath}\`: must not contain '..'`);
  const target = join(volumePath, subPath);
  const exists = await stat(target).then(
    () => true,
    () => false,
  );
  if (!exists) {
    const mode = (await stat(volumePath)).mode & 0o7777;
    await mkdir(target, { recursive: true, mode }).catch(() => {
      throw new Error(
        `failed to create subPath directory for volumeMount "${m.name}" of container "${c.name}"`,
      );
    });
  }
  const [root, resolved] = await Promise.all([realpath(volumePath), realpath(target)]);
  const rel = relative(root, resolved);
  if (rel.startsWith(`..${sep}`) || rel === '..' || rel.startsWith(sep))
    throw new Error(
      `failed to prepare subPath for volumeMount "${m.name}" of container "${c.name}"`,
    );
  return resolved;
}

export async function containerMounts(
  pod: Pod,
  c: Container,
  env: Readonly<Record<string, string>>,
  volumePath: (v: Volume) => string,
): Promise<ContainerMount[]> {
  const out: ContainerMount[] = [];
  for (const m of c.volumeMounts ?? []) {
    const v = (pod.spec.volumes ?? []).find((x) => x.name === m.name);
    if (v === undefined)
      throw new Error(`cannot find volume "${m.name}" to mount into container "${c.name}"`);
    let hostPath = volumePath(v);
    const subPath =
      m.subPathExpr !== undefined && m.subPathExpr !== ''
        ? expandSubPathExpr(m.subPathExpr, env)
        : (m.subPath ?? '');
    if (subPath !== '') hostPath = await subPathHostPath(hostPath, subPath, m, c);
    out.push({
      name: m.name,
      hostPath,
      containerPath: m.mountPath,
      readOnly: m.readOnly === true || ALWAYS_READ_ONLY(v),
      propagation: propagationOf(m.mountPropagation),
    });
  }
  return out;
}
