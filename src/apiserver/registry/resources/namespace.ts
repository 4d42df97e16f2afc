// Namespace (core/v1, cluster-scoped). Deletion is immediate here and takes the namespaced
// objects with it (there is no namespace controller to run a Terminating phase).

import { validateObjectMeta, isDns1123Label } from '../meta.js';
import { objAt, type Obj, type ResourceDef } from '../types.js';

export const namespaceDef: ResourceDef = {
  resource: 'namespaces',
  singularName: 'namespace',
  group: '',
  version: 'v1',
  kind: 'Namespace',
  listKind: 'NamespaceList',
  namespaced: false,
  shortNames: ['ns'],
  subresources: ['status'],
  allowCreateOnUpdate: false,
  returnDeletedObject: true,
  validateName: isDns1123Label,
  prepareForCreate: (obj) => {
    obj['status'] = { phase: 'Active' };
    if (objAt(obj, 'spec') === undefined) obj['spec'] = {};
  },
  validateCreate: (obj) => validateObjectMeta(obj, false, isDns1123Label),
  prepareForUpdate: (obj: Obj, old: Obj, subresource: string) => {
    if (subresource === 'status') obj['spec'] = old['spec'];
    else obj['status'] = old['status'];
  },
  validateUpdate: (obj) => [...validateObjectMeta(obj, false, isDns1123Label)],
};
