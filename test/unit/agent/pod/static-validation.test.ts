// A static pod manifest is validated as the reference's static pod sources validate it
// (pkg/kubelet/config/common.go: decode, "name is needed", applyDefaults, ValidatePodCreate).
// The expected messages are the reference's own, written out here.
import { namesFor } from '../../../../src/common/names.js';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { staticPodsFromManifest, manifestText } from '../../../../src/agent/pod/static-manifest.js';
import { ManifestError } from '../../../../src/common/util/errors.js';

const opts = {
  defaults: {
    nodeName: 'node-a',
    sourceKey: 'file:/etc/pods/x.yaml',
    sourceName: 'file' as const,
    names: namesFor('platform', 'platform.io'),
  },
  validation: { requireImage: false, requireCommand: true },
};

function podYaml(meta: string, container = '{name: c, command: [sleep, "60"]}', spec = ''): string {
  return `apiVersion: v1\nkind: Pod\nmetadata: {${meta}}\nspec: {containers: [${container}]${spec}}\n`;
}

function rejection(text: string): string {
  try {
    staticPodsFromManifest(text, 'x.yaml', opts);
  } catch (err) {
    assert.ok(err instanceof ManifestError, `a ManifestError, not ${String(err)}`);
    assert.ok(err.message.startsWith('x.yaml: '), err.message);
    return err.message;
  }
  assert.fail('the manifest was accepted');
}

const includes = (text: string, expected: string): void => {
  const msg = rejection(text);
  assert.ok(msg.includes(expected), `expected ${JSON.stringify(expected)} in\n${msg}`);
};

test("apiVersion v1 and kind Pod or PodList only, with the reference decoder's messages", () => {
  includes(
    podYaml('name: x').replace('apiVersion: v1', 'apiVersion: v2'),
    'no kind "Pod" is registered for version "v2"',
  );
  includes(
    podYaml('name: x').replace('apiVersion: v1', 'apiVersion: apps/v1'),
    'no kind "Pod" is registered for version "apps/v1"',
  );
  includes(
    podYaml('name: x').replace('apiVersion: v1\n', ''),
    "Object 'apiVersion' is missing in 'kind: Pod",
  );
  includes(
    podYaml('name: x').replace('kind: Pod\n', ''),
    "Object 'Kind' is missing in 'apiVersion: v1",
  );
  includes(
    podYaml('name: x').replace('kind: Pod', 'kind: Deployment'),
    'no kind "Deployment" is registered for version "v1"',
  );
  includes(
    podYaml('name: x').replace('kind: Pod', 'kind: List'),
    'no kind "List" is registered for version "v1"',
  );
  assert.match(
    rejection(podYaml('name: x').replace('apiVersion: v1', 'apiVersion: v2')),
    /\(accepted: apiVersion: v1 with kind: Pod or PodList\)$/,
  );
  // a PodList's items may leave apiVersion and kind out, as in the reference
  const list =
    'apiVersion: v1\nkind: PodList\nitems:\n- metadata: {name: a}\n  spec: {containers: [{name: c, command: [x]}]}\n';
  assert.deepEqual(
    staticPodsFromManifest(list, 'l.yaml', opts).map((p) => p.metadata.name),
    ['a-node-a'],
  );
  includes(
    list.replace('- metadata', '- apiVersion: v2\n  metadata'),
    'items[0].no kind "Pod" is registered for version "v2"',
  );
});

