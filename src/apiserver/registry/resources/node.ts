// Node (core/v1, cluster-scoped, with /status). The main resource keeps the stored status; the
// status subresource keeps the stored spec, as the reference's node strategy.

import { validateObjectMeta, isDns1123Subdomain } from '../meta.js';
import { objAt, type Obj, type ResourceDef } from '../types.js';

export const nodeDef: ResourceDef = {
  resource: 'nodes',
  singularName: 'node',
  group: '',
  version: 'v1',
  kind: 'Node',
  listKind: 'NodeList',
  namespaced: false,
  shortNames: ['no'],
  subresources: ['status'],
  allowCreateOnUpdate: false,
  returnDeletedObject: false,
  prepareForCreate: (obj) => {
    if (objAt(obj, 'spec') === undefined) obj['spec'] = {};
    if (objAt(obj, 'status') === undefined) obj['status'] = {};
  },
  validateCreate: (obj) => validateObjectMeta(obj, false, isDns1123Subdomain),
  prepareForUpdate: (obj: Obj, old: Obj, subresource: string) => {
    if (subresource === 'status') obj['spec'] = old['spec'];
    else obj['status'] = old['status'];
  },
  validateUpdate: (obj) => [...validateObjectMeta(obj, false, isDns1123Subdomain)],
};
