// The reference's serviceaccount controller (kube-controller-manager): every active namespace has
// the `default` ServiceAccount; made again when deleted.

import type { UserInfo } from '../../common/auth/user.js';
import { REFERENCE_NAMES } from '../../common/names.js';
import type { Clock } from '../../common/util/clock.js';
import type { Logger } from '../../common/log/types.js';
import { DEFAULT_SERVICE_ACCOUNT_NAME } from '../admission/service-account.js';
import type { Registry } from '../registry/registry.js';
import type { ResourceDef } from '../registry/types.js';
import { StatusError } from '../status.js';
import { runPerNamespace } from './per-namespace.js';

const CONTROLLER_USER: UserInfo = {
  username: `system:serviceaccount:${REFERENCE_NAMES.namespaces.system}:service-account-controller`,
  groups: ['system:serviceaccounts', 'system:masters'],
};

export interface ServiceAccountControllerOptions {
  readonly registry: Registry;
  readonly namespaceDef: ResourceDef;
  readonly serviceAccountDef: ResourceDef;
  readonly clock: Clock;
  readonly logger: Logger;
}

export function runServiceAccountController(
  o: ServiceAccountControllerOptions,
  signal: AbortSignal,
): Promise<void> {
  const { registry } = o;
  const ensure = async (ns: string): Promise<void> => {
    const key = registry.key(o.serviceAccountDef, ns, DEFAULT_SERVICE_ACCOUNT_NAME);
    if (registry.store.getRaw(key) !== undefined) return;
    try {
      await registry.create(
        o.serviceAccountDef,
        ns,
        { metadata: { name: DEFAULT_SERVICE_ACCOUNT_NAME } },
        {
          user: CONTROLLER_USER,
          dryRun: false,
          fieldManager: 'kube-controller-manager',
          subresource: '',
        },
      );
    } catch (err) {
      // Made meanwhile, or the namespace went: nothing left to do.
      if (err instanceof StatusError && (err.status === 409 || err.status === 404)) return;
      throw err;
    }
  };
  return runPerNamespace(
    {
      name: 'serviceaccount',
      registry,
      namespaceDef: o.namespaceDef,
      def: o.serviceAccountDef,
      objectName: DEFAULT_SERVICE_ACCOUNT_NAME,
      ensure,
      clock: o.clock,
      logger: o.logger,
    },
    signal,
  );
}
