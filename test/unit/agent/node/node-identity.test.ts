import { namesFor } from '../../../../src/common/names.js';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { NetworkInterfaceInfo } from 'node:os';
import {
  nodeAddresses,
  nodeName,
  defaultRouteInterfaces,
} from '../../../../src/agent/node/identity.js';
import {
  defaultNodeLabels,
  registrationLabels,
  validateNodeLabels,
} from '../../../../src/agent/node/labels.js';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { allocatableThresholds, nodeResources } from '../../../../src/agent/node/capacity.js';
import { hostHugePages } from '../../../../src/agent/runtime/settings/huge-pages.js';
import { parseThresholds } from '../../../../src/agent/eviction/thresholds.js';
import { ConfigError } from '../../../../src/common/util/errors.js';

const iface = (address: string, family: 'IPv4' | 'IPv6', internal = false): NetworkInterfaceInfo =>
  ({
    address,
    family,
    internal,
    netmask: '',
    mac: '',
    cidr: null,
    ...(family === 'IPv6' ? { scopeid: 0 } : {}),
  }) as NetworkInterfaceInfo;
const sources = {
  interfaces: () => ({
    lo: [iface('127.0.0.1', 'IPv4', true)],
    eth1: [iface('10.9.9.9', 'IPv4')],
    eth0: [iface('192.168.1.5', 'IPv4'), iface('fe80::1', 'IPv6'), iface('fd00::5', 'IPv6')],
  }),
  routes: () => ({ v4: 'eth0', v6: 'eth0' }),
};

test('node name: --hostname-override or the host name, lower-cased', () => {
  assert.equal(nodeName(undefined, 'MyHost'), 'myhost');
  assert.equal(nodeName('Node-A', 'MyHost'), 'node-a');
  assert.equal(nodeName('  ', 'h'), 'h');
});

test('addresses: default-route interface, --node-ip, dual-stack and :: preferring IPv6', () => {
  assert.deepEqual(nodeAddresses(undefined, 'h', sources), [
    { type: 'InternalIP', address: '192.168.1.5' },
    { type: 'Hostname', address: 'h' },
  ]);
  assert.deepEqual(nodeAddresses('10.0.0.7', 'h', sources)[0], {
    type: 'InternalIP',
    address: '10.0.0.7',
  });
  assert.deepEqual(nodeAddresses('::', 'h', sources)[0], {
    type: 'InternalIP',
    address: 'fd00::5',
  });
  assert.deepEqual(
    nodeAddresses('10.0.0.7,fd00::7', 'h', sources).map((a) => a.address),
    ['10.0.0.7', 'fd00::7', 'h'],
  );
  assert.throws(() => nodeAddresses('10.0.0.7,10.0.0.8', 'h', sources), /one IPv4 and one IPv6/);
  assert.throws(() => nodeAddresses('nope', 'h', sources), /"nope" is not an IP address/);
  const routes = defaultRouteInterfaces((p) =>
    p.endsWith('/route')
      ? 'Iface\tDestination\tGateway\tFlags\tRefCnt\tUse\tMetric\tMask\nens3\t00000000\t0101A8C0\t0003\t0\t0\t0\t00000000\n'
      : '00000000000000000000000000000000 00 00000000000000000000000000000000 00 fe800000000000000000000000000001 00000400 00000001 00000000 00000003 ens3\n',
  );
  assert.deepEqual(routes, { v4: 'ens3', v6: 'ens3' });
});

test('labels: defaults with beta forms; --node-labels in the domain limited to allowed ones', () => {
  const d = defaultNodeLabels(namesFor('platform', 'platform.io'), 'n1', 'linux', 'amd64');
  assert.deepEqual(d, {
    'platform.io/hostname': 'n1',
    'platform.io/os': 'linux',
    'platform.io/arch': 'amd64',
    'beta.platform.io/os': 'linux',
    'beta.platform.io/arch': 'amd64',
  });
  validateNodeLabels(
    {
      'node.platform.io/role': 'x',
      'platlet.platform.io/a': 'b',
      'topology.platform.io/zone': 'z1',
      'example.com/x': 'y',
      plain: 'v',
    },
    namesFor('platform', 'platform.io'),
  );
  assert.throws(
    () =>
      validateNodeLabels(
        { 'platform.io/role': 'x', 'foo.platform.io/bar': 'y' },
        namesFor('platform', 'platform.io'),
      ),
    (e: unknown) =>
      e instanceof ConfigError &&
      /unknown 'platform.io' labels specified with --node-labels: \[foo.platform.io\/bar platform.io\/role\]/.test(
        e.message,
      ),
  );
  assert.throws(
    () => validateNodeLabels({ 'bad key!': 'x' }, namesFor('platform', 'platform.io')),
    /invalid label key/,
  );
  assert.equal(
    registrationLabels(namesFor('platform', 'k8s.io'), 'n1', { 'k8s.io/hostname': 'custom' })[
      'k8s.io/hostname'
    ],
    'custom',
  );
});

