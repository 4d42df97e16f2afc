// podLogsDir: each container's log appears at <podLogsDir>/<namespace>_<name>_<uid>/<container>/
// <restartCount>.log (the reference's layout) as a link to the file the runtime writes, for
// process:// and Docker's json-file log (as dockershim linked it); the pod's directory goes
// with the pod. A podLogsDir the agent cannot write is said once.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import {
  lstat,
  mkdir,
  readdir,
  readFile,
  readlink,
  rm,
  symlink,
  writeFile,
} from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { silentLogger } from '../../../../src/common/log/types.js';
import { PodLogLinks } from '../../../../src/agent/runtime/pod-logs/links.js';
import type { Pod } from '../../../../src/agent/pod/types.js';
import { recordingLogger } from '../../../helpers/recording-logger.js';
import { tempDir, waitFor } from './agent-harness.js';
import { DOCKER_ENDPOINT, dockerSkipReason } from './runtimes.js';
import { processPodWorld } from '../../../helpers/process-pod-world.js';
import { startInProcessAgent } from '../../../helpers/in-process-agent.js';

test('podLogsDir: <podLogsDir>/<ns>_<name>_<uid>/<container>/<restartCount>.log links to the process:// log, one per restart; removed with the pod', async (t) => {
  const logsDir = join(tmpdir(), `na-podlogs-logs-${randomBytes(4).toString('hex')}`);
  t.after(() => rm(logsDir, { recursive: true, force: true }));
  // left by a pod of an earlier agent that is gone: removed at housekeeping; other names stay
  const stale = join(logsDir, 'team_old_0123456789abcdef0123456789abcdef');
  await mkdir(join(stale, 'c'), { recursive: true });
  await mkdir(join(logsDir, 'notes_of_admin'), { recursive: true });
  const w = await processPodWorld(t, {
    prefix: 'na-podlogs',
    podLogsDir: logsDir,
    housekeepingMs: 200,
  });
  const manager = w.manager;
  const pod: Pod = {
    metadata: { name: 'web', namespace: 'team', uid: 'uid-web-1' },
    spec: {
      restartPolicy: 'Always',
      containers: [{ name: 'c', command: ['sh', '-c', 'echo hello from web; exit 1'] }],
    },
  };
  manager.handleUpdate({ op: 'ADD', source: 'file', pods: [pod] });
  const first = join(logsDir, 'team_web_uid-web-1', 'c', '0.log');
  await waitFor('the first log link', () =>
    lstat(first).then(
      (s) => s.isSymbolicLink(),
      () => false,
    ),
  );
  assert.equal(await readlink(first), join(w.root, 'pods', 'uid-web-1', 'c.log'));
  await waitFor('the output through the link', async () =>
    (await readFile(first, 'utf8').catch(() => '')).includes('hello from web'),
  );
  await waitFor(
    'a link for the restart',
    () =>
      lstat(join(logsDir, 'team_web_uid-web-1', 'c', '1.log')).then(
        () => true,
        () => false,
      ),
    20_000,
  );
  manager.handleUpdate({ op: 'REMOVE', source: 'file', pods: [pod] });
  await waitFor('the pod directory removed', () =>
    lstat(join(logsDir, 'team_web_uid-web-1')).then(
      () => false,
      () => true,
    ),
  );
  await waitFor('the stale pod directory removed', () =>
    lstat(stale).then(
      () => false,
      () => true,
    ),
  );
  assert.ok(
    (await lstat(join(logsDir, 'notes_of_admin'))).isDirectory(),
    'a name not of the pod form is left alone',
  );
});

test('podLogsDir: a pod directory that is a link out of podLogsDir is refused and said once; nothing is written through it', async (t) => {
  const root = await tempDir('na-podlogs-bad-');
  t.after(() => root.cleanup());
  const logsDir = join(root.path, 'logs');
  const outside = join(root.path, 'outside');
  await mkdir(logsDir);
  await mkdir(outside);
  await symlink(outside, join(logsDir, 'team_web_uid-1'));
  const log = recordingLogger();
  const links = new PodLogLinks({ dir: logsDir, logger: log });
  await links.link({ namespace: 'team', name: 'web', uid: 'uid-1' }, 'c', 0, '/tmp/x.log');
  await links.link({ namespace: 'team', name: 'web', uid: 'uid-1' }, 'c', 1, '/tmp/x.log');
  await assert.rejects(lstat(join(outside, 'c')), 'nothing created through the link');
  const warns = log.lines.filter((l) => l.level === 'warn');
  assert.equal(warns.length, 1);
  assert.match(
    warns[0]?.msg ?? '',
    /^cannot link container logs under podLogsDir .*: refusing path/,
  );
});

const dockerSkip = await dockerSkipReason();

test(
  "podLogsDir with Docker: the link points at the engine's json-file log of the container",
  { skip: dockerSkip ?? false, timeout: 120_000 },
  async (t) => {
    const node = `plogs-${randomBytes(3).toString('hex')}`;
    const a = await startInProcessAgent(t, {
      prefix: 'na-podlogs-docker',
      config: { containerRuntimeEndpoint: DOCKER_ENDPOINT },
      flags: { hostnameOverride: node },
      logger: silentLogger(),
      dockerPodPrefix: `web-${node}`,
    });
    const logsDir = join(a.root, 'pod-logs');
    await writeFile(
      join(a.manifests, 'web.json'),
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'web', namespace: 'default' },
        spec: {
          terminationGracePeriodSeconds: 1,
          containers: [
            {
              name: 'c',
              image: 'busybox:local',
              imagePullPolicy: 'Never',
              command: ['sh', '-c', 'echo hello from docker; sleep 300'],
            },
          ],
        },
      }),
    );
    const link = await waitFor(
      'the log link',
      async () => {
        const dirs = await readdir(logsDir).catch(() => [] as string[]);
        const d = dirs.find((x) => x.startsWith(`default_web-${node}_`));
        return d === undefined ? undefined : join(logsDir, d, 'c', '0.log');
      },
      60_000,
    );
    await waitFor(
      'a link',
      () =>
        lstat(link).then(
          (s) => s.isSymbolicLink(),
          () => false,
        ),
      30_000,
    );
    assert.match(await readlink(link), /\/containers\/[0-9a-f]{64}\/[0-9a-f]{64}-json\.log$/);
    await waitFor(
      'the output in the json-file log',
      async () =>
        (await readFile(link, 'utf8').catch(() => '')).includes('"log":"hello from docker\\n"'),
      30_000,
    );
  },
);
