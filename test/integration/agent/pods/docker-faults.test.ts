// Docker faults: pull policies without a registry, and an engine that goes away and comes back
// (through a TCP proxy to the engine's socket that the test can cut).
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Agent } from '../../../../src/agent/start/agent.js';
import { startInProcessAgent } from '../../../helpers/in-process-agent.js';
import { silentLogger, type Logger } from '../../../../src/common/log/types.js';
import { recordingLogger } from '../../../helpers/recording-logger.js';
import { waitFor } from './agent-harness.js';
import { DOCKER_ENDPOINT, dockerSkipReason } from './runtimes.js';
import { dockerFromEndpoint } from '../../../../src/agent/runtime/docker/runtime.js';
import { LABELS } from '../../../../src/agent/runtime/types.js';

const skip = await dockerSkipReason();

async function startAgentOn(
  t: TestContext,
  endpoint: string,
  prefix: string,
  logger: Logger = silentLogger(),
) {
  const a = await startInProcessAgent(t, {
    prefix: 'na-dfault',
    config: { containerRuntimeEndpoint: endpoint },
    flags: { hostnameOverride: 'dfault' },
    logger,
    dockerPodPrefix: prefix,
  });
  await waitFor('agent built', () => a.agent() !== undefined);
  return { dir: a.manifests, agent: () => a.agent() as Agent };
}

const pod = (name: string, image: string, policy: string): string =>
  JSON.stringify({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name },
    spec: {
      terminationGracePeriodSeconds: 1,
      containers: [{ name: 'c', image, imagePullPolicy: policy, command: ['sleep', '60'] }],
    },
  });

test(
  'pull policies offline: IfNotPresent runs, Never without the image and Always report their reasons',
  { skip, timeout: 60_000 },
  async (t) => {
    const a = await startAgentOn(t, DOCKER_ENDPOINT, 'fault-pull-');
    await writeFile(join(a.dir, 'ok.json'), pod('fault-pull-ok', 'busybox:local', 'IfNotPresent'));
    await writeFile(
      join(a.dir, 'never.json'),
      pod('fault-pull-never', 'nonexistent.local/none:1', 'Never'),
    );
    await writeFile(
      join(a.dir, 'always.json'),
      pod('fault-pull-always', 'busybox:local', 'Always'),
    );
    const reason = (name: string): string | undefined => {
      const p = a
        .agent()
        .pods.pods()
        .find((x) => x.metadata.name === `${name}-dfault`);
      const st = p?.status as
        | { containerStatuses?: { state: { waiting?: { reason: string }; running?: unknown } }[] }
        | undefined;
      const s = st?.containerStatuses?.[0]?.state;
      return s?.running ? 'Running' : s?.waiting?.reason;
    };
    await waitFor('IfNotPresent to run', () => reason('fault-pull-ok') === 'Running', 30_000);
    await waitFor(
      'ErrImageNeverPull',
      () => reason('fault-pull-never') === 'ErrImageNeverPull',
      30_000,
    );
    await waitFor('ErrImagePull', () => reason('fault-pull-always') === 'ErrImagePull', 30_000);
    a.agent().pods.resync(
      a
        .agent()
        .pods.pods()
        .find((x) => x.metadata.name === 'fault-pull-always-dfault')?.metadata.uid ?? '',
    );
    await waitFor(
      'ImagePullBackOff',
      () => reason('fault-pull-always') === 'ImagePullBackOff',
      30_000,
    );
  },
);

test(
  'the engine goes away and comes back: pods keep running, the agent recovers',
  { skip, timeout: 90_000 },
  async (t) => {
    // a TCP proxy to the engine's unix socket that the test can take down and bring back
    const socketPath = DOCKER_ENDPOINT.replace(/^unix:\/\//, '');
    const conns = new Set<Socket>();
    const listen = (port: number): Promise<Server> =>
      new Promise((resolve, reject) => {
        const s = createServer((c) => {
          const up = connect(socketPath);
          conns.add(c);
          conns.add(up);
          c.pipe(up).pipe(c);
          const end = (): void => {
            c.destroy();
            up.destroy();
            conns.delete(c);
            conns.delete(up);
          };
          c.on('error', end).on('close', end);
          up.on('error', end).on('close', end);
        });
        s.once('error', reject);
        s.listen(port, '127.0.0.1', () => resolve(s));
      });
    let proxy = await listen(0);
    const port = (proxy.address() as { port: number }).port;
    const down = async (): Promise<void> => {
      for (const c of conns) c.destroy();
      await new Promise<void>((r) => proxy.close(() => r()));
    };
    t.after(async () => {
      if (proxy.listening) await down();
    });
    const log = recordingLogger();
    const a = await startAgentOn(t, `tcp://127.0.0.1:${port}`, 'fault-eng-', log);
    await writeFile(join(a.dir, 'a.json'), pod('fault-eng-a', 'busybox:local', 'IfNotPresent'));
    const docker = dockerFromEndpoint(DOCKER_ENDPOINT, 10_000);
    const running = async (name: string): Promise<string[]> =>
      (
        await docker.listContainers({
          filters: JSON.stringify({
            label: [`${LABELS.podName}=${name}-dfault`, `${LABELS.kind}=app`],
          }),
        })
      ).map((c) => c.Id);
    const [before] = await waitFor(
      'pod a running',
      async () =>
        (await running('fault-eng-a')).length === 1 ? await running('fault-eng-a') : undefined,
      30_000,
    );

    await down();
    await writeFile(join(a.dir, 'b.json'), pod('fault-eng-b', 'busybox:local', 'IfNotPresent'));
    // The agent's syncs of pod b fail while the engine is away, and back off (each retry later).
    const failedSyncs = (): number[] =>
      log.lines
        .filter(
          (l) =>
            l.msg === 'pod sync failed; retrying' &&
            l.fields['pod'] === 'default/fault-eng-b-dfault',
        )
        .map((l) => Number(l.fields['retryInMs']));
    const delays = await waitFor(
      'two failed syncs of pod b',
      () => (failedSyncs().length >= 2 ? failedSyncs() : undefined),
      30_000,
    );
    assert.ok((delays[1] ?? 0) > (delays[0] ?? 0), `backing off: ${delays.join(', ')} ms`);
    assert.deepEqual(
      await running('fault-eng-a'),
      [before],
      'pod a kept running while the engine was unreachable',
    );

    proxy = await listen(port);
    await waitFor(
      'pod b to run once the engine is back',
      async () => (await running('fault-eng-b')).length === 1,
      45_000,
    );
    assert.deepEqual(await running('fault-eng-a'), [before], 'pod a was not restarted');
  },
);
