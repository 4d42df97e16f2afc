// The v3 index's documents that are not a group-version's, as the reference lists them: `api`
// (GET /api/, APIVersions), `apis` (GET /apis/, APIGroupList), `apis/<group>` (GET
// /apis/<group>/, APIGroup) for each group served, and `version` (GET /version/, version.Info),
// each with the definitions its answer uses.

import { apiGroup, apiGroupList, apiVersions, versionInfo } from '../schema/meta.js';
import { definitionName, type Schema } from '../schema/types.js';
import type { Describe } from './descriptions.js';
import { Definitions, refTo, type Json } from './definitions.js';
import { WIRE_NAMES } from '../../common/names.js';

const DISCOVERY_TYPES = ['application/json', 'application/yaml', WIRE_NAMES.protobufMediaType];

interface RootEntry {
  /** The key under /openapi/v3/ (`api`, `apis`, `apis/<group>`, `version`). */
  readonly key: string;
  readonly path: string;
  readonly schema: Schema;
  readonly mediaTypes: readonly string[];
}

/** The root entries of a server serving these API groups (the core group '' left out). */
export function rootEntries(groups: readonly string[]): RootEntry[] {
  return [
    { key: 'api', path: '/api/', schema: apiVersions, mediaTypes: DISCOVERY_TYPES },
    { key: 'apis', path: '/apis/', schema: apiGroupList, mediaTypes: DISCOVERY_TYPES },
    ...[...new Set(groups.filter((g) => g !== ''))].sort().map((g) => ({
      key: `apis/${g}`,
      path: `/apis/${g}/`,
      schema: apiGroup,
      mediaTypes: DISCOVERY_TYPES,
    })),
    { key: 'version', path: '/version/', schema: versionInfo, mediaTypes: ['application/json'] },
  ];
}

/** The v3 document of one root entry. */
export function v3RootDocument(
  e: RootEntry,
  info: { readonly title: string; readonly version: string },
  describe: Describe,
): Json {
  const defs = new Definitions({ flavour: 'v3', describe });
  const name = defs.addNamed(e.schema);
  if (e.schema.t !== 'object' || definitionName(e.schema) !== name)
    throw new Error(`${e.key}: the answer is not a named type`);
  const content = Object.fromEntries(e.mediaTypes.map((t) => [t, { schema: refTo('v3', name) }]));
  const get = {
    responses: { '200': { description: 'OK', content }, '401': { description: 'Unauthorized' } },
  };
  return {
    openapi: '3.0.0',
    info: { title: info.title, version: info.version },
    paths: { [e.path]: { get } },
    components: { schemas: defs.sorted() },
  };
}
