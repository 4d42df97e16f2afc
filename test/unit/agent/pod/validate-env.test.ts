// Static pods' env and envFrom, validated with the reference's 1.32 rules and messages
// (ValidateEnv with RelaxedEnvironmentVariableValidation on, ValidateEnvFrom).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { envProblems } from '../../../../src/agent/pod/validate-env.js';
import type { Container } from '../../../../src/agent/pod/types.js';

const at = 'spec.containers[0]';
const problems = (c: Partial<Container>): string[] => envProblems({ name: 'c', ...c }, at);

test('names: any printable ASCII but =, as 1.32 relaxes them', () => {
  assert.deepEqual(problems({ env: [{ name: 'my var:1', value: 'x' }, { name: '1ST' }] }), []);
  assert.deepEqual(problems({ env: [{ name: 'A=B' }, { name: 'é' }, { name: '' }] }), [
    `${at}.env[0].name: Invalid value: "A=B": a valid environment variable name must consist only of printable ASCII characters other than '='`,
    `${at}.env[1].name: Invalid value: "é": a valid environment variable name must consist only of printable ASCII characters other than '='`,
    `${at}.env[2].name: Required value`,
  ]);
  assert.deepEqual(problems({ envFrom: [{ prefix: 'P=', configMapRef: { name: 'x' } }] }), [
    `${at}.envFrom[0].prefix: Invalid value: "P=": a valid environment variable name must consist only of printable ASCII characters other than '='`,
  ]);
});

test('valueFrom: one source, not beside a value; the paths, resources and divisors env may use', () => {
  const one = (valueFrom: NonNullable<Container['env']>[number]['valueFrom'], value?: string) =>
    problems({ env: [{ name: 'A', valueFrom, ...(value !== undefined ? { value } : {}) }] });
  assert.deepEqual(one({}), [
    `${at}.env[0].valueFrom: Invalid value: "": must specify one of: \`fieldRef\`, \`resourceFieldRef\`, \`configMapKeyRef\` or \`secretKeyRef\``,
  ]);
  assert.deepEqual(one({ fieldRef: { fieldPath: 'metadata.name' } }, 'x'), [
    `${at}.env[0].valueFrom: Invalid value: "": may not be specified when \`value\` is not empty`,
  ]);
  assert.deepEqual(
    one({ fieldRef: { fieldPath: 'metadata.name' }, secretKeyRef: { name: 's', key: 'k' } }),
    [
      `${at}.env[0].valueFrom: Invalid value: "": may not have more than one field specified at a time`,
    ],
  );
  assert.deepEqual(one({ fieldRef: { fieldPath: "metadata.labels['a']" } }), []);
  assert.deepEqual(one({ fieldRef: { fieldPath: 'status.podIPs' } }), []);
  assert.deepEqual(one({ fieldRef: { fieldPath: 'metadata.labels' } }), [
    `${at}.env[0].valueFrom.fieldRef.fieldPath: Unsupported value: "metadata.labels": supported values: "metadata.name", "metadata.namespace", "metadata.uid", "spec.nodeName", "spec.serviceAccountName", "status.hostIP", "status.hostIPs", "status.podIP", "status.podIPs"`,
  ]);
  assert.deepEqual(one({ fieldRef: { apiVersion: 'v2', fieldPath: 'metadata.name' } }), [
    `${at}.env[0].valueFrom.fieldRef.fieldPath: Invalid value: "metadata.name": error converting fieldPath: unsupported pod version: v2`,
  ]);
  assert.deepEqual(one({ resourceFieldRef: { resource: 'limits.gpu' } }), [
    `${at}.env[0].valueFrom.resourceFieldRef.resource: Unsupported value: "limits.gpu": supported values: "limits.cpu", "limits.ephemeral-storage", "limits.memory", "requests.cpu", "requests.ephemeral-storage", "requests.memory"`,
  ]);
  assert.deepEqual(one({ resourceFieldRef: { resource: 'limits.cpu', divisor: '1000m' } }), []);
  assert.deepEqual(one({ resourceFieldRef: { resource: 'limits.cpu', divisor: '2' } }), [
    `${at}.env[0].valueFrom.resourceFieldRef.divisor: Invalid value: "limits.cpu": only divisor's values 1m and 1 are supported with the cpu resource`,
  ]);
  assert.deepEqual(
    one({ resourceFieldRef: { resource: 'requests.memory', divisor: '1024Ki' } }),
    [],
  );
  assert.deepEqual(one({ configMapKeyRef: { name: 'c', key: 'a b' } }), [
    `${at}.env[0].valueFrom.configMapKeyRef.key: Invalid value: "a b": a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')`,
  ]);
});

test('envFrom: exactly one of configMapRef and secretRef, with a name', () => {
  assert.deepEqual(problems({ envFrom: [{ prefix: 'P_' }] }), [
    `${at}.envFrom: Invalid value: "": must specify one of: \`configMapRef\` or \`secretRef\``,
  ]);
  assert.deepEqual(
    problems({ envFrom: [{ configMapRef: { name: 'a' }, secretRef: { name: 'b' } }] }),
    [`${at}.envFrom: Invalid value: "": may not have more than one field specified at a time`],
  );
  assert.deepEqual(problems({ envFrom: [{ secretRef: {} }] }), [
    `${at}.envFrom[0].secretRef.name: Required value`,
  ]);
});
