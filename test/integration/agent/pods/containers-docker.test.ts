// Containers and lifecycle on a real Docker engine, seen from inside the containers: postStart and
// preStop hooks (exec writes a trace into a hostPath volume, httpGet reaches a server of the
// test), a failing postStart, termination messages (file, non-root custom path,
// FallbackToLogsOnError), init containers and a sidecar with the reference's Initialized message,
// activeDeadlineSeconds, and the agent-managed /etc/hosts with hostname, subdomain and hostAliases.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chmod, mkdtemp, readFile, rm, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Agent } from '../../../../src/agent/start/agent.js';
import type { PodStatus } from '../../../../src/agent/pod/types.js';
import { startInProcessAgent } from '../../../helpers/in-process-agent.js';
import { waitFor } from './agent-harness.js';
import { DOCKER_ENDPOINT, dockerSkipReason } from './runtimes.js';
import {
  BUSYBOX,
  HOSTS_POD_NAMING,
  TERMINATION_CONTAINERS,
  printedHostsAndName,
} from './mounted-files.js';

const skip = await dockerSkipReason();
const NODE = `ctr-${randomBytes(3).toString('hex')}`;
const PREFIX = `${NODE}-`;

function manifest(name: string, spec: Record<string, unknown>): string {
  return JSON.stringify({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: `${PREFIX}${name}`, namespace: 'default' },
    spec: { terminationGracePeriodSeconds: 10, ...spec },
  });
}

/** The status of the static pod `name` (its mirror name carries the node's). */
function statusOf(agent: Agent, name: string): { uid: string; status: PodStatus } | undefined {
  const e = agent.statuses
    .entriesList()
    .find((x) => x.pod.metadata.name === `${PREFIX}${name}-${NODE}`);
  return e === undefined ? undefined : { uid: e.pod.metadata.uid, status: e.status };
}

