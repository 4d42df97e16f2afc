// nodeInfo as the reference kubelet fills it on the same machine: containerd 1.6.20~ds1 reported
// as containerd://1.6.20 (ParseGeneric), the system UUID from the first readable of cadvisor's
// files (here, without DMI, /etc/machine-id), kubeProxyVersion the agent's version.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  SYSTEM_UUID_FILES,
  firstReadable,
  genericVersion,
  nodeSystemInfo,
  runtimeVersionText,
} from '../../../../src/agent/node/node-info.js';

test('the runtime version as a generic version, as the reference reports it', () => {
  assert.equal(runtimeVersionText('containerd', '1.6.20~ds1'), 'containerd://1.6.20');
  assert.equal(runtimeVersionText('containerd', 'v1.7.24'), 'containerd://1.7.24');
  assert.equal(runtimeVersionText('cri-o', '1.31.0-rc.1+dev'), 'cri-o://1.31.0');
  assert.equal(runtimeVersionText('docker', '24.0.5'), 'docker://24.0.5');
  // not a generic version: kept as the runtime gave it
  assert.equal(runtimeVersionText('x', 'unknown'), 'x://unknown');
  assert.equal(genericVersion('7'), undefined, 'one component');
  assert.equal(genericVersion('01.2'), undefined, 'a leading zero in the first component');
  assert.equal(genericVersion('1.02.3'), '1.2.3', 'later components may have one');
  assert.equal(genericVersion('  v2.0'), '2.0');
});

test('the system UUID: the first of the files that can be read, NULs and spaces trimmed', async (t) => {
  assert.deepEqual(SYSTEM_UUID_FILES, [
    '/sys/class/dmi/id/product_uuid',
    '/proc/device-tree/system-id',
    '/proc/device-tree/vm,uuid',
    '/etc/machine-id',
  ]);
  const dir = await mkdtemp(join(tmpdir(), 'node-info-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  await writeFile(join(dir, 'vm-uuid'), 'abc-123\0\0');
  await writeFile(join(dir, 'machine-id'), '3d1219c7c4c5404aaa1f6d2a48adfda4\n');
  assert.equal(
    await firstReadable([join(dir, 'absent'), join(dir, 'vm-uuid'), join(dir, 'machine-id')]),
    'abc-123',
  );
  assert.equal(
    await firstReadable([join(dir, 'absent'), join(dir, 'machine-id')]),
    '3d1219c7c4c5404aaa1f6d2a48adfda4',
  );
  assert.equal(await firstReadable([join(dir, 'absent')]), '');
});

test('kubeProxyVersion is the agent version, as the reference 1.32 reports it', async () => {
  const info = await nodeSystemInfo({
    agentVersion: 'v1.32.13',
    containerRuntimeVersion: 'containerd://1.6.20',
  });
  assert.equal(info.kubeProxyVersion, 'v1.32.13');
  assert.equal(info.kubeletVersion, 'v1.32.13');
  assert.equal(info.systemUUID, await firstReadable(SYSTEM_UUID_FILES));
});
