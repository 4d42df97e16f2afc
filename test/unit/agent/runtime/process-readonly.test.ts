import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ProcessRuntime } from '../../../../src/agent/runtime/process/runtime.js';
import { silentLogger } from '../../../../src/common/log/types.js';
import { systemClock } from '../../../../src/common/util/clock.js';

// A state file as an agent leaves it: a container recorded as running whose process is gone.
function deadRecord(id: string, root: string): Record<string, unknown> {
  return {
    id,
    podUid: 'uid-1',
    podName: 'web-n1',
    podNamespace: 'default',
    name: 'web',
    kind: 'app',
    attempt: 0,
    state: 'running',
    image: '',
    sandboxId: 'sb-1',
    createdAtMs: 1,
    startedAtMs: 1,
    labels: {},
    command: ['true'],
    env: {},
    logFile: join(root, 'pods', 'uid-1', 'web.log'),
    pid: 2147483646,
    startTicks: '1',
  };
}

test("a read-only process runtime reports a dead process as exited without writing the agent's state", async (t) => {
  const root = await mkdtemp(join(tmpdir(), 'proc-ro-'));
  t.after(() => rm(root, { recursive: true, force: true }));
  const dir = join(root, 'process-runtime', 'containers');
  await mkdir(dir, { recursive: true });
  const file = join(dir, 'c1.json');
  const before = JSON.stringify(deadRecord('c1', root));
  await writeFile(file, before);

  const observer = new ProcessRuntime({
    rootDir: root,
    logger: silentLogger(),
    clock: systemClock,
    readOnly: true,
  });
  const seen = await observer.listContainers({ podUid: 'uid-1' });
  await observer.close();
  assert.equal(seen[0]?.state, 'exited', 'the observer sees that the process is gone');
  assert.equal(
    await readFile(file, 'utf8'),
    before,
    'the state file is left as the agent wrote it',
  );

  const writer = new ProcessRuntime({ rootDir: root, logger: silentLogger(), clock: systemClock });
  await writer.listContainers({ podUid: 'uid-1' });
  await writer.close();
  assert.equal(
    JSON.parse(await readFile(file, 'utf8')).state,
    'exited',
    'a writing runtime records the exit',
  );
});
