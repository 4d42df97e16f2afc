// The values the environment is made of, each against the reference's answers: $(VAR) expansion
// (third_party/forked/golang/expansion's cases), fieldRef (podFieldSelectorRuntimeValue and its
// errors), resourceFieldRef (ceil of value/divisor, unset limits as the node's allocatable) and
// the service variables (envvars.FromServices, getServiceEnvVarMap).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { expandVars } from '../../../../src/agent/pod/expand.js';
import { fieldRefValue } from '../../../../src/agent/env/field-ref.js';
import { resourceRefValue } from '../../../../src/agent/env/resource-ref.js';
import {
  fromServices,
  serviceEnv,
  type ServiceInfo,
} from '../../../../src/agent/env/service-env.js';
import type { Pod } from '../../../../src/agent/pod/types.js';

test('$(VAR) expands as the reference: $$ escapes, unknown and malformed references stay', () => {
  const first = new Map([
    ['VAR_A', 'A'],
    ['VAR_EMPTY', ''],
  ]);
  const second = new Map([
    ['VAR_B', 'B'],
    ['VAR_C', 'C'],
    ['VAR_REF', '$(VAR_A)'],
  ]);
  const cases: [string, string][] = [
    ['$(VAR_A)', 'A'],
    ['$(VAR_A)-$(VAR_A)', 'A-A'],
    ['___$(VAR_B)___', '___B___'],
    ['$(VAR_A)_$(VAR_B)_$(VAR_C)', 'A_B_C'],
    ['$$(VAR_B)_$(VAR_A)', '$(VAR_B)_A'],
    ['$$(VAR_A)_$$(VAR_B)', '$(VAR_A)_$(VAR_B)'],
    ['f000-$$VAR_A', 'f000-$VAR_A'],
    ['foo\\$(VAR_C)bar', 'foo\\Cbar'],
    ['$(VAR_A$(VAR_B))', '$(VAR_A$(VAR_B))'],
    ['$(VAR_A$(VAR_B)', '$(VAR_A$(VAR_B)'],
    ['$(VAR_REF)', '$(VAR_A)'],
    ['foo$(VAR_EMPTY)bar', 'foobar'],
    ['foo$(VAR_Awhoops!', 'foo$(VAR_Awhoops!'],
    ['$?_boo_$!', '$?_boo_$!'],
    ['$VAR_A', '$VAR_A'],
    ['$(VAR_DNE)', '$(VAR_DNE)'],
    ['$$$$$$(BIG_MONEY)', '$$$(BIG_MONEY)'],
    ['$$$$$$(VAR_A)', '$$$(VAR_A)'],
    ['$$$$$$$(GOOD_ODDS)', '$$$$(GOOD_ODDS)'],
    ['$$$$$$$(VAR_A)', '$$$A'],
    ['${VAR_A}', '${VAR_A}'],
    ['$(VAR_B)_______$(A', 'B_______$(A'],
    ['$(VAR_C)_______$(', 'C_______$('],
    ['$(VAR_A)foobarzab$', 'Afoobarzab$'],
    ['--$($($($($--', '--$($($($($--'],
    ['$(foo$$var)', '$(foo$$var)'],
    ['\n', '\n'],
  ];
  for (const [input, expected] of cases)
    assert.equal(expandVars(input, first, second), expected, input);
  // a name is anything up to the first `)`: 1.32's relaxed names expand too
  assert.equal(expandVars('$(A:B c)', new Map([['A:B c', 'x']])), 'x');
});

const pod: Pod = {
  metadata: {
    name: 'p',
    namespace: 'ns',
    uid: '8b6e4c5a-1c2d-4e5f-9a0b-123456789abc',
    labels: { app: 'web', tier: 'front' },
    annotations: { 'example.com/a': 'x"y' },
  },
  spec: {
    nodeName: 'node-1',
    serviceAccountName: 'sa',
    containers: [
      {
        name: 'c',
        resources: { limits: { memory: '64Mi' }, requests: { cpu: '250m', memory: '32Mi' } },
      },
      { name: 'd', resources: { limits: { cpu: '1500m' } } },
    ],
    initContainers: [{ name: 'i' }],
  },
};
const addresses = { podIPs: ['10.1.0.5'], hostIPs: ['192.0.2.7'] };