test(
  'Docker: hooks, termination messages, init containers and sidecars, activeDeadlineSeconds, /etc/hosts',
  { skip, timeout: 240_000 },
  async (t) => {
    const trace = await mkdtemp(join(tmpdir(), `${NODE}-trace-`));
    await chmod(trace, 0o777);
    const requests: { url: string; headers: IncomingHttpHeaders }[] = [];
    const server = createServer((req, res) => {
      requests.push({ url: req.url ?? '', headers: req.headers });
      res.end('ok');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    const a = await startInProcessAgent(t, {
      prefix: 'na-ctr',
      config: { containerRuntimeEndpoint: DOCKER_ENDPOINT, clusterDomain: 'cluster.local' },
      flags: { hostnameOverride: NODE },
      dockerPodPrefix: PREFIX,
      afterStop: async () => {
        server.closeAllConnections();
        server.close();
        await rm(trace, { recursive: true, force: true });
      },
    });
    const agent = await waitFor('the agent', () => a.agent(), 30_000);
    // PostStartHookError is the waiting reason only until the next sync, which the container's
    // death starts at once and which reports CrashLoopBackOff (as the reference's reason cache
    // does): every status the agent sets is kept, so that short window cannot be missed by polling
    const postStartWaiting: { uid: string; reason: string; message?: string }[] = [];
    agent.statuses.onChange((pod, status) => {
      const w = status.containerStatuses[0]?.state.waiting;
      if (pod.metadata.name === `${PREFIX}poststart-fail-${NODE}` && w !== undefined)
        postStartWaiting.push({ uid: pod.metadata.uid, ...w });
    });
    const put = (name: string, spec: Record<string, unknown>) =>
      writeFile(join(a.manifests, `${name}.json`), manifest(name, spec));

    await put('hooks', {
      volumes: [{ name: 'trace', hostPath: { path: trace } }],
      containers: [
        {
          name: 'c',
          ...BUSYBOX,
          command: [
            'sh',
            '-c',
            'trap "echo term >> /trace/log; exit 0" TERM; while true; do sleep 1; done',
          ],
          volumeMounts: [{ name: 'trace', mountPath: '/trace' }],
          lifecycle: {
            postStart: { exec: { command: ['sh', '-c', 'echo poststart >> /trace/log'] } },
            preStop: { exec: { command: ['sh', '-c', 'echo prestop >> /trace/log'] } },
          },
        },
        {
          name: 'web',
          ...BUSYBOX,
          command: ['sleep', '300'],
          lifecycle: {
            postStart: { httpGet: { host: '127.0.0.1', port, path: '/echo?msg=poststart' } },
            preStop: { httpGet: { host: '127.0.0.1', port, path: '/echo?msg=prestop' } },
          },
        },
      ],
    });
    await put('poststart-fail', {
      containers: [
        {
          name: 'c',
          ...BUSYBOX,
          command: ['sleep', '300'],
          lifecycle: { postStart: { exec: { command: ['sh', '-c', 'exit 3'] } } },
        },
      ],
    });
    await put('term-msg', { restartPolicy: 'Never', containers: TERMINATION_CONTAINERS });
    await put('init', {
      volumes: [{ name: 'work', emptyDir: {} }],
      initContainers: [
        {
          name: 'init1',
          ...BUSYBOX,
          command: ['sh', '-c', 'sleep 2; echo init1 >> /work/order'],
          volumeMounts: [{ name: 'work', mountPath: '/work' }],
        },
        { name: 'side', ...BUSYBOX, command: ['sleep', '300'], restartPolicy: 'Always' },
        {
          name: 'init2',
          ...BUSYBOX,
          command: ['sh', '-c', 'echo init2 >> /work/order'],
          volumeMounts: [{ name: 'work', mountPath: '/work' }],
        },
      ],
      containers: [
        {
          name: 'app',
          ...BUSYBOX,
          command: ['sh', '-c', 'cat /work/order; sleep 300'],
          volumeMounts: [{ name: 'work', mountPath: '/work' }],
        },
      ],
    });
    await put('deadline', {
      activeDeadlineSeconds: 3,
      containers: [{ name: 'c', ...BUSYBOX, command: ['sleep', '300'] }],
    });
    await put('hosts', {
      ...HOSTS_POD_NAMING,
      containers: [
        { name: 'c', ...BUSYBOX, command: ['sh', '-c', 'cat /etc/hosts; hostname; sleep 300'] },
      ],
    });

    // init containers: the reference's message while they run, the sidecar started, then the app
    const initPending = await waitFor(
      'Initialized False',
      () => {
        const c = statusOf(agent, 'init')?.status.conditions.find((x) => x.type === 'Initialized');
        return c?.status === 'False' ? c : undefined;
      },
      60_000,
    );
    assert.equal(initPending.reason, 'ContainersNotInitialized');
    assert.equal(initPending.message, 'containers with incomplete status: [init1 side init2]');

    // postStart: the trace from inside the container, the request the httpGet hook sent
    await waitFor(
      'the hooks pod running',
      () => statusOf(agent, 'hooks')?.status.phase === 'Running',
      60_000,
    );
    assert.match(await readFile(join(trace, 'log'), 'utf8'), /^poststart\n/m);
    const post = requests.find((r) => r.url === '/echo?msg=poststart');
    assert.ok(post, 'the postStart httpGet hook reached the server');
    assert.equal(post.headers['user-agent'], 'kube-lifecycle/1.32');

    const failed = await waitFor(
      'PostStartHookError',
      () => postStartWaiting.find((w) => w.reason === 'PostStartHookError'),
      60_000,
    );
    // after the failure, the back-off before the next start
    await waitFor(
      'CrashLoopBackOff after PostStartHookError',
      () =>
        postStartWaiting
          .slice(postStartWaiting.indexOf(failed))
          .some((w) => w.reason === 'CrashLoopBackOff'),
      60_000,
    );
    assert.equal(
      failed.message,
      `Exec lifecycle hook ([sh -c exit 3]) for Container "c" in Pod "${PREFIX}poststart-fail-${NODE}_default(${failed.uid})" failed - error: command 'sh -c exit 3' exited with 3: , message: ""`,
    );
    // the event is logged by the event recorder, which may come after the status
    await waitFor(
      'the FailedPostStartHook event',
      () =>
        a.log.lines.some(
          (l) => l.fields['reason'] === 'FailedPostStartHook' && l.msg === 'PostStartHook failed',
        ),
      30_000,
    );

    // termination messages
    const term = await waitFor(
      'term-msg finished',
      () => {
        const s = statusOf(agent, 'term-msg')?.status;
        return s?.phase === 'Failed' ? s : undefined;
      },
      60_000,
    );
    const msg = (name: string) =>
      term.containerStatuses.find((c) => c.name === name)?.state.terminated?.message;
    assert.equal(msg('file'), 'DONE');
    assert.equal(msg('custom'), 'DONE', 'a non-root container at a custom path');
    assert.equal(msg('fallback'), 'DONE\n', 'FallbackToLogsOnError: the log of a failed container');
    assert.equal(
      term.containerStatuses.find((c) => c.name === 'fallback')?.state.terminated?.reason,
      'Error',
    );

    // init containers in order, the sidecar still running beside the app
    const init = await waitFor(
      'the init pod running',
      () => {
        const s = statusOf(agent, 'init')?.status;
        return s?.phase === 'Running' && s.containerStatuses[0]?.state.running ? s : undefined;
      },
      60_000,
    );
    assert.equal(init.conditions.find((c) => c.type === 'Initialized')?.status, 'True');
    assert.equal(init.initContainerStatuses?.[1]?.state.running !== undefined, true);
    assert.equal(init.initContainerStatuses?.[1]?.started, true);
    const initUid = statusOf(agent, 'init')?.uid ?? '';
    const appId = (await agent.runtime.runtime.listContainers({ podUid: initUid })).find(
      (c) => c.name === 'app' && c.state === 'running',
    )?.id;
    assert.ok(appId);
    assert.equal(
      await waitFor('the app output', async () => {
        const out = await agent.runtime.runtime.logs(appId);
        return out.includes('init2') ? out : undefined;
      }),
      'init1\ninit2\n',
    );

    // activeDeadlineSeconds
    const dl = await waitFor(
      'DeadlineExceeded',
      () => {
        const s = statusOf(agent, 'deadline')?.status;
        return s?.phase === 'Failed' ? s : undefined;
      },
      60_000,
    );
    assert.equal(dl.reason, 'DeadlineExceeded');
    assert.equal(dl.message, 'Pod was active on the node longer than the specified deadline');

    // /etc/hosts and the hostname, printed by the container
    const hosts = await waitFor(
      'the hosts pod',
      () => {
        const s = statusOf(agent, 'hosts');
        return s?.status.phase === 'Running' && s.status.podIP !== undefined ? s : undefined;
      },
      60_000,
    );
    const hostsId = (await agent.runtime.runtime.listContainers({ podUid: hosts.uid })).find(
      (c) => c.name === 'c',
    )?.id;
    assert.ok(hostsId);
    const printed = await waitFor('the printed hosts file', async () => {
      const out = await agent.runtime.runtime.logs(hostsId);
      return out.includes('\ndb\n') ? out : undefined;
    });
    assert.equal(printed, [...printedHostsAndName(hosts.status.podIP ?? ''), ''].join('\n'));

    // preStop: removing the pod runs the hook before the stop signal
    await unlink(join(a.manifests, 'hooks.json'));
    const log = await waitFor(
      'the stop signal after preStop',
      async () => {
        const text = await readFile(join(trace, 'log'), 'utf8');
        return text.includes('term') ? text : undefined;
      },
      60_000,
    );
    assert.deepEqual(
      log.split('\n').filter((l) => l !== ''),
      ['poststart', 'prestop', 'term'],
    );
    await waitFor('the preStop httpGet', () => requests.some((r) => r.url === '/echo?msg=prestop'));
  },
);
