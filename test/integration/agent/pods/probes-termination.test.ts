// Probes and graceful termination against real host processes (process:// runtime).
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Pod } from '../../../../src/agent/pod/types.js';
import { processPodWorld } from '../../../helpers/process-pod-world.js';
import { waitFor } from './agent-harness.js';

async function world(t: TestContext) {
  const logger = process.env.DEBUG_PODS
    ? (await import('pino')).default({ level: 'debug' })
    : undefined;
  return processPodWorld(t, { prefix: 'na-probes', ...(logger !== undefined ? { logger } : {}) });
}

const pod = (uid: string, spec: Pod['spec']): Pod => ({
  metadata: { name: uid, namespace: 'default', uid },
  spec,
});

test('a failing liveness probe restarts the container; readiness gates Ready', async (t) => {
  const w = await world(t);
  const flag = join(w.root, 'ready-flag');
  w.manager.handleUpdate({
    op: 'ADD',
    source: 'file',
    pods: [
      pod('live', {
        containers: [
          {
            name: 'c',
            command: ['sleep', '60'],
            livenessProbe: {
              tcpSocket: { port: 9 },
              periodSeconds: 1,
              failureThreshold: 1,
              timeoutSeconds: 1,
            },
          },
        ],
      }),
      pod('ready', {
        containers: [
          {
            name: 'c',
            command: ['sleep', '60'],
            readinessProbe: { exec: { command: ['test', '-f', flag] }, periodSeconds: 1 },
          },
        ],
      }),
    ],
  });
  await waitFor(
    'a liveness restart',
    () => (w.statuses.status('live')?.containerStatuses[0]?.restartCount ?? 0) >= 1,
    15_000,
  );
  const st = w.statuses.status('ready');
  assert.equal(st?.phase, 'Running');
  assert.equal(st?.conditions.find((c) => c.type === 'Ready')?.status, 'False');
  assert.equal(st?.containerStatuses[0]?.ready, false);
  await writeFile(flag, 'ok');
  await waitFor(
    'Ready',
    () => w.statuses.status('ready')?.conditions.find((c) => c.type === 'Ready')?.status === 'True',
    10_000,
  );
  assert.equal(w.statuses.status('ready')?.containerStatuses[0]?.restartCount, 0);
});

test('termination: SIGTERM, then SIGKILL when the grace period ends', async (t) => {
  const w = await world(t);
  // Each container writes down the signals it sees: `polite` leaves on SIGTERM, `stubborn` notes it
  // and stays, so only a SIGKILL at the end of the grace period can end it.
  const politeSeen = join(w.root, 'polite.signals');
  const stubbornSeen = join(w.root, 'stubborn.signals');
  const p = pod('term', {
    terminationGracePeriodSeconds: 1,
    containers: [
      {
        name: 'polite',
        command: [
          'sh',
          '-c',
          `trap 'echo TERM >> ${politeSeen}; exit 0' TERM; echo trapped; while :; do sleep 0.05; done`,
        ],
      },
      {
        name: 'stubborn',
        command: [
          'sh',
          '-c',
          `trap 'echo TERM >> ${stubbornSeen}' TERM; echo trapped; while :; do sleep 0.05; done`,
        ],
      },
    ],
  });
  w.manager.handleUpdate({ op: 'ADD', source: 'file', pods: [p] });
  await waitFor(
    'running',
    () => w.statuses.status('term')?.containerStatuses.every((c) => c.state.running) === true,
    10_000,
  );
  // Both traps in place before the stop: a SIGTERM that beat `polite`'s trap would end it unseen.
  const containers = await w.runtime.listContainers({ podUid: 'term' });
  for (const name of ['polite', 'stubborn']) {
    const id = containers.find((c) => c.name === name)?.id ?? '';
    await waitFor(
      `the trap of ${name} in place`,
      async () => (await w.runtime.logs(id)).includes('trapped'),
      10_000,
    );
  }
  const t0 = Date.now();
  w.manager.handleUpdate({ op: 'REMOVE', source: 'file', pods: [p] });
  const politeGone = await waitFor(
    'polite to see SIGTERM',
    async () =>
      (await readFile(politeSeen, 'utf8').catch(() => '')).includes('TERM') && Date.now() - t0,
    5_000,
  );
  assert.ok(politeGone < 900, `SIGTERM first, at once (${politeGone} ms)`);
  await waitFor(
    'removed',
    async () => (await w.runtime.listContainers({ podUid: 'term' })).length === 0,
    10_000,
  );
  const took = Date.now() - t0;
  // It saw SIGTERM (the runtime may deliver it to the process and its group) and ignored it.
  assert.match(
    await readFile(stubbornSeen, 'utf8'),
    /^(TERM\n)+$/,
    'the stubborn container got SIGTERM and ignored it',
  );
  assert.ok(
    took >= 900 && took < 6000,
    `then SIGKILL when the 1 s grace period ended (${took} ms)`,
  );
});
