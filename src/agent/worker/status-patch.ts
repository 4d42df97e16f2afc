// The strategic merge patch of a pod's status, as the reference's status manager sends it: the
// conditions merge by type, so a condition another party owns (a readiness gate's, set by its
// controller) is sent only when this agent changed it, and a write of ours never puts back a stale
// copy of it; a condition without a reason or message removes the server's (a merge by type would
// keep the ContainersNotReady of before on a Ready pod); podIPs and hostIPs (merged by ip on the
// server) are replaced whole.
import { replacingList } from '../client/replace-list.js';
import { canonicalJson } from '../pod/hash.js';
import type { Pod, PodStatus } from '../pod/types.js';
import { foreignConditions } from './readiness-gates.js';

export function statusPatch(pod: Pod, status: PodStatus): { status: Record<string, unknown> } {
  const unchanged = new Set(foreignConditions(pod).map((c) => canonicalJson(c)));
  const { conditions, podIPs, hostIPs, ...rest } = status;
  return {
    status: {
      ...rest,
      conditions: conditions
        .filter((c) => !unchanged.has(canonicalJson(c)))
        .map((c) => ({ ...c, reason: c.reason ?? null, message: c.message ?? null })),
      ...(podIPs !== undefined ? { podIPs: replacingList(podIPs) } : {}),
      ...(hostIPs !== undefined ? { hostIPs: replacingList(hostIPs) } : {}),
    },
  };
}
