// Discovery documents (/api, /api/v1, /apis, /apis/{group}, /apis/{group}/v1) and /version,
// built from the registered resources. Clients that ask for aggregated discovery get these plain
// documents with Content-Type application/json, which they accept as the fallback.

import type { ResourceDef } from './registry/types.js';
import type { Names } from '../common/names.js';

export interface DiscoveryGroup {
  readonly name: string; // '' for core
  readonly resources: readonly DiscoveryResource[];
}

export interface DiscoveryResource {
  name: string;
  singularName: string;
  namespaced: boolean;
  /** A subresource served in another group's kind (serviceaccounts/token: TokenRequest). */
  group?: string;
  version?: string;
  kind: string;
  verbs: string[];
  shortNames?: string[];
}

const fullVerbs = [
  'create',
  'delete',
  'deletecollection',
  'get',
  'list',
  'patch',
  'update',
  'watch',
];
const subVerbs = ['get', 'patch', 'update'];

export function discoveryResources(def: ResourceDef): DiscoveryResource[] {
  const main: DiscoveryResource = {
    name: def.resource,
    singularName: def.singularName,
    namespaced: def.namespaced,
    kind: def.kind,
    verbs:
      def.resource === 'namespaces'
        ? fullVerbs.filter((v) => v !== 'deletecollection')
        : [...fullVerbs],
  };
  if (def.shortNames.length > 0) main.shortNames = [...def.shortNames];
  const subs = def.subresources.map((s): DiscoveryResource => {
    const action = def.actionSubresources?.[s];
    if (action !== undefined)
      return {
        name: `${def.resource}/${s}`,
        singularName: '',
        namespaced: def.namespaced,
        ...(action.group === undefined ? {} : { group: action.group, version: 'v1' }),
        kind: action.kind,
        verbs: ['create'],
      };
    return {
      name: `${def.resource}/${s}`,
      singularName: '',
      namespaced: def.namespaced,
      kind: def.kind,
      verbs: [...subVerbs],
    };
  });
  return [main, ...subs];
}

export function reviewResource(name: string, kind: string, namespaced = false): DiscoveryResource {
  return { name, singularName: name.replace(/s$/, ''), namespaced, kind, verbs: ['create'] };
}

export class Discovery {
  private readonly groups: readonly DiscoveryGroup[];
  constructor(opts: { groups: readonly DiscoveryGroup[] }) {
    this.groups = opts.groups;
  }

  apiVersions(serverAddress: string): unknown {
    return {
      kind: 'APIVersions',
      versions: ['v1'],
      serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }],
    };
  }

  private groupDoc(g: DiscoveryGroup): unknown {
    const gv = { groupVersion: `${g.name}/v1`, version: 'v1' };
    return { name: g.name, versions: [gv], preferredVersion: gv };
  }

  apiGroupList(): unknown {
    return {
      kind: 'APIGroupList',
      apiVersion: 'v1',
      groups: this.groups.filter((g) => g.name !== '').map((g) => this.groupDoc(g)),
    };
  }

  apiGroup(name: string): unknown {
    const g = this.groups.find((x) => x.name === name && name !== '');
    return g === undefined
      ? undefined
      : { kind: 'APIGroup', apiVersion: 'v1', ...(this.groupDoc(g) as object) };
  }

  resourceList(group: string, version: string): unknown {
    const g = this.groups.find((x) => x.name === group);
    if (g === undefined || version !== 'v1') return undefined;
    return {
      kind: 'APIResourceList',
      apiVersion: 'v1',
      groupVersion: group === '' ? 'v1' : `${group}/v1`,
      resources: g.resources,
    };
  }
}

/** The resources discovery lists besides the reviews: the core group's, and one per other group. */
export interface ServedDefs {
  readonly core: readonly ResourceDef[];
  readonly eventsV1: ResourceDef;
  readonly csr: ResourceDef;
  readonly lease: ResourceDef;
  readonly rbacGroup: string;
  readonly rbac: readonly ResourceDef[];
}

/** The groups this server serves, with their resources (the review kinds are create-only). */
export function servedGroups(groups: Names['groups'], s: ServedDefs): DiscoveryGroup[] {
  return [
    { name: '', resources: s.core.flatMap(discoveryResources) },
    { name: groups.events, resources: discoveryResources(s.eventsV1) },
    { name: groups.certificates, resources: discoveryResources(s.csr) },
    { name: groups.coordination, resources: discoveryResources(s.lease) },
    { name: s.rbacGroup, resources: s.rbac.flatMap(discoveryResources) },
    {
      name: groups.authentication,
      resources: [
        reviewResource('selfsubjectreviews', 'SelfSubjectReview'),
        reviewResource('tokenreviews', 'TokenReview'),
      ],
    },
    {
      name: groups.authorization,
      resources: [
        reviewResource('localsubjectaccessreviews', 'LocalSubjectAccessReview', true),
        reviewResource('selfsubjectaccessreviews', 'SelfSubjectAccessReview'),
        reviewResource('selfsubjectrulesreviews', 'SelfSubjectRulesReview'),
        reviewResource('subjectaccessreviews', 'SubjectAccessReview'),
      ],
    },
  ];
}
