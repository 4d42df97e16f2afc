// Every place the agent writes or deletes under its root dir, tried with `..`, absolute, encoded
// and symlinked escapes: the process runtime (pod dirs, container logs, state files and the
// records read back from them), emptyDir volumes (pod sync) and log rotation (gc). Each case
// asserts the attempt is refused and that nothing outside the root was created or deleted.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ProcessRuntime } from '../../../../src/agent/runtime/process/runtime.js';
import { PodSyncer } from '../../../../src/agent/worker/pod-sync.js';
import { PodStatusManager } from '../../../../src/agent/worker/status-manager.js';
import { ProbeManager } from '../../../../src/agent/worker/probes.js';
import { GarbageCollector } from '../../../../src/agent/gc/collector.js';
import type { Pod } from '../../../../src/agent/pod/types.js';
import type { ContainerRuntime, ImageService } from '../../../../src/agent/runtime/types.js';
import { UnsafePathError } from '../../../../src/common/util/errors.js';
import { ManualClock } from '../../../helpers/manual-clock.js';
import { recordingLogger } from '../../../helpers/recording-logger.js';
import { HOSTILE_SEGMENTS } from '../../../helpers/hostile-names.js';
import { FakeRuntime } from '../worker/fake-runtime.js';

interface Scene {
  root: string;
  outside: string;
  /** Everything under the outside dir, to assert nothing appeared or vanished there. */
  outsideTree: () => Promise<string[]>;
}

async function scene(t: { after: (fn: () => Promise<void>) => void }): Promise<Scene> {
  const base = await mkdtemp(join(tmpdir(), 'na-escape-'));
  t.after(() => rm(base, { recursive: true, force: true }));
  const root = join(base, 'root', 'deep');
  const outside = join(base, 'outside');
  await mkdir(root, { recursive: true });
  await mkdir(join(outside, 'victim'), { recursive: true });
  await writeFile(join(outside, 'victim', 'canary'), 'keep me');
  const outsideTree = async (): Promise<string[]> =>
    (await readdir(outside, { recursive: true })).map(String).sort();
  return { root, outside, outsideTree };
}

const pod = (uid: string, extra: Partial<Pod['spec']> = {}, container = 'c'): Pod => ({
  metadata: { name: 'p', namespace: 'default', uid },
  spec: { containers: [{ name: container, command: ['true'] }], ...extra },
});

const unsafe = (err: unknown): boolean => err instanceof UnsafePathError;

test('process runtime: a hostile pod UID never makes a pod dir, and never removes one, outside the root', async (t) => {
  const s = await scene(t);
  const before = await s.outsideTree();
  const rt = new ProcessRuntime({
    rootDir: s.root,
    logger: recordingLogger(),
    clock: new ManualClock(),
  });
  t.after(() => rt.close());
  // ../../../outside/victim from <root>/pods is exactly the victim dir
  for (const uid of [...HOSTILE_SEGMENTS, '../../../outside/victim', s.outside]) {
    await assert.rejects(
      rt.runPodSandbox({ pod: pod(uid), attempt: 0 }),
      unsafe,
      JSON.stringify(uid),
    );
    await assert.rejects(
      rt.createContainer({
        pod: pod(uid),
        container: { name: 'c', command: ['true'] },
        kind: 'app',
        attempt: 0,
        specHash: 'h',
        sandboxId: 'sb',
        volumePaths: {},
      }),
      unsafe,
    );
  }
  assert.deepEqual(await s.outsideTree(), before);
});

test('process runtime: a hostile container name never names a log file outside the pod dir', async (t) => {
  const s = await scene(t);
  const rt = new ProcessRuntime({
    rootDir: s.root,
    logger: recordingLogger(),
    clock: new ManualClock(),
  });
  t.after(() => rt.close());
  const uid = '0123456789abcdef0123456789abcdef';
  for (const name of [
    '../../../../outside/victim/canary',
    '/etc/passwd',
    '..%2f..%2fx',
    'a\0b',
    'x'.repeat(300),
  ]) {
    await assert.rejects(
      rt.createContainer({
        pod: pod(uid),
        container: { name, command: ['true'] },
        kind: 'app',
        attempt: 0,
        specHash: 'h',
        sandboxId: 'sb',
        volumePaths: {},
      }),
      unsafe,
      name,
    );
  }
  assert.equal(await readFile(join(s.outside, 'victim', 'canary'), 'utf8'), 'keep me');
});

