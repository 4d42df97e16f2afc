// sinceSeconds/sinceTime and timestamps of /containerLogs for a process:// container, read from
// the times the agent saw its log lines appear (the process writes its log file itself), as the
// reference's kubelet reads the times of CRI log lines (kuberuntime/logs ReadLogs): a line before
// `since` is skipped, one at `since` kept, the tail taken first; times printed as RFC3339Nano.
// Time is the injected clock: lines written at different clock times get those times.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { ProcessRuntime } from '../../../../src/agent/runtime/process/runtime.js';
import { RuntimeContainerLogs } from '../../../../src/agent/server/runtime-adapters.js';
import { silentLogger } from '../../../../src/common/log/types.js';
import type { Pod } from '../../../../src/agent/pod/types.js';
import { ManualClock } from '../../../helpers/manual-clock.js';
import { tempDir, waitFor } from './agent-harness.js';
import { killProcessPods } from './runtimes.js';

const T0 = Date.UTC(2026, 0, 1, 10, 0, 0);
const iso = (ms: number): string => new Date(ms).toISOString().replace(/\.?0+Z$/, 'Z');

test('process:// logs: sinceSeconds/sinceTime keep the lines the agent saw at or after since (the tail first), timestamps are those times, kept after the exit', async (t) => {
  const root = await tempDir('na-logtimes-');
  const clock = new ManualClock(T0);
  const runtime = new ProcessRuntime({
    rootDir: root.path,
    logger: silentLogger(),
    clock,
    pollIntervalMs: 1000,
  });
  t.after(async () => {
    await killProcessPods(root.path);
    await runtime.close();
    await root.cleanup();
  });
  const flag = (name: string): string => join(root.path, name);
  const script = `echo first; while [ ! -e ${flag('go')} ]; do sleep 0.02; done; echo second; while [ ! -e ${flag('stop')} ]; do sleep 0.02; done`;
  const pod: Pod = {
    metadata: { name: 'talker', namespace: 'default', uid: 'uid-talker-1' },
    spec: { containers: [{ name: 'c', command: ['sh', '-c', script] }] },
  };
  const sandboxId = await runtime.runPodSandbox({ pod, attempt: 0 });
  const id = await runtime.createContainer({
    pod,
    container: pod.spec.containers[0]!,
    kind: 'app',
    attempt: 0,
    specHash: 'h',
    sandboxId,
    volumePaths: {},
  });
  await runtime.startContainer(id);
  const texts = async (o?: { tailLines?: number; sinceMs?: number }): Promise<string[]> =>
    (await runtime.timedLogs(id, o)).map((l) => l.text);
  await waitFor('the first line', async () => (await texts()).includes('first\n'));
  clock.advance(10_000);
  const T1 = T0 + 10_000;
  await writeFile(flag('go'), '');
  await waitFor('the second line', async () => (await texts()).includes('second\n'));

  assert.deepEqual(await runtime.timedLogs(id), [
    { time: iso(T0), text: 'first\n' },
    { time: iso(T1), text: 'second\n' },
  ]);
  assert.deepEqual(await texts({ sinceMs: T0 + 5_000 }), ['second\n']);
  assert.deepEqual(await texts({ sinceMs: T1 }), ['second\n'], 'a line at since is kept');
  assert.deepEqual(await texts({ sinceMs: T1 + 1 }), []);
  assert.deepEqual(
    await texts({ sinceMs: T0, tailLines: 1 }),
    ['second\n'],
    'the tail is taken first',
  );

  // Through /containerLogs' reader: sinceSeconds=5 at T1 is since T1-5s; timestamps print the times.
  const logs = new RuntimeContainerLogs({
    runtime,
    pods: { pods: () => [pod as Pod & { metadata: { uid: string; namespace: string } }] },
    clock,
  });
  const read = async (o: { sinceMs?: number; timestamps: boolean }): Promise<string> => {
    const out = new PassThrough();
    let text = '';
    out.on('data', (d: Buffer) => (text += d.toString()));
    await logs.writeLogs(
      { namespace: 'default', pod: 'talker', container: 'c' },
      { follow: false, ...o },
      out,
      new AbortController().signal,
    );
    return text;
  };
  assert.equal(
    await read({ sinceMs: clock.nowMs() - 5_000, timestamps: true }),
    `${iso(T1)} second\n`,
  );
  assert.equal(await read({ timestamps: true }), `${iso(T0)} first\n${iso(T1)} second\n`);

  clock.advance(10_000);
  await writeFile(flag('stop'), '');
  await waitFor(
    'the container exited',
    async () => (await runtime.listContainers()).find((c) => c.id === id)?.state === 'exited',
  );
  assert.deepEqual(
    await runtime.timedLogs(id, { sinceMs: T0 + 5_000 }),
    [{ time: iso(T1), text: 'second\n' }],
    'the times outlive the process',
  );
});