test('allocatable is capacity less system-reserved, plat-reserved and hard eviction thresholds', () => {
  const hard = parseThresholds({
    evictionHard: { 'memory.available': '100Mi', 'nodefs.available': '10%' },
  });
  const r = nodeResources(
    { cpuCores: 4, memoryBytes: 8 * 1024 ** 3, ephemeralStorageBytes: 100 * 1024 ** 3 },
    {
      maxPods: 110,
      systemReserved: { cpu: '500m', memory: '1Gi' },
      platReserved: { cpu: '250m', memory: '512Mi', 'ephemeral-storage': '1Gi' },
      hardThresholds: hard,
    },
  );
  // Bytes as the reference's BinarySI quantities: the largest power of 1024 that divides them
  // (kube-apiserver 1.32 answers 8388608Ki as 8Gi).
  assert.deepEqual(r.capacity, {
    cpu: '4',
    memory: '8Gi',
    pods: '110',
    'ephemeral-storage': '100Gi',
  });
  assert.equal(r.allocatable.cpu, '3250m');
  assert.equal(
    r.allocatable.memory,
    `${(8 * 1024 ** 3 - 1024 ** 3 - 512 * 1024 ** 2 - 100 * 1024 ** 2) / 1024 ** 2}Mi`,
  );
  // 10% is the float32 0.100000001490116 in the reference: 10,737,418,400 bytes of 100Gi, not
  // 10Gi; the reference's kubelet on a 264212084Ki disk gives 243497856212 (this same arithmetic).
  assert.equal(
    r.allocatable['ephemeral-storage'],
    String(100 * 1024 ** 3 - 1024 ** 3 - 10737418400),
  );
  assert.equal(
    nodeResources(
      { cpuCores: 2, memoryBytes: 1024 ** 3, ephemeralStorageBytes: 264212084 * 1024 },
      { maxPods: 110, hardThresholds: hard },
    ).allocatable['ephemeral-storage'],
    '243497856212',
  );
  assert.equal(
    nodeResources(
      { cpuCores: 2, memoryBytes: 1024, ephemeralStorageBytes: 0 },
      { maxPods: 110, podsPerCore: 10 },
    ).capacity.pods,
    '20',
  );
});

test('--experimental-allocatable-ignore-eviction: allocatable leaves the hard eviction thresholds out', () => {
  const hard = parseThresholds({
    evictionHard: { 'memory.available': '100Mi', 'nodefs.available': '10%' },
  });
  const facts = { cpuCores: 4, memoryBytes: 8 * 1024 ** 3, ephemeralStorageBytes: 100 * 1024 ** 3 };
  const reserved = { maxPods: 110, systemReserved: { memory: '1Gi' } };
  const ignoring = nodeResources(facts, {
    ...reserved,
    hardThresholds: allocatableThresholds(hard, true),
  });
  assert.equal(ignoring.allocatable.memory, '7Gi', '8Gi - 1Gi system-reserved');
  assert.equal(ignoring.allocatable['ephemeral-storage'], '100Gi', 'the whole disk');
  const counting = nodeResources(facts, {
    ...reserved,
    hardThresholds: allocatableThresholds(hard, false),
  });
  assert.equal(counting.allocatable.memory, '7068Mi', '8Gi - 1Gi - 100Mi');
  assert.equal(
    counting.allocatable['ephemeral-storage'],
    String(100 * 1024 ** 3 - 10737418400),
    '100Gi - 10% (a float32 10%, as the reference)',
  );
});

test('--local-storage-capacity-isolation=false: ephemeral-storage is neither in capacity nor in allocatable', () => {
  const facts = { cpuCores: 4, memoryBytes: 8 * 1024 ** 3, ephemeralStorageBytes: 100 * 1024 ** 3 };
  const off = nodeResources(facts, { maxPods: 110, localStorageCapacityIsolation: false });
  assert.deepEqual(off.capacity, { cpu: '4', memory: '8Gi', pods: '110' });
  assert.deepEqual(Object.keys(off.allocatable), ['cpu', 'memory', 'pods']);
  assert.equal(
    nodeResources(facts, { maxPods: 110 }).capacity['ephemeral-storage'],
    '100Gi',
    'on by default',
  );
});

test('huge pages: hugepages-<size> for each size the kernel offers, in capacity and allocatable (less what is reserved); allocatable memory less the huge pages, as the reference', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'hugepages-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  for (const [size, n] of [
    ['2048kB', '512\n'],
    ['1048576kB', '0\n'],
    ['64kB', 'garbage\n'],
  ] as const) {
    await mkdir(join(dir, `hugepages-${size}`));
    await writeFile(join(dir, `hugepages-${size}`, 'nr_hugepages'), n);
  }
  await mkdir(join(dir, 'not-a-size'));
  const pages = hostHugePages(dir);
  assert.deepEqual(pages, [
    { pageBytes: 1024 ** 3, count: 0 },
    { pageBytes: 2 * 1024 ** 2, count: 512 },
  ]);
  assert.deepEqual(hostHugePages(join(dir, 'absent')), [], 'no huge page support: none');
  const r = nodeResources(
    { cpuCores: 2, memoryBytes: 8 * 1024 ** 3, ephemeralStorageBytes: 0, hugePages: pages },
    { maxPods: 110, systemReserved: { memory: '1Gi', 'hugepages-2Mi': '256Mi' } },
  );
  // The reference kubelet on this machine (no pages set aside): "hugepages-1Gi": "0", "hugepages-2Mi": "0".
  assert.equal(r.capacity['hugepages-1Gi'], '0');
  assert.equal(r.capacity['hugepages-2Mi'], '1Gi');
  assert.equal(r.allocatable['hugepages-1Gi'], '0');
  assert.equal(r.allocatable['hugepages-2Mi'], '768Mi');
  assert.equal(r.allocatable.memory, '6Gi', '8Gi - 1Gi reserved - 1Gi of huge pages');
});
