// Maps a URL path to a resource route: `/api/v1/...` for the core group, `/apis/{group}/v1/...`
// for the others, with the optional `watch/` prefix and `namespaces/{ns}/` scope.

import type { ResourceDef } from '../registry/types.js';
import type { ResourceRoute } from './resource.js';

export class ResourceRoutes {
  private readonly byGroup = new Map<string, Map<string, ResourceDef>>();
  constructor(defs: readonly ResourceDef[]) {
    for (const d of defs) {
      const m = this.byGroup.get(d.group) ?? new Map<string, ResourceDef>();
      m.set(d.resource, d);
      this.byGroup.set(d.group, m);
    }
  }

  /**
   * undefined when the path (already decoded, see request-target.ts) is not a resource path this
   * server serves.
   */
  match(path: string): ResourceRoute | undefined {
    const parts = path.split('/').filter((p) => p !== '');
    let group: string;
    let rest: string[];
    if (parts[0] === 'api' && parts[1] === 'v1') {
      group = '';
      rest = parts.slice(2);
    } else if (parts[0] === 'apis' && parts.length >= 3 && parts[2] === 'v1') {
      group = parts[1] ?? '';
      rest = parts.slice(3);
    } else return undefined;
    const defs = this.byGroup.get(group);
    if (defs === undefined || rest.length === 0) return undefined;
    let watchPath = false;
    if (rest[0] === 'watch') {
      watchPath = true;
      rest = rest.slice(1);
    }
    let namespace = '';
    let scoped = false;
    // `namespaces/{name}/status` is the Namespace's own subresource, not a resource inside it.
    const namespaceSubresource =
      rest[0] === 'namespaces' &&
      rest.length === 3 &&
      (rest[2] === 'status' || rest[2] === 'finalize');
    if (rest[0] === 'namespaces' && rest.length >= 3 && !namespaceSubresource) {
      namespace = rest[1] ?? '';
      rest = rest.slice(2);
      scoped = true;
    }
    const [resource = '', name = '', subresource = '', ...extra] = rest;
    if (extra.length > 0) return undefined;
    const def = defs.get(resource);
    if (def === undefined) return undefined;
    if (scoped && !def.namespaced) return undefined;
    if (watchPath && subresource !== '') return undefined;
    const allNamespaces = def.namespaced && !scoped;
    // A namespaced object is only addressed inside its namespace.
    if (allNamespaces && name !== '') return undefined;
    return { def, namespace, name, subresource, watchPath, allNamespaces };
  }
}
