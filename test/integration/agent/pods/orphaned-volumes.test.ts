// Pod directories an agent left behind when it stopped without tearing its pods down (killed, a
// crash, a reboot): a real agent starts with such a directory under its root, its volumes real
// tmpfs mounts (a secret-like volume and an emptyDir medium Memory), and its housekeeping
// unmounts them and removes the directory; a second orphan made while the agent's static pod
// runs goes too, and that pass leaves the running pod's directory (on Docker its emptyDir medium
// Memory tmpfs still mounted; process:// mounts no volumes, so there its directory holds logs).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { runAgent } from '../../../../src/agent/start/agent.js';
import { systemMounter } from '../../../../src/agent/volume/mounts.js';
import { recordingLogger } from '../../../helpers/recording-logger.js';
import { skipOutsideCi } from '../../../helpers/skip-outside-ci.js';
import { tempDir, testConfig, testFlags, waitFor } from './agent-harness.js';
import {
  DOCKER_ENDPOINT,
  dockerSkipReason,
  killProcessPods,
  removeDockerPodsNamed,
} from './runtimes.js';

const notRoot =
  process.getuid?.() === 0 ? undefined : skipOutsideCi('root', 'mounting tmpfs needs root');
const skips = {
  process: notRoot,
  docker: notRoot ?? (await dockerSkipReason()),
};

const ORPHANS = ['0f6d1c2e-orphan-1', '7a9e3b40-orphan-2'] as const;

function manifest(runtime: 'process' | 'docker'): string {
  const docker = `    image: busybox:local
    command: [sleep, "300"]
    volumeMounts: [{name: mem, mountPath: /mem}]
  volumes:
  - name: mem
    emptyDir: {medium: Memory, sizeLimit: 1Mi}
`;
  const proc = `    image: none
    command: [sleep, "300"]
`;
  return `apiVersion: v1
kind: Pod
metadata: {name: keeper, namespace: default}
spec:
  terminationGracePeriodSeconds: 1
  containers:
  - name: c
${runtime === 'docker' ? docker : proc}`;
}

/** A pod directory as an agent leaves it: tmpfs volumes with files, a hosts file. */
async function leaveOrphan(root: string, uid: string): Promise<string[]> {
  const m = systemMounter();
  const volumes = ['token', 'scratch'].map((v) => join(root, 'pods', uid, 'volumes', v));
  for (const v of volumes) {
    await mkdir(v, { recursive: true });
    await m.mountTmpfs(v, 1024 * 1024);
    await writeFile(join(v, 'data'), 'left behind');
  }
  await writeFile(join(root, 'pods', uid, 'etc-hosts'), '127.0.0.1 localhost\n');
  return volumes;
}

/** Waits for the orphan's directory to be gone and none of its volumes to be mounted. */
async function cleaned(root: string, uid: string, volumes: readonly string[]): Promise<void> {
  const m = systemMounter();
  await waitFor(
    `orphan ${uid} unmounted and removed`,
    async () =>
      !existsSync(join(root, 'pods', uid)) &&
      (await m.mountsUnder(join(root, 'pods'))).every((p) => !volumes.includes(p)),
    30_000,
    100,
  );
}

for (const runtime of ['process', 'docker'] as const) {
  test(
    `${runtime}: an agent started over the pod directory of a pod that is gone unmounts its tmpfs volumes and removes it; a running pod keeps its directory and volume`,
    { skip: skips[runtime], timeout: 120_000 },
    async (t) => {
      const dir = await tempDir('na-orphan-vol-');
      const root = join(dir.path, 'root');
      const node = `orphans-${randomBytes(3).toString('hex')}`;
      const manifests = join(dir.path, 'manifests');
      await mkdir(manifests);
      await writeFile(join(manifests, 'keeper.yaml'), manifest(runtime));
      const ac = new AbortController();
      const run: { agent?: Promise<number> } = {};
      const m = systemMounter();
      t.after(async () => {
        ac.abort();
        await run.agent?.catch(() => 1);
        if (runtime === 'docker') await removeDockerPodsNamed(`keeper-${node}`);
        else await killProcessPods(root);
        for (const p of await m.mountsUnder(dir.path)) await m.unmount(p).catch(() => undefined);
        await dir.cleanup();
      });
      const first = await leaveOrphan(root, ORPHANS[0]);
      assert.equal((await m.mountsUnder(join(root, 'pods'))).length, 2, 'the orphan is mounted');
      const log = recordingLogger();
      run.agent = runAgent({
        config: testConfig(root, {
          containerRuntimeEndpoint: runtime === 'docker' ? DOCKER_ENDPOINT : 'process://',
          staticPodPath: manifests,
        }),
        flags: testFlags(root, { hostnameOverride: node }),
        logger: log,
        signal: ac.signal,
      });
      await cleaned(root, ORPHANS[0], first);
      const keeperUid = await waitFor(
        "the static pod's directory",
        async () => (await readdir(join(root, 'pods'))).find((n) => n !== ORPHANS[0]),
        60_000,
        100,
      );
      const keeperVolume = join(root, 'pods', keeperUid, 'volumes', 'mem');
      if (runtime === 'docker')
        await waitFor(
          "the static pod's emptyDir tmpfs",
          async () => (await m.isMountPoint(keeperVolume))?.fsType === 'tmpfs',
          60_000,
          100,
        );
      // a second orphan while the static pod runs: the pass that removes it spares the pod
      const second = await leaveOrphan(root, ORPHANS[1]);
      await cleaned(root, ORPHANS[1], second);
      assert.deepEqual(await readdir(join(root, 'pods')), [keeperUid]);
      assert.deepEqual(
        await m.mountsUnder(join(root, 'pods')),
        runtime === 'docker' ? [keeperVolume] : [],
        "the static pod's volume is the one mount left",
      );
      const removed = log.lines.filter((l) => /^orphaned pod "[^"]+" found; /.test(l.msg));
      assert.deepEqual(
        removed.map((l) => {
          const u = l.fields['unmounted'];
          return [l.fields['podUID'], Array.isArray(u) ? u.map(String).sort() : u];
        }),
        [
          [ORPHANS[0], [...first].sort()],
          [ORPHANS[1], [...second].sort()],
        ],
      );
    },
  );
}
