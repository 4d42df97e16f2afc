// What every service of the node part shares: the built agent, the clock, the log, the stop
// signal, the naming profile, the API client (when there is one), the metrics, and the lists of
// loops to wait for and stops to run when the agent stops.
import type { Names } from '../../../common/names.js';
import type { Logger } from '../../../common/log/types.js';
import type { Clock } from '../../../common/util/clock.js';
import type { RestClient } from '../../client/rest-client.js';
import type { NodeAgentConfiguration } from '../../config/schema.js';
import type { NodeAgentFlags } from '../../config/flags-type.js';
import type { RuntimeBundle } from '../../runtime/factory.js';
import type { NodeAgentMetrics } from '../../server/metrics.js';
import type { PodManager } from '../../worker/pod-manager.js';
import type { PodStatusManager } from '../../worker/status-manager.js';
import type { Pod } from '../../pod/types.js';

/** What the services need of the built agent (agent.ts's Agent satisfies it). */
export interface ServicesAgent {
  readonly nodeName: string;
  readonly names: Names;
  readonly config: NodeAgentConfiguration;
  readonly flags: NodeAgentFlags;
  readonly runtime: RuntimeBundle;
  readonly pods: PodManager;
  readonly statuses: PodStatusManager;
  /** The pod volumes: their FailedMount events and the node's allocatable reach them here. */
  readonly volumes: {
    setEvents(events: { failedMount(pod: Pod, message: string): void }): void;
    setAllocatable(allocatable: Readonly<Record<string, string>>): void;
  };
}

export interface ServicesContext {
  readonly agent: ServicesAgent;
  readonly config: NodeAgentConfiguration;
  readonly flags: NodeAgentFlags;
  readonly nodeName: string;
  readonly names: Names;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly signal: AbortSignal;
  readonly rest: RestClient | undefined;
  readonly metrics: NodeAgentMetrics;
  /** Loops that end with the signal; stop() waits for them. */
  readonly loops: Promise<unknown>[];
  /** Run by stop(), after the servers have stopped. */
  readonly stops: (() => Promise<void>)[];
  /** The certificates' remaining lifetimes for the metrics, set by the parts that hold them. */
  readonly ttl: { client?: () => number | undefined; serving?: () => number | undefined };
}