test('process runtime: symbolic links in the root that lead out are refused for pod dirs and logs; removal unlinks a link, never its target', async (t) => {
  const s = await scene(t);
  const before = await s.outsideTree();
  const uid = '0123456789abcdef0123456789abcdef';
  await mkdir(join(s.root, 'pods'), { recursive: true });
  await symlink(join(s.outside, 'victim'), join(s.root, 'pods', uid));
  const rt = new ProcessRuntime({
    rootDir: s.root,
    logger: recordingLogger(),
    clock: new ManualClock(),
  });
  t.after(() => rt.close());
  await assert.rejects(
    rt.runPodSandbox({ pod: pod(uid), attempt: 0 }),
    /a symbolic link leads out/,
  );
  await assert.rejects(
    rt.createContainer({
      pod: pod(uid),
      container: { name: 'c', command: ['true'] },
      kind: 'app',
      attempt: 0,
      specHash: 'h',
      sandboxId: 'sb',
      volumePaths: {},
    }),
    /a symbolic link leads out/,
  );

  // a pod dir made properly, then its log file swapped for a link to a file outside
  const uid2 = 'fedcba9876543210fedcba9876543210';
  const sb = await rt.runPodSandbox({ pod: pod(uid2), attempt: 0 });
  const id = await rt.createContainer({
    pod: pod(uid2),
    container: { name: 'c', command: ['true'] },
    kind: 'app',
    attempt: 0,
    specHash: 'h',
    sandboxId: sb,
    volumePaths: {},
  });
  await symlink(join(s.outside, 'victim', 'canary'), join(s.root, 'pods', uid2, 'c.log'));
  await assert.rejects(rt.startContainer(id), /a symbolic link leads out/);
  assert.equal(
    await readFile(join(s.outside, 'victim', 'canary'), 'utf8'),
    'keep me',
    'nothing written through the link',
  );
  await rt.removeContainer(id);
  await rt.removePodSandbox(sb);
  assert.deepEqual(await s.outsideTree(), before, 'the pod dir removal left the link target alone');

  // <root>/pods itself a link out of the root: nothing is made or removed through it
  await rm(join(s.root, 'pods'), { recursive: true, force: true });
  await symlink(s.outside, join(s.root, 'pods'));
  await assert.rejects(
    rt.runPodSandbox({ pod: pod('victim'), attempt: 0 }),
    /a symbolic link leads out/,
  );
  assert.deepEqual(await s.outsideTree(), before);
});

test('process runtime: a tampered state file (pod UID, log file or id leading out) is not adopted, so nothing acts on its paths', async (t) => {
  const s = await scene(t);
  const before = await s.outsideTree();
  const dir = join(s.root, 'process-runtime', 'containers');
  await mkdir(dir, { recursive: true });
  const rec = (id: string, over: Record<string, unknown>): string =>
    JSON.stringify({
      id,
      podUid: 'u',
      podName: 'p',
      podNamespace: 'default',
      name: 'c',
      kind: 'app',
      attempt: 0,
      specHash: '',
      image: '',
      imageId: '',
      state: 'exited',
      exitCode: 0,
      createdAtMs: 1,
      command: ['true'],
      env: {},
      logFile: join(s.root, 'pods', 'u', 'c.log'),
      ...over,
    });
  await writeFile(join(dir, 'a1.json'), rec('a1', { podUid: '../../../outside/victim' }));
  await writeFile(
    join(dir, 'a2.json'),
    rec('a2', { logFile: join(s.outside, 'victim', 'canary') }),
  );
  await writeFile(join(dir, 'a3.json'), rec('../../../outside/victim/x', {}));
  await writeFile(join(dir, 'a4.json'), rec('a4', { name: '../../../../outside/victim/canary' }));
  await writeFile(
    join(dir, 'sb-1.json'),
    rec('sb-1', { kind: 'sandbox', podUid: '%2e%2e', logFile: '' }),
  );
  await writeFile(join(dir, 'ok.json'), rec('ok', {}));
  const logger = recordingLogger();
  const rt = new ProcessRuntime({ rootDir: s.root, logger, clock: new ManualClock() });
  t.after(() => rt.close());
  assert.deepEqual(
    (await rt.listContainers()).map((c) => c.id),
    ['ok'],
  );
  const skipped = logger.lines
    .filter((l) => l.msg === 'process runtime: unreadable state file skipped')
    .map((l) => String(l.fields.file))
    .sort();
  assert.deepEqual(skipped, ['a1.json', 'a2.json', 'a3.json', 'a4.json', 'sb-1.json']);
  assert.match(
    String(logger.lines.find((l) => l.fields.file === 'a2.json')?.fields.err),
    /is not the container's own; not adopted/,
  );
  assert.equal(rt.logPath('ok'), join(s.root, 'pods', 'u', 'c.log'));
  assert.deepEqual(await s.outsideTree(), before);
});

