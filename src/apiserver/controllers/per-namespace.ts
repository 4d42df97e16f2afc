// A controller that keeps one object in every namespace (the reference's service account and
// root CA publisher controllers): each namespace is queued when it appears or changes, and again
// when the kept object of that name in it changes or goes; `ensure` makes it right. Terminating
// namespaces are skipped (their contents are being removed).

import type { Clock } from '../../common/util/clock.js';
import type { Logger } from '../../common/log/types.js';
import type { Registry } from '../registry/registry.js';
import { metaOf, objAt, str, type ResourceDef } from '../registry/types.js';
import { WorkQueue } from './queue.js';
import { getUnlessGone } from './read-key.js';
import { watchKeys } from './watch-keys.js';

export interface PerNamespaceOptions {
  readonly name: string;
  readonly registry: Registry;
  readonly namespaceDef: ResourceDef;
  /** The kept object's resource and name. */
  readonly def: ResourceDef;
  readonly objectName: string;
  ensure(namespace: string): Promise<void>;
  readonly clock: Clock;
  readonly logger: Logger;
}

export async function runPerNamespace(o: PerNamespaceOptions, signal: AbortSignal): Promise<void> {
  const queue = new WorkQueue({
    name: o.name,
    clock: o.clock,
    logger: o.logger,
    process: async (ns) => {
      const namespace = await getUnlessGone(o.registry, o.namespaceDef, ns);
      if (namespace === undefined) return;
      if (metaOf(namespace)['deletionTimestamp'] !== undefined) return;
      if (str(objAt(namespace, 'status')?.['phase']) === 'Terminating') return;
      await o.ensure(ns);
    },
  });
  const stopNamespaces = watchKeys(o.registry, o.namespaceDef, (ns) => queue.add(ns));
  const prefix = o.registry.prefix(o.def, '');
  const suffix = `/${o.objectName}`;
  const stopObjects = o.registry.store.subscribe((c) => {
    if (!c.key.startsWith(prefix) || !c.key.endsWith(suffix)) return;
    queue.add(c.key.slice(prefix.length, c.key.length - suffix.length));
  });
  try {
    await queue.run(signal);
  } finally {
    stopNamespaces();
    stopObjects();
  }
}
