// csrapproving: approves node client CSRs (platlet client signer, system:nodes, CN system:node:*)
// when the requesting user may create certificatesigningrequests/selfnodeclient (own node) or
// /nodeclient, asking the same authorizer chain as requests. Driven by store changes.

import type { Authorizer } from '../interfaces.js';
import type { UserInfo } from '../../common/auth/user.js';
import type { Clock } from '../../common/util/clock.js';
import type { Logger } from '../../common/log/types.js';
import {
  approvalCheckNeeded,
  approvalCondition,
  isNodeClientCsr,
  isSelfNodeClient,
} from '../csr/approver.js';
import type { Registry } from '../registry/registry.js';
import type { Obj, ResourceDef } from '../registry/types.js';
import { WorkQueue } from './queue.js';
import { watchKeys } from './watch-keys.js';
import { getUnlessGone } from './read-key.js';
import { REFERENCE_NAMES } from '../../common/names.js';
import { recordOf, listOf } from '../../common/util/json-shape.js';

export const CONTROLLER_USER: UserInfo = {
  username: `system:serviceaccount:${REFERENCE_NAMES.namespaces.system}:certificate-controller`,
  groups: ['system:serviceaccounts', 'system:masters'],
};

export interface CsrControllerOptions {
  readonly registry: Registry;
  readonly def: ResourceDef;
  readonly authorizer: Authorizer;
  readonly clock: Clock;
  readonly logger: Logger;
}

function requester(csr: Obj): UserInfo {
  const spec = recordOf(csr['spec']);
  const extraRaw = recordOf(spec['extra']);
  const extra: Record<string, string[]> = {};
  for (const [k, v] of Object.entries(extraRaw)) if (Array.isArray(v)) extra[k] = v.map(String);
  return {
    username: typeof spec['username'] === 'string' ? spec['username'] : '',
    ...(typeof spec['uid'] === 'string' ? { uid: spec['uid'] } : {}),
    groups: Array.isArray(spec['groups']) ? spec['groups'].map(String) : [],
    extra,
  };
}

/** Whether the CSR's requester may create CSRs of this subresource (nodeclient, selfnodeclient). */
async function mayCreate(o: CsrControllerOptions, csr: Obj, subresource: string): Promise<boolean> {
  const d = await o.authorizer.authorize({
    user: requester(csr),
    verb: 'create',
    isResourceRequest: true,
    path: '',
    apiGroup: o.def.group,
    apiVersion: 'v1',
    resource: 'certificatesigningrequests',
    subresource,
    namespace: '',
    name: '',
  });
  return d.decision === 'allow';
}

/** Approves one node client CSR when its requester may create it; else leaves it for a human. */
async function approveOne(o: CsrControllerOptions, name: string): Promise<void> {
  const names = o.registry.names;
  const csr = await getUnlessGone(o.registry, o.def, name);
  if (csr === undefined) return; // deleted meanwhile; a storage error is thrown and retried
  if (!approvalCheckNeeded(csr) || !isNodeClientCsr(csr, names)) return;
  // As the reference's recognizers: the node renewing its own certificate first, then bootstrap.
  const self = isSelfNodeClient(csr, names) && (await mayCreate(o, csr, 'selfnodeclient'));
  const allowed = self || (await mayCreate(o, csr, 'nodeclient'));
  if (!allowed) {
    o.logger.info(
      { csr: name },
      'csrapproving: requester may not create node client certificates; leaving the CSR ' +
        'for a human approver',
    );
    return;
  }
  await o.registry.update(
    o.def,
    '',
    name,
    {
      user: CONTROLLER_USER,
      dryRun: false,
      fieldManager: 'csrapproving',
      subresource: 'approval',
    },
    (cur) => {
      if (cur === undefined || !approvalCheckNeeded(cur)) return cur ?? csr;
      const status = { ...recordOf(cur['status']) };
      const conds = [...listOf(status['conditions'])];
      conds.push(approvalCondition(o.clock.now(), names, self));
      status['conditions'] = conds;
      return { ...cur, status };
    },
  );
  o.logger.info({ csr: name }, 'csrapproving: approved node client CSR');
}

export async function runCsrApproving(o: CsrControllerOptions, signal: AbortSignal): Promise<void> {
  const queue = new WorkQueue({
    name: 'csrapproving',
    clock: o.clock,
    logger: o.logger,
    process: (name) => approveOne(o, name),
  });
  const stop = watchKeys(o.registry, o.def, (name) => queue.add(name));
  try {
    await queue.run(signal);
  } finally {
    stop();
  }
}
