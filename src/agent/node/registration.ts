// Node registration: create the Node object, retrying with the reference's back-off (100 ms
// doubling to 7 s) until it is created or found. An existing node (a restart) is reconciled: the
// default labels and our taints are patched onto it when they differ.

import type { Names } from '../../common/names.js';
import type { Logger } from '../../common/log/types.js';
import type { Clock } from '../../common/util/clock.js';
import { BackoffSequence } from '../../common/util/backoff.js';
import { isAlreadyExists, userMessage } from '../../common/util/errors.js';
import type { Node, NodeApi, Taint } from './types.js';
import type { ApiNode, ApiTaint } from './api-node.js';

export const REGISTRATION_INITIAL_BACKOFF_MS = 100;
export const REGISTRATION_MAX_BACKOFF_MS = 7_000;

/** The taint an external cloud provider removes once it has initialized the node. */
export function uninitializedTaint(names: Names): Taint {
  return { key: names.taints.uninitialized, value: 'true', effect: 'NoSchedule' };
}

export interface RegistrationOptions {
  api: NodeApi;
  clock: Clock;
  logger: Logger;
  /** The node to create (labels, taints, providerID and initial status filled in). */
  node: () => Promise<Node>;
  /** Labels the agent owns on an existing node (the defaults). */
  ownedLabels: Readonly<Record<string, string>>;
  /**
   * The controller-managed attach/detach annotation's key: the agent owns it on an existing node,
   * setting it as the new node has it or removing it (the reference's reconcileCMADAnnotation).
   */
  attachDetachAnnotation?: string;
  /** Other annotations the agent owns on an existing node, reconciled the same way. */
  ownedAnnotations?: readonly string[];
}

function sameTaint(a: ApiTaint, b: ApiTaint): boolean {
  return a.key === b.key && a.effect === b.effect;
}

/**
 * The merge-patch values of owned annotations where the existing node's differ from the new
 * node's: the new value, or null to remove it; undefined when they all agree.
 */
export function annotationPatch(
  existing: ApiNode,
  wanted: Node,
  keys: readonly (string | undefined)[],
): Record<string, string | null> | undefined {
  const out: Record<string, string | null> = {};
  for (const key of keys) {
    if (key === undefined) continue;
    const want = wanted.metadata.annotations?.[key];
    if (existing.metadata.annotations?.[key] !== want) out[key] = want ?? null;
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

/** What to patch onto an existing node so it carries our labels and taints; undefined: nothing. */
export function reconcilePatch(
  existing: ApiNode,
  wanted: Node,
  ownedLabels: Readonly<Record<string, string>>,
  ownedAnnotations: readonly (string | undefined)[] = [],
): Record<string, unknown> | undefined {
  const labels: Record<string, string> = {};
  for (const [k, v] of Object.entries(ownedLabels))
    if (existing.metadata.labels?.[k] !== v) labels[k] = v;
  const have = existing.spec?.taints ?? [];
  const missing = (wanted.spec?.taints ?? []).filter((t) => !have.some((h) => sameTaint(h, t)));
  const patch: Record<string, unknown> = {};
  const annotations = annotationPatch(existing, wanted, ownedAnnotations);
  if (Object.keys(labels).length > 0 || annotations !== undefined) {
    patch.metadata = {
      ...(Object.keys(labels).length > 0 ? { labels } : {}),
      ...(annotations !== undefined ? { annotations } : {}),
    };
  }
  const spec: { taints?: ApiTaint[]; providerID?: string } = {};
  if (missing.length > 0) spec.taints = [...have, ...missing];
  if (wanted.spec?.providerID !== undefined && existing.spec?.providerID === undefined)
    spec.providerID = wanted.spec.providerID;
  if (Object.keys(spec).length > 0) patch.spec = spec;
  return Object.keys(patch).length > 0 ? patch : undefined;
}

/** The reference's words when the attach/detach setting of an existing node changes. */
function logAttachDetachChange(o: RegistrationOptions, existing: ApiNode, wanted: Node): void {
  const change = annotationPatch(existing, wanted, [o.attachDetachAnnotation]);
  if (change === undefined) return;
  const on = Object.values(change)[0] !== null;
  o.logger.info(
    { node: wanted.metadata.name },
    `Controller attach-detach setting changed to ${on ? 'true' : 'false'}; updating existing Node`,
  );
}

/** Registers the node; resolves with the node as the API server has it. Rejects only on abort. */
export async function registerNode(o: RegistrationOptions, signal: AbortSignal): Promise<ApiNode> {
  const backoff = new BackoffSequence({
    clock: o.clock,
    policy: { initialMs: REGISTRATION_INITIAL_BACKOFF_MS, maxMs: REGISTRATION_MAX_BACKOFF_MS },
  });
  for (;;) {
    signal.throwIfAborted();
    const node = await o.node();
    try {
      const created = await o.api.create(node, signal);
      o.logger.info({ node: node.metadata.name }, 'successfully registered node');
      return created;
    } catch (err) {
      if (isAlreadyExists(err)) {
        try {
          const existing = await o.api.get(node.metadata.name, signal);
          const patch = reconcilePatch(existing, node, o.ownedLabels, [
            o.attachDetachAnnotation,
            ...(o.ownedAnnotations ?? []),
          ]);
          logAttachDetachChange(o, existing, node);
          const result =
            patch === undefined ? existing : await o.api.patch(node.metadata.name, patch, signal);
          o.logger.info(
            { node: node.metadata.name },
            'node was already registered; reconciled its labels and taints',
          );
          return result;
        } catch (err2) {
          o.logger.warn(
            { node: node.metadata.name, err: userMessage(err2), retryInMs: backoff.peekMs() },
            'cannot reconcile the existing node; retrying',
          );
        }
      } else {
        o.logger.warn(
          { node: node.metadata.name, err: userMessage(err), retryInMs: backoff.peekMs() },
          'unable to register node with the API server; retrying (is the API server ' +
            'reachable and the agent allowed to create nodes?)',
        );
      }
    }
    await backoff.sleep(signal);
  }
}

/**
 * The new node's annotations from --enable-controller-attach-detach, as the reference's
 * initialNode: the controller-managed attach/detach annotation "true", or none (and the line
 * saying the agent would attach and detach volumes itself).
 */
export function attachDetachAnnotations(
  enabled: boolean,
  names: Names,
  logger: Logger,
): { annotations?: Record<string, string> } {
  if (!enabled) {
    logger.info(
      {},
      'Controller attach/detach is disabled for this node; Kubelet will attach and detach volumes',
    );
    return {};
  }
  logger.debug({}, 'Setting node annotation to enable volume controller attach/detach');
  return { annotations: { [names.annotations.controllerManagedAttachDetach]: 'true' } };
}
