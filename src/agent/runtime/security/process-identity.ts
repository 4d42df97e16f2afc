// Who a process:// container runs as: runAsUser and runAsGroup (the container's, else the pod's),
// fsGroup and supplementalGroups, and no_new_privs for allowPrivilegeEscalation: false, applied by
// util-linux's setpriv in front of the command (node's spawn cannot set supplementary groups, and
// the agent's wrapper must stay root to record the exit). The host is the image: a uid's primary
// group and its groups come from the host's /etc/passwd and /etc/group, and runAsNonRoot checks
// the agent's own uid when runAsUser is unset.
import { existsSync } from 'node:fs';
import { RuntimeError } from '../../../common/util/errors.js';
import type { Container, Pod } from '../../pod/types.js';
import { ContainerConfigError } from '../types.js';
import { effectiveSecurity, noNewPrivileges, podSupplementalGroups } from './effective.js';
import type { HostUsers } from './host-users.js';
import { runAsNonRootViolation } from './run-as-non-root.js';

export interface ProcessIdentity {
  uid?: number;
  gid?: number;
  /** Supplementary groups: set (possibly to none) whenever uid or gid is. */
  groups?: number[];
  noNewPrivs?: boolean;
}

export interface IdentityContext {
  /** The agent's uid and gid (process.getuid/getgid). */
  agentUid: number;
  agentGid: number;
  users: HostUsers;
}

function switchedIdentity(
  pod: Pod,
  e: { runAsUser?: number | undefined; runAsGroup?: number | undefined },
  ctx: IdentityContext,
): ProcessIdentity {
  const uid = e.runAsUser ?? ctx.agentUid;
  const entry = ctx.users.user(uid);
  const gid = e.runAsGroup ?? entry?.gid ?? (e.runAsUser === undefined ? ctx.agentGid : 0);
  // Merge (the default): the pod's groups and those the host's /etc/group gives the user;
  // Strict: the pod's only
  const strict = pod.spec.securityContext?.supplementalGroupsPolicy === 'Strict';
  const own = entry !== undefined && !strict ? ctx.users.groupsOf(entry.name) : [];
  return { uid, gid, groups: [...new Set([...podSupplementalGroups(pod), ...own])] };
}

/** Throws ContainerConfigError for runAsNonRoot, or when a non-root agent is asked to switch. */
export function processIdentity(pod: Pod, c: Container, ctx: IdentityContext): ProcessIdentity {
  const e = effectiveSecurity(pod, c);
  const violation = runAsNonRootViolation(pod, c, { uid: ctx.agentUid });
  if (violation !== undefined) throw new ContainerConfigError(violation);
  const nnp = noNewPrivileges(e) ? { noNewPrivs: true } : {};
  const switching =
    (e.runAsUser !== undefined && e.runAsUser !== ctx.agentUid) ||
    (e.runAsGroup !== undefined && e.runAsGroup !== ctx.agentGid) ||
    podSupplementalGroups(pod).length > 0;
  if (!switching) return nnp;
  if (ctx.agentUid !== 0)
    throw new ContainerConfigError(
      `runAsUser, runAsGroup, fsGroup and supplementalGroups take effect on the ` +
        `process:// runtime only when the agent runs as root (it runs as uid ` +
        `${String(ctx.agentUid)})`,
    );
  return { ...switchedIdentity(pod, e, ctx), ...nnp };
}

const SETPRIV_PATHS = ['/usr/bin/setpriv', '/bin/setpriv', '/usr/sbin/setpriv', '/sbin/setpriv'];

/** util-linux's setpriv, by absolute path (the container's PATH is the pod's to set). */
function setprivPath(candidates: readonly string[]): string {
  const found = candidates.find((p) => existsSync(p));
  if (found === undefined)
    throw new RuntimeError(
      `the process:// runtime needs setpriv (util-linux) to run a container as another ` +
        `user, with groups or without privilege escalation; not found at ` +
        candidates.join(', '),
    );
  return found;
}

/** The command behind setpriv when the identity asks for anything, else as it is. */
export function withIdentity(
  id: ProcessIdentity | undefined,
  command: readonly string[],
  setprivCandidates: readonly string[] = SETPRIV_PATHS,
): string[] {
  if (id === undefined) return [...command];
  const args: string[] = [];
  if (id.uid !== undefined) args.push(`--reuid=${String(id.uid)}`);
  if (id.gid !== undefined) args.push(`--regid=${String(id.gid)}`);
  if (id.groups !== undefined)
    args.push(id.groups.length > 0 ? `--groups=${id.groups.join(',')}` : '--clear-groups');
  if (id.noNewPrivs === true) args.push('--no-new-privs');
  if (args.length === 0) return [...command];
  return [setprivPath(setprivCandidates), ...args, '--', ...command];
}
