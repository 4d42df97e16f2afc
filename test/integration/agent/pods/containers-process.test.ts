// Containers and lifecycle on process:// with real host processes: postStart and preStop exec
// hooks (a trace file the hooks and the process write), the termination message written to
// $NODEAGENT_TERMINATION_MESSAGE_PATH, FallbackToLogsOnError, activeDeadlineSeconds.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Pod } from '../../../../src/agent/pod/types.js';
import { processPodWorld } from '../../../helpers/process-pod-world.js';
import { pidAlive } from '../../../helpers/processes.js';
import { waitFor } from './agent-harness.js';

const pod = (uid: string, spec: Pod['spec']): Pod => ({
  metadata: { name: uid, namespace: 'default', uid },
  spec,
});
const sh = (script: string): string[] => ['sh', '-c', script];
/** A command that notes each SIGTERM in `log` and leaves on it. */
const leavesOnTerm = (log: string): string => `trap 'echo term >> ${log}; exit 0' TERM; `;

test('process://: postStart right after the start, preStop before SIGTERM', async (t) => {
  const w = await processPodWorld(t, { prefix: 'na-ctr-proc' });
  const log = join(w.root, 'trace');
  const p = pod('hooks', {
    terminationGracePeriodSeconds: 10,
    containers: [
      {
        name: 'c',
        command: sh(`${leavesOnTerm(log)}while true; do sleep 0.2; done`),
        lifecycle: {
          postStart: { exec: { command: sh(`echo poststart >> ${log}`) } },
          preStop: { exec: { command: sh(`echo prestop >> ${log}`) } },
        },
      },
    ],
  });
  w.manager.handleUpdate({ op: 'ADD', source: 'file', pods: [p] });
  await waitFor('Running', () => w.statuses.status('hooks')?.phase === 'Running', 15_000);
  assert.equal(await readFile(log, 'utf8'), 'poststart\n', 'the hook ran before Running');
  w.manager.handleUpdate({ op: 'DELETE', source: 'file', pods: [p] });
  const text = await waitFor(
    'the stop signal',
    async () => {
      const s = await readFile(log, 'utf8');
      return s.includes('term') ? s : undefined;
    },
    15_000,
  );
  assert.equal(text, 'poststart\nprestop\nterm\n');
});

test('process://: the stop signal reaches the command once; the rest of its group ends with it', async (t) => {
  const w = await processPodWorld(t, { prefix: 'na-ctr-proc' });
  const log = join(w.root, 'trace');
  const child = join(w.root, 'child.pid');
  // The background sleep ignores SIGTERM, as a worker a container's first process started may.
  const p = pod('once', {
    terminationGracePeriodSeconds: 1,
    containers: [
      {
        name: 'c',
        command: sh(
          `(trap '' TERM; exec sleep 300) & echo $! > ${child}; ${leavesOnTerm(log)}` +
            'while true; do sleep 0.2; done',
        ),
      },
    ],
  });
  w.manager.handleUpdate({ op: 'ADD', source: 'file', pods: [p] });
  await waitFor('Running', () => w.statuses.status('once')?.phase === 'Running', 15_000);
  const pid = Number(
    await waitFor('the child pid', async () => {
      const text = await readFile(child, 'utf8').catch(() => '');
      return text.trim() === '' ? undefined : text;
    }),
  );
  w.manager.handleUpdate({ op: 'DELETE', source: 'file', pods: [p] });
  await waitFor('the group gone', () => !pidAlive(pid), 15_000);
  assert.equal(await readFile(log, 'utf8'), 'term\n');
});

test('process://: termination messages (the file named in $NODEAGENT_TERMINATION_MESSAGE_PATH, FallbackToLogsOnError) and DeadlineExceeded', async (t) => {
  const w = await processPodWorld(t, { prefix: 'na-ctr-proc' });
  w.manager.handleUpdate({
    op: 'ADD',
    source: 'file',
    pods: [
      pod('msg', {
        restartPolicy: 'Never',
        containers: [
          {
            name: 'file',
            command: sh('printf DONE > "$NODEAGENT_TERMINATION_MESSAGE_PATH"'),
          },
          {
            name: 'fallback',
            command: sh('echo DONE; exit 1'),
            terminationMessagePolicy: 'FallbackToLogsOnError',
          },
        ],
      }),
      pod('deadline', {
        activeDeadlineSeconds: 1,
        terminationGracePeriodSeconds: 2,
        containers: [{ name: 'c', command: ['sleep', '60'] }],
      }),
    ],
  });
  const s = await waitFor(
    'msg finished',
    () => {
      const st = w.statuses.status('msg');
      return st?.phase === 'Failed' ? st : undefined;
    },
    15_000,
  );
  const msg = (n: string) =>
    s.containerStatuses.find((c) => c.name === n)?.state.terminated?.message;
  assert.equal(msg('file'), 'DONE');
  assert.equal(msg('fallback'), 'DONE\n');
  const d = await waitFor(
    'DeadlineExceeded',
    () => {
      const st = w.statuses.status('deadline');
      return st?.phase === 'Failed' ? st : undefined;
    },
    15_000,
  );
  assert.equal(d.reason, 'DeadlineExceeded');
  assert.equal(d.message, 'Pod was active on the node longer than the specified deadline');
});
