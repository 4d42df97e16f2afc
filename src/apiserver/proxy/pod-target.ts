// A pod's container and node as the reference's pod subresources resolve them (validateContainer,
// streamLocation): an empty container name means the only container; a name must be one of the
// pod's init, app or ephemeral containers; a pod without a node has no location.

import { badRequest } from '../status.js';
import { recordOf } from '../../common/util/json-shape.js';

function names(spec: Record<string, unknown>, field: string): string[] {
  const list = spec[field];
  if (!Array.isArray(list)) return [];
  return list.flatMap((c: unknown) => {
    const n = recordOf(c)['name'];
    return typeof n === 'string' ? [n] : [];
  });
}

function specOf(pod: Record<string, unknown>): Record<string, unknown> {
  return recordOf(pod['spec']);
}

/** The container to use, or the reference's 400. */
export function resolveContainer(
  pod: Record<string, unknown>,
  podName: string,
  container: string,
): string {
  const spec = specOf(pod);
  const app = names(spec, 'containers');
  const all = [...names(spec, 'initContainers'), ...app, ...names(spec, 'ephemeralContainers')];
  if (container === '') {
    if (app.length === 1 && app[0] !== undefined) return app[0];
    if (app.length === 0) throw badRequest(`a container name must be specified for pod ${podName}`);
    throw badRequest(
      `a container name must be specified for pod ${podName}, choose one of: [${all.join(' ')}]`,
    );
  }
  if (!all.includes(container))
    throw badRequest(`container ${container} is not valid for pod ${podName}`);
  return container;
}

export function nodeNameOf(pod: Record<string, unknown>): string {
  const n = specOf(pod)['nodeName'];
  return typeof n === 'string' ? n : '';
}
