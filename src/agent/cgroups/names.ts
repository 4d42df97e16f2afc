// Cgroup names as the reference's container manager spells them (pkg/kubelet/cm
// cgroup_manager_linux.go): a name is a list of components, written for the cgroupfs driver as a
// path (`/kubepods/burstable/pod<uid>`) and for the systemd driver as nested slices
// (`/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod<uid_with_underscores>.slice`).
import type { Names } from '../../common/names.js';
import type { QosClass } from '../runtime/settings/qos.js';

export type CgroupDriver = 'cgroupfs' | 'systemd';
export type CgroupName = readonly string[];

const SYSTEMD_SUFFIX = '.slice';

/**
 * The top-level cgroup of all pods: `kubepods` under the reference's names, `platpods` under ours.
 */
export function podsCgroupComponent(names: Pick<Names, 'product'>): string {
  return `${names.product}pods`;
}

export const BURSTABLE = 'burstable';
export const BESTEFFORT = 'besteffort';
export const POD_PREFIX = 'pod';

/** ParseCgroupfsToCgroupName: `/a/b` → [a, b]; `/` → []. */
export function parseCgroupfs(name: string): CgroupName {
  return name.split('/').filter((p) => p !== '');
}

/** ParseSystemdToCgroupName: the last slice's name, split at `-`, `_` back to `-`. */
export function parseSystemd(name: string): CgroupName {
  const base =
    name
      .split('/')
      .filter((p) => p !== '')
      .pop() ?? '';
  const bare = base.endsWith(SYSTEMD_SUFFIX) ? base.slice(0, -SYSTEMD_SUFFIX.length) : base;
  if (bare === '') return [];
  return bare.split('-').map((p) => p.replaceAll('_', '-'));
}

export function toCgroupfs(name: CgroupName): string {
  return `/${name.join('/')}`;
}

/** ToSystemd with systemd's ExpandSlice: every prefix of the name is a parent slice. */
export function toSystemd(name: CgroupName): string {
  if (name.length === 0 || (name.length === 1 && name[0] === '')) return '/';
  const parts = name.map((p) => p.replaceAll('-', '_'));
  let path = '';
  for (let i = 1; i <= parts.length; i += 1)
    path += `/${parts.slice(0, i).join('-')}${SYSTEMD_SUFFIX}`;
  return path;
}

/** The driver's spelling of a name (the reference's cgroupManager.Name). */
export function driverName(name: CgroupName, driver: CgroupDriver): string {
  return driver === 'systemd' ? toSystemd(name) : toCgroupfs(name);
}

/**
 * The driver's parse of a name given on the command line (the reference's
 * cgroupManager.CgroupName).
 */
export function parseDriverName(name: string, driver: CgroupDriver): CgroupName {
  return driver === 'systemd' ? parseSystemd(name) : parseCgroupfs(name);
}

/**
 * The cgroup of a QoS class under the pods' top-level cgroup (Guaranteed pods sit in it directly).
 */
export function qosCgroupName(pods: CgroupName, qos: QosClass): CgroupName {
  if (qos === 'Burstable') return [...pods, BURSTABLE];
  if (qos === 'BestEffort') return [...pods, BESTEFFORT];
  return pods;
}

export function podCgroupName(pods: CgroupName, qos: QosClass, uid: string): CgroupName {
  // a UID is one path segment: a slash would nest (or climb out of) the hierarchy
  if (uid === '' || uid.includes('/') || uid.includes('\0'))
    throw new Error(`pod UID ${JSON.stringify(uid)} cannot name a cgroup`);
  return [...qosCgroupName(pods, qos), `${POD_PREFIX}${uid}`];
}

/** The pod UID of a pod cgroup's directory name, or undefined when it is not one. */
export function podUidOfDir(dir: string, driver: CgroupDriver): string | undefined {
  if (driver === 'cgroupfs')
    return dir.startsWith(POD_PREFIX) && dir.length > POD_PREFIX.length
      ? dir.slice(POD_PREFIX.length)
      : undefined;
  const last = parseSystemd(dir).at(-1);
  return last?.startsWith(POD_PREFIX) === true && last.length > POD_PREFIX.length
    ? last.slice(POD_PREFIX.length)
    : undefined;
}
