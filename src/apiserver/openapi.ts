// A minimal OpenAPI v3 discovery: enough for standard clients to learn that the write
// endpoints take the fieldValidation parameter (kubectl then validates on the server with
// fieldValidation=Strict instead of downloading schemas). Schemas themselves are not served.

import type { ResourceDef } from './registry/types.js';
import { apiVersionOf } from './registry/types.js';

const writeParams = ['dryRun', 'fieldManager', 'fieldValidation', 'pretty'];

function gvPath(group: string): string {
  return group === '' ? 'api/v1' : `apis/${group}/v1`;
}

function param(name: string): unknown {
  return { name, in: 'query', schema: { type: 'string', uniqueItems: true } };
}

export class OpenApiV3 {
  private readonly byGv = new Map<string, ResourceDef[]>();
  constructor(defs: readonly ResourceDef[]) {
    for (const d of defs) {
      const k = gvPath(d.group);
      this.byGv.set(k, [...(this.byGv.get(k) ?? []), d]);
    }
  }

  root(): unknown {
    const paths: Record<string, unknown> = {};
    for (const k of this.byGv.keys()) paths[k] = { serverRelativeURL: `/openapi/v3/${k}?hash=1` };
    return { paths };
  }

  /** The document of one group-version path (`api/v1`, `apis/<group>/v1`), or undefined. */
  groupVersion(path: string): unknown {
    const defs = this.byGv.get(path);
    if (defs === undefined) return undefined;
    const paths: Record<string, unknown> = {};
    for (const d of defs) {
      const gvk = { group: d.group, version: d.version, kind: d.kind };
      const base = `/${gvPath(d.group)}/${d.namespaced ? 'namespaces/{namespace}/' : ''}${d.resource}`;
      const op = (action: string): unknown => ({
        parameters: (action === 'patch' ? [...writeParams, 'force'] : writeParams).map(param),
        responses: { '200': { description: 'OK' } },
        'x-kubernetes-action': action,
        'x-kubernetes-group-version-kind': gvk,
      });
      paths[base] = { post: op('post') };
      paths[`${base}/{name}`] = { put: op('put'), patch: op('patch') };
    }
    return { openapi: '3.0.0', info: { title: 'plat-apiserver', version: apiVersionOf(defs[0] ?? { group: '', version: 'v1' }) }, paths, components: { schemas: {} } };
  }
}