test("the reference's pod validation: name needed, labels, annotations, namespace", () => {
  includes(podYaml(''), 'invalid pod: name is needed for the pod');
  includes(
    podYaml('name: x, labels: {"bad key!": v}'),
    `metadata.labels: Invalid value: "bad key!": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
  );
  includes(
    podYaml('name: x, labels: {app: "bad value!"}'),
    `metadata.labels: Invalid value: "bad value!": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`,
  );
  includes(
    podYaml('name: x, annotations: {"bad key!": v}'),
    'metadata.annotations: Invalid value: "bad key!": name part must consist of alphanumeric characters',
  );
  includes(
    podYaml(`name: x, annotations: {big: "${'a'.repeat(256 * 1024)}"}`),
    'metadata.annotations: Too long: may not be more than 262144 bytes',
  );
  includes(
    podYaml('name: x, namespace: Bad_NS'),
    `metadata.namespace: Invalid value: "Bad_NS": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`,
  );
  // the name is checked after the node name is appended, as in the reference
  includes(
    podYaml('name: Bad_Name'),
    'metadata.name: Invalid value: "Bad_Name-node-a": a lowercase RFC 1123 subdomain must consist of',
  );
});

test('quantities, volumes, ports and probes as the reference checks them', () => {
  includes(
    podYaml('name: x', '{name: c, command: [x], resources: {limits: {memory: lots}}}'),
    `spec.containers[0].resources.limits[memory]: Invalid value: "lots": quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'`,
  );
  includes(
    podYaml('name: x', '{name: c, command: [x], resources: {requests: {cpu: "-1"}}}'),
    'spec.containers[0].resources.requests[cpu]: Invalid value: "-1": must be greater than or equal to 0',
  );
  includes(
    podYaml(
      'name: x',
      '{name: c, command: [x], resources: {requests: {memory: 2Gi}, limits: {memory: 1Gi}}}',
    ),
    'spec.containers[0].resources.requests: Invalid value: "2Gi": must be less than or equal to memory limit of 1Gi',
  );
  includes(
    podYaml('name: x', '{name: c, command: [x]}', ', volumes: [{name: BAD NAME, emptyDir: {}}]'),
    `spec.volumes[0].name: Invalid value: "BAD NAME": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`,
  );
  includes(
    podYaml(
      'name: x',
      '{name: c, command: [x]}',
      ', volumes: [{name: v, emptyDir: {}}, {name: v, emptyDir: {}}]',
    ),
    'spec.volumes[1].name: Duplicate value: "v"',
  );
  includes(
    podYaml('name: x', '{name: c, command: [x]}', ', volumes: [{name: v}]'),
    'spec.volumes[0]: Required value: must specify a volume type',
  );
  includes(
    podYaml(
      'name: x',
      '{name: c, command: [x]}',
      ', volumes: [{name: v, hostPath: {path: /a/../etc}}]',
    ),
    `spec.volumes[0].hostPath.path: Invalid value: "/a/../etc": must not contain '..'`,
  );
  includes(
    podYaml(
      'name: x',
      '{name: c, command: [x], volumeMounts: [{name: v, mountPath: /m, subPath: ../../etc}]}',
      ', volumes: [{name: v, emptyDir: {}}]',
    ),
    `spec.containers[0].volumeMounts[0].subPath: Invalid value: "../../etc": must not contain '..'`,
  );
  includes(
    podYaml(
      'name: x',
      '{name: c, command: [x], volumeMounts: [{name: v, mountPath: /m, subPath: /etc}]}',
      ', volumes: [{name: v, emptyDir: {}}]',
    ),
    'spec.containers[0].volumeMounts[0].subPath: Invalid value: "/etc": must be a relative path',
  );
  includes(
    podYaml('name: x', '{name: c, command: [x], ports: [{containerPort: 70000}]}'),
    'spec.containers[0].ports[0].containerPort: Invalid value: 70000: must be between 1 and 65535, inclusive',
  );
  includes(
    podYaml('name: x', '{name: c, command: [x], ports: [{containerPort: 0}]}'),
    'spec.containers[0].ports[0].containerPort: Required value',
  );
  includes(
    podYaml('name: x', '{name: c, command: [x], ports: [{containerPort: 80, protocol: HTTP}]}'),
    'spec.containers[0].ports[0].protocol: Unsupported value: "HTTP": supported values: "SCTP", "TCP", "UDP"',
  );
  includes(
    podYaml('name: x', '{name: c, command: [x], ports: [{containerPort: 80, name: Web_Port}]}'),
    'spec.containers[0].ports[0].name: Invalid value: "Web_Port": must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)',
  );
  includes(
    podYaml(
      'name: x',
      '{name: c, command: [x], ports: [{containerPort: 80, hostPort: 8080}]}, {name: d, command: [x], ports: [{containerPort: 81, hostPort: 8080}]}',
    ),
    'spec.containers[1].ports[0].hostPort: Duplicate value: "8080/TCP"',
  );
  includes(
    podYaml('name: x', '{name: c, command: [x], livenessProbe: {periodSeconds: 1}}'),
    'spec.containers[0].livenessProbe: Required value: must specify a handler type',
  );
  includes(
    podYaml(
      'name: x',
      '{name: c, command: [x], livenessProbe: {exec: {command: [x]}, tcpSocket: {port: 80}}}',
    ),
    'spec.containers[0].livenessProbe.tcpSocket: Forbidden: may not specify more than 1 handler type',
  );
  includes(
    podYaml(
      'name: x',
      '{name: c, command: [x], livenessProbe: {exec: {command: [x]}, periodSeconds: -1}}',
    ),
    'spec.containers[0].livenessProbe.periodSeconds: Invalid value: -1: must be greater than or equal to 0',
  );
  includes(
    podYaml(
      'name: x',
      '{name: c, command: [x], livenessProbe: {exec: {command: [x]}, successThreshold: 2}}',
    ),
    'spec.containers[0].livenessProbe.successThreshold: Invalid value: 2: must be 1',
  );
  includes(
    podYaml('name: x', '{name: c, command: [x], readinessProbe: {httpGet: {port: 99999}}}'),
    'spec.containers[0].readinessProbe.httpGet.port: Invalid value: 99999: must be between 1 and 65535, inclusive',
  );
  includes(
    podYaml('name: x', '{name: Bad, command: [x]}'),
    'spec.containers[0].name: Invalid value: "Bad": a lowercase RFC 1123 label must consist of',
  );
});

