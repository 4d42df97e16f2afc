// RBAC as one part of plat-apiserver: the four resources, the in-memory copy of roles and
// bindings, the authorizer, the escalation check, the bootstrap policy and the aggregation
// controller. The server builds it once, before its registry, and starts it before listening.

import type { Logger } from '../../../common/log/types.js';
import type { AdmissionPlugin, Authorizer } from '../../interfaces.js';
import type { Registry } from '../../registry/registry.js';
import type { ResourceDef } from '../../registry/types.js';
import type { Store } from '../../storage/store.js';
import { ClusterRoleAggregator } from './aggregation.js';
import { RbacAuthorizer } from './authorizer.js';
import { reconcileBootstrapPolicy } from './bootstrap.js';
import { RbacCache } from './cache.js';
import { RbacEscalationCheck } from './escalation.js';
import { rbacNames, type RbacNames } from './names.js';
import { rbacDefs, type RbacDefs } from './resources.js';
import type { Names } from '../../../common/names.js';

export { rbacNames, type RbacNames };

export class Rbac {
  readonly names: RbacNames;
  readonly defs: RbacDefs;
  readonly cache: RbacCache;
  readonly authorizer: RbacAuthorizer;
  private readonly logger: Logger;

  constructor(o: { names: Names; store: Store; logger: Logger }) {
    this.names = rbacNames(o.names);
    this.defs = rbacDefs(o.names);
    this.logger = o.logger.child({ component: 'rbac' });
    this.cache = new RbacCache({ store: o.store, defs: this.defs, logger: this.logger });
    this.authorizer = new RbacAuthorizer({ cache: this.cache, rbacGroup: this.names.group });
  }

  get resources(): readonly ResourceDef[] {
    return [
      this.defs.role,
      this.defs.clusterRole,
      this.defs.roleBinding,
      this.defs.clusterRoleBinding,
    ];
  }

  /** The escalation check, asking `authorizer` (the server's chain) about escalate and bind. */
  escalationCheck(authorizer: Authorizer): AdmissionPlugin {
    return new RbacEscalationCheck({
      rbacGroup: this.names.group,
      rbac: this.authorizer,
      authorizer,
    });
  }

  /**
   * Loads roles and bindings, reconciles the bootstrap policy and starts aggregation (until
   * `signal`).
   */
  async start(registry: Registry, signal: AbortSignal): Promise<void> {
    await this.cache.start();
    await reconcileBootstrapPolicy({
      registry,
      defs: this.defs,
      names: this.names,
      logger: this.logger,
    });
    const aggregator = new ClusterRoleAggregator({
      registry,
      def: this.defs.clusterRole,
      cache: this.cache,
      logger: this.logger,
    });
    await aggregator.run(signal);
  }

  stop(): void {
    this.cache.stop();
  }
}
