// emptyDir volumes as the reference makes them: a directory of mode 0777 (chmod'ed past the
// umask); medium Memory a tmpfs mounted there, its size the smallest of the node's allocatable
// memory, the pod's memory limit (when every container has one) and sizeLimit; HugePages media
// are refused (this agent manages no huge pages).
import { chmod, lstat, mkdir } from 'node:fs/promises';
import { parseQuantity } from '../../common/util/values/quantity.js';
import type { Pod } from '../pod/types.js';
import type { Mounter } from './mounts.js';

const EMPTY_DIR_MODE = 0o777;

export async function setupDir(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true, mode: EMPTY_DIR_MODE });
  const st = await lstat(dir);
  if ((st.mode & 0o777) !== EMPTY_DIR_MODE) await chmod(dir, EMPTY_DIR_MODE);
}

function memoryLimit(c: Pod['spec']['containers'][number]): number | undefined {
  const l = c.resources?.limits?.['memory'];
  return l === undefined ? undefined : parseQuantity(l).value;
}

/** The pod's memory limit as its cgroup gets it: undefined unless every app container has one. */
export function podMemoryLimit(pod: Pod): number | undefined {
  const apps = pod.spec.containers.map(memoryLimit);
  if (apps.some((l) => l === undefined)) return undefined;
  const sum = apps.reduce<number>((a, b) => a + (b ?? 0), 0);
  const inits = (pod.spec.initContainers ?? []).map((c) => memoryLimit(c) ?? 0);
  return Math.max(sum, ...inits);
}

/** The reference's calculateEmptyDirMemorySize. */
export function tmpfsSize(
  pod: Pod,
  sizeLimit: string | undefined,
  allocatableMemory: number | undefined,
): number | undefined {
  let size = allocatableMemory;
  const podLimit = podMemoryLimit(pod);
  if (podLimit !== undefined && podLimit > 0 && (size === undefined || podLimit <= size))
    size = podLimit;
  const v = sizeLimit === undefined ? undefined : parseQuantity(sizeLimit).value;
  if (v !== undefined && v > 0 && (size === undefined || v <= size)) size = v;
  return size === undefined ? undefined : Math.ceil(size);
}

/** The directory, with a tmpfs on it for memory-backed volumes (kept when already mounted). */
export async function setupVolumeDir(
  dir: string,
  memory: { sizeBytes: number | undefined } | undefined,
  mounter: Mounter,
): Promise<void> {
  await setupDir(dir);
  if (memory === undefined) return;
  const m = await mounter.isMountPoint(dir);
  if (m?.fsType === 'tmpfs') return;
  await mounter.mountTmpfs(dir, memory.sizeBytes);
}