test('a uid in the manifest: kept in the two real forms (the reference keeps any), refused otherwise so it cannot become a path', () => {
  const hash = '0123456789abcdef0123456789abcdef';
  const uuid = '4D3C2B1A-0F9E-4D8C-8B7A-6F5E4D3C2B1A';
  assert.equal(
    staticPodsFromManifest(podYaml(`name: x, uid: ${hash}`), 'x.yaml', opts)[0]?.metadata.uid,
    hash,
  );
  assert.equal(
    staticPodsFromManifest(podYaml(`name: x, uid: ${uuid}`), 'x.yaml', opts)[0]?.metadata.uid,
    uuid,
  );
  const accepted =
    'must be a 32-character lower-case hex hash (the form of a generated static pod UID) or an RFC 4122 UUID';
  for (const bad of [
    '../../victim',
    '/etc',
    '%2e%2e',
    'abc',
    hash.toUpperCase(),
    `${hash}0`,
    'a/b',
  ]) {
    includes(
      podYaml(`name: x, uid: "${bad}"`),
      `metadata.uid: Invalid value: ${JSON.stringify(bad)}: ${accepted}`,
    );
  }
  // without a uid: the hash of pod, node and source
  assert.match(
    staticPodsFromManifest(podYaml('name: x'), 'x.yaml', opts)[0]?.metadata.uid ?? '',
    /^[0-9a-f]{32}$/,
  );
});

test('a manifest without a pod says why: null, comments only, separators only; bytes that are not UTF-8 are refused', () => {
  assert.deepEqual(
    staticPodsFromManifest('  \n', 'x.yaml', opts),
    [],
    'blank: no pods (the caller decides)',
  );
  assert.equal(rejection('null\n'), 'x.yaml: is null, no pod');
  assert.equal(rejection('~'), 'x.yaml: is null, no pod');
  assert.equal(rejection('# a comment\n# another\n'), 'x.yaml: holds only comments, no pod');
  assert.equal(rejection('---\n'), 'x.yaml: holds only YAML document separators, no pod');
  assert.equal(
    rejection('---\n# c\n---\n...\n'),
    'x.yaml: holds only YAML document separators, no pod',
  );
  assert.throws(
    () => manifestText(Buffer.from([0x6b, 0x69, 0xff, 0xfe, 0x0a]), 'x.yaml'),
    (err: unknown) =>
      err instanceof ManifestError && err.message === 'x.yaml: is not valid UTF-8 text',
  );
});