function syncer(root: string): PodSyncer {
  const clock = new ManualClock();
  const logger = recordingLogger();
  const runtime = new FakeRuntime(clock);
  const probes = new ProbeManager({ runtime, clock, logger, onChange: () => undefined });
  return new PodSyncer({
    runtime,
    images: runtime,
    probes,
    statuses: new PodStatusManager(),
    clock,
    logger,
    rootDir: root,
  });
}

test('emptyDir volumes: a hostile pod UID or volume name, or a link out of the root, makes no directory outside it', async (t) => {
  const s = await scene(t);
  const before = await s.outsideTree();
  const sync = syncer(s.root);
  for (const bad of [...HOSTILE_SEGMENTS, '../../../outside/victim']) {
    await assert.rejects(
      sync.syncPod(pod(bad, { volumes: [{ name: 'v', emptyDir: {} }] })),
      unsafe,
      `uid ${JSON.stringify(bad)}`,
    );
    await assert.rejects(
      sync.syncPod(
        pod('0123456789abcdef0123456789abcdef', { volumes: [{ name: bad, emptyDir: {} }] }),
      ),
      unsafe,
      `volume ${JSON.stringify(bad)}`,
    );
  }
  const uid = 'fedcba9876543210fedcba9876543210';
  await mkdir(join(s.root, 'pods', uid), { recursive: true });
  await symlink(join(s.outside, 'victim'), join(s.root, 'pods', uid, 'volumes'));
  await assert.rejects(
    sync.syncPod(pod(uid, { volumes: [{ name: 'v', emptyDir: {} }] })),
    /a symbolic link leads out/,
  );
  assert.deepEqual(await s.outsideTree(), before);
  // and a proper one is made where it belongs
  await sync.syncPod(
    pod('00000000-0000-4000-8000-000000000000', { volumes: [{ name: 'v', emptyDir: {} }] }),
  );
  assert.deepEqual(
    await readdir(join(s.root, 'pods', '00000000-0000-4000-8000-000000000000', 'volumes')),
    ['v'],
  );
});

test('log rotation: a log path outside the root, or a rotated name linked out of it, is refused and named; the file outside is untouched', async (t) => {
  const s = await scene(t);
  const big = 'x'.repeat(2048);
  await writeFile(join(s.outside, 'victim', 'canary'), big);
  const inside = join(s.root, 'pods', 'u', 'c.log');
  await mkdir(join(s.root, 'pods', 'u'), { recursive: true });
  await writeFile(inside, big);
  await symlink(join(s.outside, 'victim', 'rotated'), `${inside}.1`);
  const paths: Record<string, string> = {
    a: join(s.outside, 'victim', 'canary'),
    b: `${s.root}/../../outside/victim/canary`,
    c: inside,
  };
  const runtime = {
    listContainers: async () => Object.keys(paths).map((id) => ({ id })),
    logPath: (id: string) => paths[id],
  } as unknown as ContainerRuntime;
  const logger = recordingLogger();
  const gc = new GarbageCollector({
    runtime,
    images: {} as ImageService,
    isPodActive: () => true,
    inUseImages: () => new Set(),
    maxDeadContainers: -1,
    maxDeadPerContainer: -1,
    minContainerAgeMs: 0,
    imageHighThresholdPercent: 85,
    imageLowThresholdPercent: 80,
    imageMinAgeMs: 0,
    containerLogMaxSize: '1Ki',
    containerLogMaxFiles: 3,
    logRoot: s.root,
    clock: new ManualClock(),
    logger,
  });
  assert.equal(await gc.rotateLogs(), 0);
  assert.equal(await readFile(join(s.outside, 'victim', 'canary'), 'utf8'), big, 'not truncated');
  assert.deepEqual(
    (await readdir(join(s.outside, 'victim'))).sort(),
    ['canary'],
    'no rotated copy written through the link',
  );
  const refused = logger.lines.filter(
    (l) => l.msg === 'log rotation: refusing to rotate a log file outside the root directory',
  );
  assert.equal(refused.length, 3);
});
