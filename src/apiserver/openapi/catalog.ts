// What the OpenAPI documents describe: the served resources (their ResourceDefs) and review
// endpoints, each with its schema from the one table of kinds (schema/kinds.ts), and the shared
// meta types. Group names come from the server's profile, so the documents follow it.

import type { ResourceDef } from '../registry/types.js';
import { schemaForKind } from '../schema/kinds.js';
import { apiResourceList, deleteOptions, listOf, status, watchEvent } from '../schema/meta.js';
import { definitionName, type Schema } from '../schema/types.js';
import type { Gvk } from './definitions.js';
import {
  DELETE_OPTIONS,
  reviewPath,
  resourcePaths,
  type PathItem,
  type ServedResource,
  type ServedReview,
} from './operations.js';

export interface GroupVersion {
  readonly group: string;
  readonly version: string;
}

export interface ReviewEndpoint {
  readonly group: string;
  readonly resource: string;
  readonly kind: string;
  /** Posted under /namespaces/{namespace}/ (LocalSubjectAccessReview). */
  readonly namespaced?: boolean;
}

/** The review endpoints plat-apiserver serves (POST only), in the profile's groups. */
export function reviewEndpoints(groups: {
  readonly authentication: string;
  readonly authorization: string;
}): ReviewEndpoint[] {
  return [
    { group: groups.authentication, resource: 'selfsubjectreviews', kind: 'SelfSubjectReview' },
    { group: groups.authentication, resource: 'tokenreviews', kind: 'TokenReview' },
    {
      group: groups.authorization,
      resource: 'localsubjectaccessreviews',
      kind: 'LocalSubjectAccessReview',
      namespaced: true,
    },
    {
      group: groups.authorization,
      resource: 'selfsubjectaccessreviews',
      kind: 'SelfSubjectAccessReview',
    },
    {
      group: groups.authorization,
      resource: 'selfsubjectrulesreviews',
      kind: 'SelfSubjectRulesReview',
    },
    { group: groups.authorization, resource: 'subjectaccessreviews', kind: 'SubjectAccessReview' },
  ];
}

type ObjectSchema = Extract<Schema, { t: 'object' }>;

/**
 * The reference's Go package of a group's types: `io.k8s.api.<first label of the group>.v1` (core
 * for '').
 */
function packageOf(group: string, version: string): string {
  return `io.k8s.api.${group === '' ? 'core' : (group.split('.')[0] ?? '')}.${version}`;
}

/**
 * The kind's schema when the table has one for this group (the table is keyed by kind; a kind of
 * another group does not count).
 */
function objectSchemaOf(group: string, version: string, kind: string): ObjectSchema | undefined {
  const s = schemaForKind(kind, group === '' ? version : `${group}/${version}`);
  if (s?.t !== 'object') return undefined;
  return definitionName(s) === `${packageOf(group, version)}.${kind}` ? s : undefined;
}

/** `api/v1` or `apis/<group>/<version>`: the key of a group-version under /openapi/v3/. */
export function gvKey(gv: GroupVersion): string {
  return gv.group === '' ? `api/${gv.version}` : `apis/${gv.group}/${gv.version}`;
}

interface Entry {
  readonly gvk: Gvk;
  readonly schema: Schema;
  readonly path: () => PathItem[];
}

export class Catalog {
  readonly groupVersions: readonly GroupVersion[];
  readonly metaTypes: readonly Schema[] = [deleteOptions, status, watchEvent, apiResourceList];
  /** Kinds every group-version has (the reference tags them with each group-version). */
  readonly sharedKinds: readonly (readonly [string, string])[] = [
    ['DeleteOptions', DELETE_OPTIONS],
    ['WatchEvent', 'io.k8s.apimachinery.pkg.apis.meta.v1.WatchEvent'],
  ];
  /**
   * Resources and reviews served without a schema in the table: left out of the documents (the
   * server logs them).
   */
  readonly undocumented: string[] = [];
  private readonly entries: Entry[] = [];

  constructor(
    defs: readonly ResourceDef[],
    reviews: readonly ReviewEndpoint[],
    readonly version: string,
  ) {
    for (const d of defs) this.addResource(d);
    for (const r of reviews) this.addReview(r);
    const seen = new Map<string, GroupVersion>();
    for (const e of this.entries)
      seen.set(gvKey(e.gvk), { group: e.gvk.group, version: e.gvk.version });
    this.groupVersions = [...seen.values()];
  }

  private addResource(d: ResourceDef): void {
    const schema = objectSchemaOf(d.group, d.version, d.kind);
    if (schema === undefined) {
      this.undocumented.push(`${d.resource}.${d.group}`);
      return;
    }
    const list = listOf(schema);
    const gvk = { group: d.group, version: d.version, kind: d.kind };
    const served: ServedResource = {
      gvk,
      resource: d.resource,
      namespaced: d.namespaced,
      // An action subresource (serviceaccounts/token, pods/binding) has no get/put/patch paths.
      subresources: d.subresources.filter((s) => d.actionSubresources?.[s] === undefined),
      def: definitionName(schema),
      listDef: definitionName(list),
      deleteCollection: d.resource !== 'namespaces',
    };
    this.entries.push({ gvk, schema, path: () => resourcePaths(served) });
    this.entries.push({ gvk: { ...gvk, kind: d.listKind }, schema: list, path: () => [] });
  }

  private addReview(r: ReviewEndpoint): void {
    const schema = objectSchemaOf(r.group, 'v1', r.kind);
    if (schema === undefined) {
      this.undocumented.push(`${r.resource}.${r.group}`);
      return;
    }
    const gvk = { group: r.group, version: 'v1', kind: r.kind };
    const served: ServedReview = {
      gvk,
      resource: r.resource,
      def: definitionName(schema),
      namespaced: r.namespaced === true,
    };
    this.entries.push({ gvk, schema, path: () => [reviewPath(served)] });
  }

  private inGvs(gvs: readonly GroupVersion[]): Entry[] {
    const keys = new Set(gvs.map(gvKey));
    return this.entries.filter((e) => keys.has(gvKey(e.gvk)));
  }

  /** The kinds of these group-versions with their schemas. */
  kinds(gvs: readonly GroupVersion[]): { schema: Schema; gvk: Gvk }[] {
    return this.inGvs(gvs).map((e) => ({ schema: e.schema, gvk: e.gvk }));
  }

  paths(gvs: readonly GroupVersion[]): PathItem[] {
    return this.inGvs(gvs).flatMap((e) => e.path());
  }
}
