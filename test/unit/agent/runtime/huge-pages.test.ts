// A CRI container's hugetlb limits as the reference sets them: every size the host offers, the
// container's limit for it or 0; sizes spelt as libcontainer spells them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { hugepageLimits, pageSizeText } from '../../../../src/agent/runtime/settings/huge-pages.js';
import { linuxResources } from '../../../../src/agent/runtime/cri/container-config.js';
import type { Container, Pod } from '../../../../src/agent/pod/types.js';

const MI2 = 2 * 1024 ** 2;
const GI1 = 1024 ** 3;

test('page sizes as the runtime spells them', () => {
  assert.equal(pageSizeText(MI2), '2MB');
  assert.equal(pageSizeText(GI1), '1GB');
  assert.equal(pageSizeText(64 * 1024), '64KB');
  assert.equal(pageSizeText(32 * 1024 ** 2), '32MB');
});

test("every host size is limited: the container's hugepages-<size> limit, else 0", () => {
  const c = {
    name: 'c',
    resources: { limits: { memory: '1Gi', 'hugepages-2Mi': '100Mi', 'hugepages-512Mi': '1Gi' } },
  } as Container;
  assert.deepEqual(hugepageLimits(c, [GI1, MI2]), [
    { page_size: '1GB', limit: 0 },
    { page_size: '2MB', limit: 100 * 1024 ** 2 },
  ]);
  assert.deepEqual(hugepageLimits({ name: 'c' } as Container, [MI2]), [
    { page_size: '2MB', limit: 0 },
  ]);
  assert.deepEqual(hugepageLimits(c, []), [], 'a host without huge pages: none');
});

test('the CRI resources carry them when the host has huge pages', () => {
  const pod = {
    metadata: { name: 'p', namespace: 'n', uid: 'u' },
    spec: { containers: [] },
  } as unknown as Pod;
  const c = {
    name: 'c',
    resources: { limits: { 'hugepages-2Mi': '4Mi', memory: '64Mi' } },
  } as Container;
  const settings = {
    cpu: { cfsQuota: true, cfsQuotaPeriodUs: 100_000 },
    podPidsLimit: -1,
    seccompDefault: false,
    memoryCapacity: 8 * GI1,
  };
  assert.deepEqual(
    linuxResources(pod, c, { ...settings, hugePageSizes: [GI1, MI2] }).hugepage_limits,
    [
      { page_size: '1GB', limit: 0 },
      { page_size: '2MB', limit: 4 * 1024 ** 2 },
    ],
  );
  assert.equal(linuxResources(pod, c, settings).hugepage_limits, undefined);
});
