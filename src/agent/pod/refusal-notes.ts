// Why a source could not decode a pod it still hands on: the API server's pod is this node's to
// report on even when the agent cannot read its spec, so the source passes a stand-in (its
// metadata, no containers) and notes the problems here; admission refuses the stand-in with them,
// and the pod is reported Failed, never left Pending. Keyed by the pod object, which the merger
// passes through unchanged.
import type { Pod } from './types.js';

export class PodRefusals {
  private readonly notes = new WeakMap<Pod, readonly string[]>();

  set(pod: Pod, problems: readonly string[]): void {
    this.notes.set(pod, problems);
  }

  get(pod: Pod): readonly string[] | undefined {
    return this.notes.get(pod);
  }
}
