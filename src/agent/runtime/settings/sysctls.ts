// Pod sysctls: the reference's safe set plus --allowed-unsafe-sysctls, the admission check with
// its reason SysctlForbidden, and the namespace each sysctl lives in
// (pkg/kubelet/sysctl: safe_sysctls.go, allowlist.go; component-helpers/node/util/sysctl).
import type { Pod } from '../../pod/types.js';

export const SYSCTL_FORBIDDEN_REASON = 'SysctlForbidden';

export type SysctlNamespace = 'ipc' | 'net';

/** The reference's safe sysctls (1.32) with the kernel version each needs. */
export const SAFE_SYSCTLS: readonly { name: string; kernel?: [number, number] }[] = [
  { name: 'kernel.shm_rmid_forced' },
  { name: 'net.ipv4.ip_local_port_range' },
  { name: 'net.ipv4.tcp_syncookies' },
  { name: 'net.ipv4.ping_group_range' },
  { name: 'net.ipv4.ip_unprivileged_port_start' },
  { name: 'net.ipv4.ip_local_reserved_ports', kernel: [3, 16] },
  { name: 'net.ipv4.tcp_keepalive_time', kernel: [4, 5] },
  { name: 'net.ipv4.tcp_fin_timeout', kernel: [4, 6] },
  { name: 'net.ipv4.tcp_keepalive_intvl', kernel: [4, 5] },
  { name: 'net.ipv4.tcp_keepalive_probes', kernel: [4, 5] },
  { name: 'net.ipv4.tcp_rmem', kernel: [4, 15] },
  { name: 'net.ipv4.tcp_wmem', kernel: [4, 15] },
];

const EXACT_NAMESPACES: Readonly<Record<string, SysctlNamespace>> = { 'kernel.sem': 'ipc' };
const PREFIX_NAMESPACES: readonly [string, SysctlNamespace][] = [
  ['kernel.shm', 'ipc'],
  ['kernel.msg', 'ipc'],
  ['fs.mqueue.', 'ipc'],
  ['net.', 'net'],
];
/** The reference's sysctl pattern (SysctlContainSlashPatternFmt), at most 253 characters. */
const SYSCTL_PATTERN = /^([a-z0-9]([-_a-z0-9]*[a-z0-9])?[./])*[a-z0-9]([-_a-z0-9]*[a-z0-9])?(\*)?$/;
export const SYSCTL_MAX_LENGTH = 253;

/** a/b.c → a.b/c: the reference accepts '/' as the separator when the first one is '/'. */
export function normalizeSysctlName(name: string): string {
  const dot = name.indexOf('.');
  const slash = name.indexOf('/');
  if (slash === -1 || (dot !== -1 && dot < slash)) return name;
  return name.replace(/[./]/g, (c) => (c === '.' ? '/' : '.'));
}

export function sysctlNamespace(name: string): SysctlNamespace | undefined {
  const exact = EXACT_NAMESPACES[name];
  if (exact !== undefined) return exact;
  return PREFIX_NAMESPACES.find(([p]) => name.startsWith(p))?.[1];
}

function kernelAtLeast(version: string, need: [number, number]): boolean {
  const [maj = 0, min = 0] = version.split(/[.-]/).map((x) => Number.parseInt(x, 10) || 0);
  return maj > need[0] || (maj === need[0] && min >= need[1]);
}

export function safeSysctls(kernelRelease: string): string[] {
  return SAFE_SYSCTLS.filter(
    (s) => s.kernel === undefined || kernelAtLeast(kernelRelease, s.kernel),
  ).map((s) => s.name);
}

export class SysctlAllowlist {
  private readonly exact = new Map<string, SysctlNamespace>();
  private readonly prefixes = new Map<string, SysctlNamespace>();

  /**
   * Throws (naming the pattern) for a pattern that is malformed or not namespaced, as the
   * reference.
   */
  constructor(patterns: readonly string[]) {
    for (const raw of patterns) {
      const s = normalizeSysctlName(raw);
      if (s.length > SYSCTL_MAX_LENGTH || !SYSCTL_PATTERN.test(s)) {
        throw new Error(
          `sysctl "${raw}" must have at most ${SYSCTL_MAX_LENGTH} characters and match ` +
            `regex ${SYSCTL_PATTERN.source}`,
        );
      }
      const prefixed = s.endsWith('*');
      const key = prefixed ? s.slice(0, -1) : s;
      const ns = sysctlNamespace(key);
      if (ns === undefined) throw new Error(`the sysctls "${key}" are not known to be namespaced`);
      (prefixed ? this.prefixes : this.exact).set(key, ns);
    }
  }

  /** undefined when allowed; otherwise the reference's error text. */
  check(name: string, hostNet: boolean, hostIPC: boolean): string | undefined {
    const s = normalizeSysctlName(name);
    const ns = this.exact.get(s) ?? [...this.prefixes].find(([p]) => s.startsWith(p))?.[1];
    if (ns === undefined) return `"${s}" not allowlisted`;
    if (ns === 'ipc' && hostIPC) return `"${s}" not allowed with host ipc enabled`;
    if (ns === 'net' && hostNet) return `"${s}" not allowed with host net enabled`;
    return undefined;
  }
}

export function podSysctls(pod: Pod): { name: string; value: string }[] {
  return (pod.spec.securityContext?.sysctls ?? []).map((s) => ({
    name: normalizeSysctlName(s.name),
    value: s.value,
  }));
}

export interface SysctlAdmitResult {
  admit: boolean;
  reason?: string;
  message?: string;
}

/** The reference's sysctl admission handler. */
export function admitSysctls(pod: Pod, allow: SysctlAllowlist): SysctlAdmitResult {
  const hostNet = pod.spec.hostNetwork === true;
  const hostIPC = pod.spec.hostIPC === true;
  for (const s of podSysctls(pod)) {
    const err = allow.check(s.name, hostNet, hostIPC);
    if (err !== undefined)
      return { admit: false, reason: SYSCTL_FORBIDDEN_REASON, message: `forbidden sysctl: ${err}` };
  }
  return { admit: true };
}
