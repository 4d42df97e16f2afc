// Role, ClusterRole, RoleBinding, ClusterRoleBinding (rbac.authorization.{domain}/v1) as registry
// resources: no status, no subresources; validation in ./validation.ts.

import type { Names } from '../../../common/names.js';
import type { ResourceDef } from '../../registry/types.js';
import { rbacNames } from './names.js';
import { validateBinding, validateBindingUpdate, validateRole } from './validation.js';

export interface RbacDefs {
  readonly role: ResourceDef;
  readonly clusterRole: ResourceDef;
  readonly roleBinding: ResourceDef;
  readonly clusterRoleBinding: ResourceDef;
}

function common(
  group: string,
): Pick<
  ResourceDef,
  | 'group'
  | 'version'
  | 'shortNames'
  | 'subresources'
  | 'allowCreateOnUpdate'
  | 'returnDeletedObject'
  | 'prepareForCreate'
  | 'prepareForUpdate'
> {
  return {
    group,
    version: 'v1',
    shortNames: [],
    subresources: [],
    allowCreateOnUpdate: true,
    returnDeletedObject: false,
    prepareForCreate: () => undefined,
    prepareForUpdate: () => undefined,
  };
}

export function rbacDefs(names: Names): RbacDefs {
  const group = rbacNames(names).group;
  const def = (
    resource: 'roles' | 'clusterroles' | 'rolebindings' | 'clusterrolebindings',
    kind: string,
    namespaced: boolean,
    validate: Pick<ResourceDef, 'validateCreate' | 'validateUpdate'>,
  ): ResourceDef => ({
    ...common(group),
    resource,
    singularName: resource.slice(0, -1),
    kind,
    listKind: `${kind}List`,
    namespaced,
    ...validate,
  });
  const role = (
    resource: 'roles' | 'clusterroles',
    kind: string,
    namespaced: boolean,
  ): ResourceDef =>
    def(resource, kind, namespaced, {
      validateCreate: (obj) => validateRole(obj, namespaced),
      validateUpdate: (obj) => validateRole(obj, namespaced),
    });
  const binding = (
    resource: 'rolebindings' | 'clusterrolebindings',
    kind: string,
    namespaced: boolean,
  ): ResourceDef =>
    def(resource, kind, namespaced, {
      validateCreate: (obj) => validateBinding(obj, namespaced, group),
      validateUpdate: (obj, old) => validateBindingUpdate(obj, old, namespaced, group),
    });
  return {
    role: role('roles', 'Role', true),
    clusterRole: role('clusterroles', 'ClusterRole', false),
    roleBinding: binding('rolebindings', 'RoleBinding', true),
    clusterRoleBinding: binding('clusterrolebindings', 'ClusterRoleBinding', false),
  };
}
