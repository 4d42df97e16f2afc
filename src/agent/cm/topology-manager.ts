// The topology manager (--topology-manager-policy, -scope, -policy-options): at admission it asks
// the CPU and memory managers for NUMA hints per container (or per pod), merges them under the
// policy, rejects the pod with TopologyAffinityError when the policy cannot align it, and has each
// manager allocate along the chosen hint (a failed allocation rejects the pod with its reason).
import type { Logger } from '../../common/log/types.js';
import type { Container, Pod } from '../pod/types.js';
import {
  admitResultOf,
  TOPOLOGY_AFFINITY_ERROR,
  TOPOLOGY_AFFINITY_MESSAGE,
  type ManagerAdmitResult,
} from './admission-error.js';
import { mergeHints, type ProviderHints, type TopologyPolicyName } from './hint-merge.js';
import { maskText, type TopologyHint } from './numa-mask.js';
import { allContainers } from './requests.js';

/** What the topology manager needs of the CPU and memory managers. */
export interface HintProvider {
  containerHints(pod: Pod, c: Container): ProviderHints;
  podHints(pod: Pod): ProviderHints;
  allocate(pod: Pod, c: Container, hint: TopologyHint): void;
  removePod(podUid: string): void;
}

export interface TopologyManagerOptions {
  policy: TopologyPolicyName;
  scope: 'container' | 'pod';
  preferClosestNuma: boolean;
  numaNodes: readonly number[];
  distance: (a: number, b: number) => number;
  providers: readonly HintProvider[];
  logger: Logger;
}

const NO_HINT: TopologyHint = { affinity: null, preferred: false };

export class TopologyManager {
  private readonly affinity = new Map<string, Map<string, TopologyHint>>();

  constructor(private readonly o: TopologyManagerOptions) {}

  /** The hint the pod's container was admitted with (GetAffinity). */
  affinityOf(podUid: string, name: string): TopologyHint {
    return this.affinity.get(podUid)?.get(name) ?? NO_HINT;
  }

  private merge(providers: ProviderHints[]): { hint: TopologyHint; admit: boolean } {
    return mergeHints(
      {
        policy: this.o.policy,
        numaNodes: this.o.numaNodes,
        preferClosestNuma: this.o.preferClosestNuma,
        distance: this.o.distance,
      },
      providers,
    );
  }

  /** Admit: allocates on success; on refusal, everything allocated for the pod is given back. */
  admit(pod: Pod): ManagerAdmitResult {
    const r = this.admitAndAllocate(pod);
    if (!r.admit) this.removePod(pod.metadata.uid);
    return r;
  }

  private admitAndAllocate(pod: Pod): ManagerAdmitResult {
    const uid = pod.metadata.uid;
    const row = new Map<string, TopologyHint>();
    this.affinity.set(uid, row);
    let podHint: TopologyHint | undefined;
    if (this.o.policy !== 'none' && this.o.scope === 'pod') {
      const m = this.merge(this.o.providers.map((p) => p.podHints(pod)));
      this.o.logger.info(
        {
          pod: `${pod.metadata.namespace}/${pod.metadata.name}`,
          affinity: maskText(m.hint.affinity),
          preferred: m.hint.preferred,
        },
        'best topology hint for the pod',
      );
      if (!m.admit)
        return {
          admit: false,
          reason: TOPOLOGY_AFFINITY_ERROR,
          message: TOPOLOGY_AFFINITY_MESSAGE,
        };
      podHint = m.hint;
    }
    for (const c of allContainers(pod)) {
      let hint = podHint ?? NO_HINT;
      if (this.o.policy !== 'none' && this.o.scope === 'container') {
        const m = this.merge(this.o.providers.map((p) => p.containerHints(pod, c)));
        this.o.logger.info(
          {
            pod: `${pod.metadata.namespace}/${pod.metadata.name}`,
            container: c.name,
            affinity: maskText(m.hint.affinity),
            preferred: m.hint.preferred,
          },
          'best topology hint',
        );
        if (!m.admit)
          return {
            admit: false,
            reason: TOPOLOGY_AFFINITY_ERROR,
            message: TOPOLOGY_AFFINITY_MESSAGE,
          };
        hint = m.hint;
      }
      row.set(c.name, hint);
      try {
        for (const p of this.o.providers) p.allocate(pod, c, hint);
      } catch (err) {
        return admitResultOf(err);
      }
    }
    return { admit: true };
  }

  removePod(podUid: string): void {
    this.affinity.delete(podUid);
    for (const p of this.o.providers) p.removePod(podUid);
  }

  removeStale(active: ReadonlySet<string>): void {
    for (const uid of [...this.affinity.keys()]) if (!active.has(uid)) this.affinity.delete(uid);
  }
}