test('fieldRef: metadata, spec and status values as the reference resolves them', () => {
  const v = (fieldPath: string, apiVersion?: string): string =>
    fieldRefValue(
      { fieldPath, ...(apiVersion !== undefined ? { apiVersion } : {}) },
      pod,
      addresses,
    );
  assert.equal(v('metadata.name'), 'p');
  assert.equal(v('metadata.namespace', 'v1'), 'ns');
  assert.equal(v('metadata.uid'), '8b6e4c5a-1c2d-4e5f-9a0b-123456789abc');
  assert.equal(v("metadata.labels['app']"), 'web');
  assert.equal(v("metadata.labels['none']"), '');
  assert.equal(v("metadata.annotations['example.com/a']"), 'x"y');
  // the whole map: key="value" lines sorted, values Go-quoted
  assert.equal(v('metadata.labels'), 'app="web"\ntier="front"');
  assert.equal(v('spec.nodeName'), 'node-1');
  assert.equal(v('spec.host'), 'node-1');
  assert.equal(v('spec.serviceAccountName'), 'sa');
  assert.equal(v('status.hostIP'), '192.0.2.7');
  assert.equal(v('status.hostIPs'), '192.0.2.7');
  assert.equal(v('status.podIP'), '10.1.0.5');
  assert.equal(
    fieldRefValue({ fieldPath: 'status.podIPs' }, pod, {
      ...addresses,
      podIPs: ['10.1.0.5', 'fd00::5'],
    }),
    '10.1.0.5,fd00::5',
  );
  assert.throws(() => v('metadata.name', 'v2'), { message: 'unsupported pod version: v2' });
  assert.throws(() => v("spec.nodeName['x']"), {
    message: "field label does not support subscript: spec.nodeName['x']",
  });
  assert.throws(() => v('spec.containers'), {
    message: 'field label not supported: spec.containers',
  });
  assert.throws(() => v('spec.restartPolicy'), {
    message: 'unsupported fieldPath: spec.restartPolicy',
  });
});

test('resourceFieldRef: ceil(value/divisor); unset limits are the allocatable; another container by name', () => {
  const c = pod.spec.containers[0]!;
  const alloc = { cpu: 4, memory: 8 * 1024 ** 3, 'ephemeral-storage': 10e9 };
  const v = (resource: string, divisor?: string, containerName?: string): string =>
    resourceRefValue(
      {
        resource,
        ...(divisor !== undefined ? { divisor } : {}),
        ...(containerName !== undefined ? { containerName } : {}),
      },
      pod,
      c,
      alloc,
    );
  assert.equal(v('limits.memory'), String(64 * 1024 * 1024));
  assert.equal(v('limits.memory', '1Mi'), '64');
  assert.equal(v('limits.memory', '1M'), '68'); // 67.108864 rounded up
  assert.equal(v('requests.cpu'), '1'); // 250m in cores, rounded up
  assert.equal(v('requests.cpu', '1m'), '250');
  assert.equal(v('limits.cpu'), '4'); // no limit: the node's allocatable
  assert.equal(v('limits.cpu', '1m'), '4000');
  assert.equal(v('limits.ephemeral-storage', '1G'), '10');
  assert.equal(v('requests.ephemeral-storage'), '0');
  assert.equal(v('limits.cpu', '1m', 'd'), '1500');
  assert.equal(v('limits.memory', '1Gi', 'd'), '8');
  assert.equal(v('limits.memory', '0'), String(64 * 1024 * 1024)); // a zero divisor is 1
  // an init container named by another is not defaulted (the reference defaults app containers)
  assert.equal(v('limits.cpu', '1m', 'i'), '0');
  assert.throws(() => v('limits.cpu', undefined, 'nope'), { message: 'container nope not found' });
  assert.throws(() => v('limits.gpu'), { message: 'unsupported container resource : limits.gpu' });
});

