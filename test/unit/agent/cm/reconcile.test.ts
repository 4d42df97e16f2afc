// The CPU manager's reconcile loop: every --cpu-manager-reconcile-period, the CPUs of pods that
// are gone go back to the shared pool and running shared-pool containers are moved to it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildResourceManagers } from '../../../../src/agent/cm/build.js';
import type { CpusetRuntime } from '../../../../src/agent/cm/resource-managers.js';
import { defaultConfiguration } from '../../../../src/agent/config/defaults.js';
import type { Pod } from '../../../../src/agent/pod/types.js';
import { ManualClock } from '../../../helpers/manual-clock.js';
import { recordingLogger } from '../../../helpers/recording-logger.js';
import { fakeSysfs, gridLayout } from '../../../helpers/fake-sysfs.js';

function pod(uid: string, cpu: string, guaranteed: boolean): Pod {
  const resources = guaranteed ? { limits: { cpu, memory: '64Mi' } } : { requests: { cpu } };
  return {
    metadata: { uid, name: uid, namespace: 'ns' },
    spec: { containers: [{ name: 'c', image: 'busybox:local', resources }] },
  };
}

test('reconcile every --cpu-manager-reconcile-period: the shared-pool container follows the pool, the CPUs of a gone pod come back', async (t) => {
  const fs = await fakeSysfs(gridLayout(1, 4, 1, 1024 ** 3));
  const root = await mkdtemp(join(tmpdir(), 'na-cm-rec-'));
  const m = await buildResourceManagers({
    config: {
      ...defaultConfiguration('flags'),
      cpuManagerPolicy: 'static',
      reservedSystemCPUs: '0',
    },
    gateEnabled: () => true,
    rootDir: root,
    runtimeType: 'docker',
    logger: recordingLogger(),
    sysfsRoot: fs.root,
  });
  t.after(async () => {
    await m.flush();
    await fs.cleanup();
    await rm(root, { recursive: true, force: true });
  });
  const shared = pod('shared', '100m', false);
  const excl = pod('excl', '2', true);
  let active: Pod[] = [shared];
  const updates: [string, string][] = [];
  const runtime: CpusetRuntime = {
    listContainers: () =>
      Promise.resolve(
        active.map((p) => ({
          id: `id-${p.metadata.uid}`,
          podUid: p.metadata.uid,
          name: 'c',
          state: 'running',
        })),
      ),
    updateCpuset: (id, cpus) => {
      updates.push([id, cpus]);
      return Promise.resolve();
    },
  };
  const clock = new ManualClock();
  const ac = new AbortController();
  const loop = m.startReconcile({
    activePods: () => active,
    sourcesReady: () => true,
    runtime,
    periodMs: 5000,
    clock,
    signal: ac.signal,
  });
  // one period: the loop sleeps, time passes, the pass runs and the loop sleeps again
  const tick = async (): Promise<void> => {
    await clock.waitForSleepers(1);
    clock.advance(5000);
    await clock.waitForSleepers(1);
  };
  await tick();
  assert.deepEqual(updates, [['id-shared', '0-3']]);
  m.admit(excl);
  active = [shared, excl];
  await tick();
  assert.deepEqual(
    updates.slice(1),
    [
      ['id-shared', '0,3'],
      ['id-excl', '1-2'],
    ],
    'the pool shrank by the exclusive CPUs',
  );
  active = [shared];
  await tick();
  assert.equal(m.cpu.defaultCpuSet().toString(), '0-3', 'the gone pod released its CPUs');
  assert.deepEqual(updates.slice(3), [['id-shared', '0-3']]);
  await tick();
  assert.equal(updates.length, 4, 'nothing changed: no update');
  // admission releases what gone pods hold before it allocates, as the reference's Allocate
  const again = pod('again', '2', true);
  m.admit(again);
  active = [shared];
  assert.deepEqual(
    m.admit(pod('third', '2', true)),
    { admit: true },
    'the CPUs of "again", no longer active, were released first',
  );
  ac.abort();
  await loop;
});
