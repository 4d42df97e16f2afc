// RBAC validation with the reference's field errors (pkg/apis/rbac/validation): verbs required, a
// rule needs resources (with apiGroups) or nonResourceURLs, roleRef kinds, subject kinds; verb
// names are not checked (the reference accepts `frobnicate`).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  validateBinding,
  validateBindingUpdate,
  validateRole,
} from '../../../../../src/apiserver/authz/rbac/validation.js';

const G = 'rbac.authorization.k8s.io';
const text = (errs: { field: string; type: string; detail: string }[]): string[] =>
  errs.map((e) => `${e.field}: ${e.type}: ${e.detail}`);

test('role rules: the reference rejects a rule without verbs and one with neither resources nor URLs', () => {
  assert.deepEqual(
    text(
      validateRole(
        {
          metadata: { name: 'r', namespace: 'default' },
          rules: [{ apiGroups: [''], resources: ['pods'] }],
        },
        true,
      ),
    ),
    ['rules[0].verbs: FieldValueRequired: verbs must contain at least one value'],
  );
  assert.deepEqual(
    text(
      validateRole(
        { metadata: { name: 'r', namespace: 'default' }, rules: [{ verbs: ['get'] }] },
        true,
      ),
    ),
    [
      'rules[0].apiGroups: FieldValueRequired: resource rules must supply at least one api group',
      'rules[0].resources: FieldValueRequired: resource rules must supply at least one resource',
    ],
  );
  assert.deepEqual(
    text(
      validateRole(
        {
          metadata: { name: 'r', namespace: 'default' },
          rules: [{ verbs: ['get'], nonResourceURLs: ['/x'] }],
        },
        true,
      ),
    ),
    [
      'rules[0].nonResourceURLs: FieldValueInvalid: namespaced rules cannot apply to non-resource URLs',
    ],
  );
  assert.deepEqual(
    text(
      validateRole(
        {
          metadata: { name: 'r' },
          rules: [
            { verbs: ['get'], apiGroups: [''], resources: ['pods'], nonResourceURLs: ['/x'] },
          ],
        },
        false,
      ),
    ),
    [
      'rules[0].nonResourceURLs: FieldValueInvalid: rules cannot apply to both regular resources and non-resource URLs',
    ],
  );
  assert.deepEqual(
    validateRole(
      {
        metadata: { name: 'r', namespace: 'default' },
        rules: [{ verbs: ['frobnicate'], apiGroups: [''], resources: ['pods'] }],
      },
      true,
    ),
    [],
  );
  assert.deepEqual(text(validateRole({ metadata: { name: 'a/b' } }, false)), [
    "metadata.name: FieldValueInvalid: may not contain '/'",
  ]);
});

test('bindings: roleRef group and kind, subjects, roleRef immutable', () => {
  const ok = {
    metadata: { name: 'b', namespace: 'default' },
    roleRef: { apiGroup: G, kind: 'ClusterRole', name: 'view' },
    subjects: [{ kind: 'User', apiGroup: G, name: 'alice' }],
  };
  assert.deepEqual(validateBinding(ok, true, G), []);
  assert.deepEqual(
    text(
      validateBinding(
        { ...ok, metadata: { name: 'b' }, roleRef: { apiGroup: G, kind: 'Role', name: 'x' } },
        false,
        G,
      ),
    ),
    ['roleRef.kind: FieldValueNotSupported: supported values: "ClusterRole"'],
  );
  assert.deepEqual(
    text(
      validateBinding(
        { ...ok, roleRef: { apiGroup: 'x', kind: 'ClusterRole', name: '' } },
        true,
        G,
      ),
    ),
    [
      `roleRef.apiGroup: FieldValueNotSupported: supported values: "${G}"`,
      'roleRef.name: FieldValueRequired: ',
    ],
  );
  assert.deepEqual(
    text(
      validateBinding(
        {
          ...ok,
          subjects: [
            { kind: 'Robot', name: 'r' },
            { kind: 'ServiceAccount', apiGroup: G, name: 'sa', namespace: 'default' },
          ],
        },
        true,
        G,
      ),
    ),
    [
      'subjects[0].kind: FieldValueNotSupported: supported values: "ServiceAccount", "User", "Group"',
      'subjects[1].apiGroup: FieldValueNotSupported: supported values: ""',
    ],
  );
  assert.deepEqual(
    text(
      validateBindingUpdate(
        { ...ok, roleRef: { apiGroup: G, kind: 'ClusterRole', name: 'edit' } },
        ok,
        true,
        G,
      ),
    ),
    ['roleRef: FieldValueInvalid: cannot change roleRef'],
  );
});