test('service variables: the reference FromServices names and values', () => {
  const svc = (name: string, clusterIP: string, ports: ServiceInfo['ports']): ServiceInfo => ({
    namespace: 'ns',
    name,
    clusterIP,
    ports,
  });
  const vars = fromServices([
    svc('foo-bar', '1.2.3.4', [{ name: '', port: 8080, protocol: 'TCP' }]),
    svc('abc-123', '5.6.7.8', [
      { name: 'u-d-p', port: 8081, protocol: 'UDP' },
      { name: 't-c-p', port: 8081, protocol: 'TCP' },
    ]),
    svc('svrc-clusterip-none', 'None', [{ name: '', port: 8082, protocol: 'TCP' }]),
    svc('svrc-clusterip-empty', '', [{ name: '', port: 8082, protocol: 'TCP' }]),
    svc('super-ipv6', '2001:DB8::', [{ name: 'u-d-p', port: 8084, protocol: 'UDP' }]),
  ]);
  assert.deepEqual(
    [...vars],
    [
      ['FOO_BAR_SERVICE_HOST', '1.2.3.4'],
      ['FOO_BAR_SERVICE_PORT', '8080'],
      ['FOO_BAR_PORT', 'tcp://1.2.3.4:8080'],
      ['FOO_BAR_PORT_8080_TCP', 'tcp://1.2.3.4:8080'],
      ['FOO_BAR_PORT_8080_TCP_PROTO', 'tcp'],
      ['FOO_BAR_PORT_8080_TCP_PORT', '8080'],
      ['FOO_BAR_PORT_8080_TCP_ADDR', '1.2.3.4'],
      ['ABC_123_SERVICE_HOST', '5.6.7.8'],
      ['ABC_123_SERVICE_PORT', '8081'],
      ['ABC_123_SERVICE_PORT_U_D_P', '8081'],
      ['ABC_123_SERVICE_PORT_T_C_P', '8081'],
      ['ABC_123_PORT', 'udp://5.6.7.8:8081'],
      ['ABC_123_PORT_8081_UDP', 'udp://5.6.7.8:8081'],
      ['ABC_123_PORT_8081_UDP_PROTO', 'udp'],
      ['ABC_123_PORT_8081_UDP_PORT', '8081'],
      ['ABC_123_PORT_8081_UDP_ADDR', '5.6.7.8'],
      ['ABC_123_PORT_8081_TCP', 'tcp://5.6.7.8:8081'],
      ['ABC_123_PORT_8081_TCP_PROTO', 'tcp'],
      ['ABC_123_PORT_8081_TCP_PORT', '8081'],
      ['ABC_123_PORT_8081_TCP_ADDR', '5.6.7.8'],
      ['SUPER_IPV6_SERVICE_HOST', '2001:DB8::'],
      ['SUPER_IPV6_SERVICE_PORT', '8084'],
      ['SUPER_IPV6_SERVICE_PORT_U_D_P', '8084'],
      ['SUPER_IPV6_PORT', 'udp://[2001:DB8::]:8084'],
      ['SUPER_IPV6_PORT_8084_UDP', 'udp://[2001:DB8::]:8084'],
      ['SUPER_IPV6_PORT_8084_UDP_PROTO', 'udp'],
      ['SUPER_IPV6_PORT_8084_UDP_PORT', '8084'],
      ['SUPER_IPV6_PORT_8084_UDP_ADDR', '2001:DB8::'],
    ],
  );
});

test("a pod's service variables: its namespace's (enableServiceLinks), default/kubernetes always", () => {
  const s = (namespace: string, name: string, ip: string): ServiceInfo => ({
    namespace,
    name,
    clusterIP: ip,
    ports: [{ name: 'https', port: 443, protocol: 'TCP' }],
  });
  const all = [
    s('default', 'kubernetes', '10.0.0.1'),
    s('default', 'other', '10.0.0.2'),
    s('ns', 'web', '10.0.0.3'),
    s('elsewhere', 'db', '10.0.0.4'),
  ];
  const names = (m: Map<string, string>): string[] =>
    [...m.keys()].filter((k) => k.endsWith('_SERVICE_HOST'));
  assert.deepEqual(names(serviceEnv(all, 'ns', true)), [
    'KUBERNETES_SERVICE_HOST',
    'WEB_SERVICE_HOST',
  ]);
  assert.deepEqual(names(serviceEnv(all, 'ns', false)), ['KUBERNETES_SERVICE_HOST']);
  assert.deepEqual(names(serviceEnv(all, 'default', true)), [
    'KUBERNETES_SERVICE_HOST',
    'OTHER_SERVICE_HOST',
  ]);
  assert.equal(serviceEnv(all, 'ns', false).get('KUBERNETES_SERVICE_PORT_HTTPS'), '443');
  // the pod's namespace's own `kubernetes` Service wins over default's, in either order
  const own = s('ns', 'kubernetes', '10.9.9.9');
  assert.equal(serviceEnv([all[0]!, own], 'ns', true).get('KUBERNETES_SERVICE_HOST'), '10.9.9.9');
  assert.equal(serviceEnv([own, all[0]!], 'ns', true).get('KUBERNETES_SERVICE_HOST'), '10.9.9.9');
  assert.equal(serviceEnv([own, all[0]!], 'ns', false).get('KUBERNETES_SERVICE_HOST'), '10.0.0.1');
});
