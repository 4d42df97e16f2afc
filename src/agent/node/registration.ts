// Node registration: create the Node object, retrying with the reference's back-off (100 ms
// doubling to 7 s) until it is created or found. An existing node (a restart) is reconciled: the
// default labels and our taints are patched onto it when they differ.

import type { Names } from '../../common/names.js';
import type { Logger } from '../../common/log/types.js';
import type { Clock } from '../../common/util/clock.js';
import { BackoffSequence } from '../../common/util/backoff.js';
import { isAlreadyExists, userMessage } from '../../common/util/errors.js';
import type { Node, NodeApi, Taint } from './types.js';

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
}

function sameTaint(a: Taint, b: Taint): boolean {
  return a.key === b.key && a.effect === b.effect;
}

/** What to patch onto an existing node so it carries our labels and taints; undefined: nothing. */
export function reconcilePatch(existing: Node, wanted: Node, ownedLabels: Readonly<Record<string, string>>): Record<string, unknown> | undefined {
  const labels: Record<string, string> = {};
  for (const [k, v] of Object.entries(ownedLabels)) if (existing.metadata.labels?.[k] !== v) labels[k] = v;
  const have = existing.spec?.taints ?? [];
  const missing = (wanted.spec?.taints ?? []).filter((t) => !have.some((h) => sameTaint(h, t)));
  const patch: Record<string, unknown> = {};
  if (Object.keys(labels).length > 0) patch.metadata = { labels };
  if (missing.length > 0) patch.spec = { taints: [...have, ...missing] };
  if (wanted.spec?.providerID !== undefined && existing.spec?.providerID === undefined) patch.spec = { ...(patch.spec as object | undefined), providerID: wanted.spec.providerID };
  return Object.keys(patch).length > 0 ? patch : undefined;
}

/** Registers the node; resolves with the node as the API server has it. Rejects only on abort. */
export async function registerNode(o: RegistrationOptions, signal: AbortSignal): Promise<Node> {
  const backoff = new BackoffSequence({ clock: o.clock, policy: { initialMs: REGISTRATION_INITIAL_BACKOFF_MS, maxMs: REGISTRATION_MAX_BACKOFF_MS } });
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
          const patch = reconcilePatch(existing, node, o.ownedLabels);
          const result = patch === undefined ? existing : await o.api.patch(node.metadata.name, patch, signal);
          o.logger.info({ node: node.metadata.name }, 'node was already registered; reconciled its labels and taints');
          return result;
        } catch (err2) {
          o.logger.warn({ node: node.metadata.name, err: userMessage(err2), retryInMs: backoff.peekMs() }, 'cannot reconcile the existing node; retrying');
        }
      } else {
        o.logger.warn({ node: node.metadata.name, err: userMessage(err), retryInMs: backoff.peekMs() }, 'unable to register node with the API server; retrying (is the API server reachable and the agent allowed to create nodes?)');
      }
    }
    await backoff.sleep(signal);
  }
}
