// The controllers --controllers names, started on one stop signal: csrapproving, csrsigning,
// tokencleaner, nodelifecycle, and those pods need (start-pods.ts: serviceaccount,
// root-ca-cert-publisher, scheduler, and the `kubernetes` service always). A controller that
// stops on its own says so in the log.

import type { Names } from '../../common/names.js';
import type { Logger } from '../../common/log/types.js';
import type { Clock } from '../../common/util/clock.js';
import type { CertAndKey } from '../csr/ca.js';
import type { Authorizer } from '../interfaces.js';
import type { Registry } from '../registry/registry.js';
import type { ServedDefs } from '../registry/resources/served.js';
import { runTokenCleaner } from '../bootstrap-token/cleaner.js';
import { runCsrApproving } from './csr-approving.js';
import { runCsrSigning } from './csr-signing.js';
import { NodeLifecycleController } from './node-lifecycle.js';
import { startPodControllers, type PodControllerParts } from './start-pods.js';

/** What the controllers use of the built server (start/build.ts's ApiServerParts). */
export interface ControllerParts {
  readonly registry: Registry;
  readonly defs: ServedDefs;
  readonly authorizer: Authorizer;
  readonly pods: PodControllerParts;
}

export interface ControllersOptions {
  readonly server: ControllerParts;
  /** The controllers to run (flags.controllers, already resolved). */
  readonly enabled: readonly string[];
  /** The cluster CA csrsigning signs with. */
  readonly ca: CertAndKey;
  readonly clusterSigningDurationMs: number;
  readonly nodeMonitorGracePeriodMs: number;
  /** The CA bundle root-ca-cert-publisher publishes as kube-root-ca.crt. */
  readonly rootCaPem: string;
  /** The port the `kubernetes` service's endpoints name. */
  readonly securePort: number;
  readonly names: Names;
  readonly clock: Clock;
  readonly logger: Logger;
}

/** Starts each enabled controller; the promises settle once `signal` stops them. */
export function startControllers(o: ControllersOptions, signal: AbortSignal): Promise<void>[] {
  const { server, names, clock, logger } = o;
  const loops: Promise<void>[] = [];
  const onLoopError =
    (name: string) =>
    (err: unknown): void =>
      logger.error({ err }, `${name} controller stopped unexpectedly`);
  const log = (component: string): Logger => logger.child({ component });
  if (o.enabled.includes('csrapproving')) {
    loops.push(
      runCsrApproving(
        {
          registry: server.registry,
          def: server.defs.csr,
          authorizer: server.authorizer,
          clock,
          logger: log('csrapproving'),
        },
        signal,
      ).catch(onLoopError('csrapproving')),
    );
  }
  if (o.enabled.includes('csrsigning')) {
    const s = {
      registry: server.registry,
      def: server.defs.csr,
      ca: o.ca,
      maxDurationSeconds: o.clusterSigningDurationMs / 1000,
      clock,
      logger: log('csrsigning'),
    };
    loops.push(runCsrSigning(s, signal).catch(onLoopError('csrsigning')));
  }
  if (o.enabled.includes('tokencleaner')) {
    const t = {
      registry: server.registry,
      secretDef: server.defs.secret,
      platformDomain: names.labelDomain,
      namespace: names.namespaces.system,
      clock,
      logger: log('tokencleaner'),
    };
    loops.push(runTokenCleaner(t, signal).catch(onLoopError('tokencleaner')));
  }
  if (o.enabled.includes('nodelifecycle')) {
    const lifecycle = new NodeLifecycleController({
      registry: server.registry,
      nodeDef: server.defs.node,
      leaseDef: server.defs.lease,
      names,
      gracePeriodMs: o.nodeMonitorGracePeriodMs,
      monitorPeriodMs: Math.max(100, Math.min(5000, o.nodeMonitorGracePeriodMs / 4)),
      clock,
      logger: log('nodelifecycle'),
    });
    loops.push(lifecycle.run(signal).catch(onLoopError('nodelifecycle')));
  }
  loops.push(...startPodControllers({ ...o, onLoopError }, signal));
  return loops;
}
