// When a memory-backed volume's tmpfs gets noswap, as the reference decides it: a kernel from 6.4
// on, else a test mount; never in a user namespace; asked once.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  inUserNamespace,
  kernelKnowsNoswap,
  noswapSupport,
} from '../../../../src/agent/volume/tmpfs-noswap.js';
import { tmpfsOptions } from '../../../../src/agent/volume/mounts.js';

test('kernel versions: 6.4 and later know noswap', () => {
  assert.equal(kernelKnowsNoswap('6.18.44-fc-v857'), true);
  assert.equal(kernelKnowsNoswap('6.4.0'), true);
  assert.equal(kernelKnowsNoswap('7.0.1'), true);
  assert.equal(kernelKnowsNoswap('6.3.13-generic'), false);
  assert.equal(kernelKnowsNoswap('5.15.0-1-amd64'), false);
  assert.equal(kernelKnowsNoswap('unknown'), false);
});

test("user namespaces: only the initial map is the host's", () => {
  assert.equal(inUserNamespace('         0          0 4294967295\n'), false);
  assert.equal(inUserNamespace('         0     100000      65536\n'), true);
  assert.equal(inUserNamespace(''), true, 'unreadable: treated as a child namespace');
});

test('the answer: user namespace first, then the kernel, then a test mount; asked once', async () => {
  let mounts = 0;
  const probe = (release: string, uidMap: string, mountOk: boolean) =>
    noswapSupport({
      kernelRelease: () => release,
      uidMap: () => Promise.resolve(uidMap),
      testMount: () => {
        mounts++;
        return mountOk ? Promise.resolve() : Promise.reject(new Error('EINVAL'));
      },
    });
  const host = '0 0 4294967295';
  assert.equal(await probe('6.18.0', '0 100000 65536', true)(), false);
  assert.equal(await probe('6.18.0', host, false)(), true);
  assert.equal(mounts, 0, 'a new kernel needs no test mount');
  assert.equal(await probe('5.10.0', host, true)(), true);
  assert.equal(await probe('5.10.0', host, false)(), false);
  assert.equal(mounts, 2);
  const once = probe('5.10.0', host, true);
  await once();
  await once();
  assert.equal(mounts, 3, 'memoised');
});

test('mount options: size and noswap joined in one -o', () => {
  assert.deepEqual(tmpfsOptions(1048576, true), ['-o', 'size=1048576,noswap']);
  assert.deepEqual(tmpfsOptions(undefined, true), ['-o', 'noswap']);
  assert.deepEqual(tmpfsOptions(1048576, false), ['-o', 'size=1048576']);
  assert.deepEqual(tmpfsOptions(undefined, false), []);
});
