// Pod sync and the pod cgroups (--cgroups-per-qos): a pod's cgroup is ensured before its sandbox,
// removed after its containers when the pod goes or finishes, and housekeeping removes the
// cgroups of pods that are neither wanted, known to a worker, nor running.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Pod } from '../../../../src/agent/pod/types.js';
import { makeWorld, pod } from './harness.js';

function recorder() {
  const events: string[] = [];
  return {
    events,
    lifecycle: {
      ensure: async (p: Pod) => {
        events.push(`ensure ${p.metadata.uid}`);
      },
      remove: async (p: Pod) => {
        events.push(`remove ${p.metadata.uid}`);
      },
    },
  };
}

test('the pod cgroup is ensured before the sandbox starts and removed after the containers when the pod goes', async () => {
  const r = recorder();
  const w = makeWorld({ podCgroups: r.lifecycle });
  const origRun = w.runtime.runPodSandbox.bind(w.runtime);
  w.runtime.runPodSandbox = async (cfg) => {
    r.events.push(`sandbox ${cfg.pod.metadata.uid}`);
    return origRun(cfg);
  };
  const p = pod('a', { containers: [{ name: 'web', command: ['x'] }] });
  w.manager.handleUpdate({ op: 'ADD', source: 'file', pods: [p] });
  await w.settle();
  assert.deepEqual(r.events.slice(0, 2), ['ensure a', 'sandbox a']);
  w.manager.handleUpdate({ op: 'REMOVE', source: 'file', pods: [p] });
  await w.settle();
  assert.equal(w.runtime.containers.size, 0);
  assert.equal(r.events.at(-1), 'remove a');
});

test('housekeeping keeps the cgroups and pod directories of wanted and running pods and asks to remove the rest, once every source was seen', async () => {
  let seen = false;
  const asked: ((uid: string) => boolean)[] = [];
  const askedDirs: ((uid: string) => boolean)[] = [];
  const w = makeWorld({
    seenAllSources: () => seen,
    cleanupOrphanCgroups: async (keep) => {
      asked.push(keep);
    },
    cleanupOrphanPodDirs: async (keep) => {
      askedDirs.push(keep);
    },
  });
  const wanted = pod('wanted', { containers: [{ name: 'w', command: ['x'] }] });
  w.manager.handleUpdate({ op: 'ADD', source: 'file', pods: [wanted] });
  await w.settle();
  const stray = pod('stray', { containers: [{ name: 's', command: ['x'] }] });
  const sb = await w.runtime.runPodSandbox({ pod: stray, attempt: 0 });
  await w.runtime.startContainer(
    await w.runtime.createContainer({
      pod: stray,
      container: stray.spec.containers[0]!,
      kind: 'app',
      attempt: 0,
      specHash: 'h',
      sandboxId: sb,
      volumePaths: {},
    }),
  );
  await w.manager.cleanupOrphans();
  assert.equal(asked.length + askedDirs.length, 0, 'nothing before every source has reported');
  seen = true;
  await w.manager.cleanupOrphans();
  const keep = asked[0];
  assert.ok(keep !== undefined);
  assert.equal(keep('wanted'), true);
  assert.equal(
    keep('stray'),
    true,
    'its containers still run: its cgroup stays until they are gone',
  );
  assert.equal(keep('orphan-without-containers'), false);
  const keepDir = askedDirs[0];
  assert.ok(keepDir !== undefined, 'the pod directories are looked at in the same pass');
  assert.deepEqual(['wanted', 'stray', 'orphan-without-containers'].map(keepDir), [
    true,
    true,
    false,
  ]);
});
