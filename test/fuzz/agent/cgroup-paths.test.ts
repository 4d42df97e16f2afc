// Cgroup names from flags (--cgroup-root, the reserved cgroups) and pod UIDs from manifests and the
// API: whatever the string, a cgroup directory the agent would touch stays inside the mount, or
// the name is refused with an error (never a crash, never a path outside).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { resolve, sep } from 'node:path';
import fc from 'fast-check';
import { CgroupFs } from '../../../src/agent/cgroups/cgroup-fs.js';
import {
  driverName,
  parseCgroupfs,
  parseSystemd,
  podCgroupName,
} from '../../../src/agent/cgroups/names.js';
import { fuzzParams } from '../../helpers/fuzz-runs.js';

const MOUNT = '/nonexistent-cgroup-mount';
const segment = fc.oneof(
  fc.constantFrom('.', '..', '', 'a', 'pod', '-', '_', '\u0000', 'x.slice'),
  fc.string({ maxLength: 8 }),
);
const name = fc.array(segment, { maxLength: 6 }).map((s) => s.join('/'));

test('cgroup paths from any root, reserved cgroup or pod UID stay inside the cgroup mount or are refused', async () => {
  const fs = new CgroupFs({ mount: MOUNT, version: 'v2' });
  await fc.assert(
    fc.asyncProperty(
      name,
      fc.string({ maxLength: 20 }),
      fc.constantFrom('cgroupfs', 'systemd') as fc.Arbitrary<'cgroupfs' | 'systemd'>,
      async (root, uid, driver) => {
        const parse = driver === 'systemd' ? parseSystemd : parseCgroupfs;
        let path: string;
        try {
          path = driverName(podCgroupName([...parse(root), 'kubepods'], 'Burstable', uid), driver);
        } catch (err) {
          assert.match((err as Error).message, /cannot name a cgroup$/);
          return;
        }
        try {
          for (const d of await fs.dirs(path))
            assert.ok(resolve(d) === d && d.startsWith(`${MOUNT}${sep}`), d);
        } catch (err) {
          assert.match((err as Error).message, /^invalid cgroup path .* is not allowed$/);
        }
      },
    ),
    fuzzParams(300),
  );
});
