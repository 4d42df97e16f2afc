// What the agent itself mounts into a container on a CRI runtime (a containerd of the test's own,
// test/helpers/containerd.ts), as the reference's makeMounts does: the termination message file at
// terminationMessagePath (root and non-root writers, a custom path, FallbackToLogsOnError with a
// file and with none), the agent-managed /etc/hosts with hostname, subdomain and hostAliases, and a
// volume's subPath as the volume manager resolved it; an init container's exit starts the app
// container at the next relist; each container status lists its mounts. Skipped without
// containerd except under CI=true.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Agent } from '../../../../src/agent/start/agent.js';
import type { PodStatus } from '../../../../src/agent/pod/types.js';
import { startInProcessAgent } from '../../../helpers/in-process-agent.js';
import { containerdSkipReason, startContainerd } from '../../../helpers/containerd.js';
import { waitFor } from './agent-harness.js';
import {
  BUSYBOX,
  HOSTS_POD_NAMING,
  TERMINATION_CONTAINERS,
  printedHostsAndName,
} from './mounted-files.js';

const skip = (await containerdSkipReason()) ?? false;
const NODE = 'cri-mounts';

function manifest(name: string, spec: Record<string, unknown>): string {
  return JSON.stringify({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'default' },
    spec: { terminationGracePeriodSeconds: 1, ...spec },
  });
}

function statusOf(agent: Agent, name: string): { uid: string; status: PodStatus } | undefined {
  const e = agent.statuses.entriesList().find((x) => x.pod.metadata.name === `${name}-${NODE}`);
  return e === undefined ? undefined : { uid: e.pod.metadata.uid, status: e.status };
}

const TERMINATION_CONTAINERS_CRI = [
  ...TERMINATION_CONTAINERS,
  {
    name: 'file-over-logs',
    ...BUSYBOX,
    command: ['sh', '-c', 'echo LOG; printf OK > /dev/termination-log'],
    terminationMessagePolicy: 'FallbackToLogsOnError',
  },
];

test(
  'CRI: termination message files, the managed /etc/hosts and a subPath mount inside the containers',
  { skip, timeout: 150_000 },
  async (t) => {
    const ctd = await startContainerd();
    t.after(() => ctd.stop());
    const a = await startInProcessAgent(t, {
      prefix: 'na-cri-mounts',
      config: { containerRuntimeEndpoint: ctd.endpoint, clusterDomain: 'cluster.local' },
      flags: { hostnameOverride: NODE },
    });
    const agent = await waitFor('the agent', () => a.agent(), 30_000);
    const put = (name: string, spec: Record<string, unknown>) =>
      writeFile(join(a.manifests, `${name}.json`), manifest(name, spec));
    await put('term-msg', { restartPolicy: 'Never', containers: TERMINATION_CONTAINERS_CRI });
    await put('hosts', {
      ...HOSTS_POD_NAMING,
      volumes: [{ name: 'work', emptyDir: {} }],
      initContainers: [
        {
          name: 'prep',
          ...BUSYBOX,
          command: ['sh', '-c', 'mkdir -p /work/sub && echo in-sub > /work/sub/f'],
          volumeMounts: [{ name: 'work', mountPath: '/work' }],
        },
      ],
      containers: [
        {
          name: 'c',
          ...BUSYBOX,
          command: ['sh', '-c', 'cat /etc/hosts; hostname; cat /sub/f; sleep 300'],
          volumeMounts: [{ name: 'work', mountPath: '/sub', subPath: 'sub' }],
        },
      ],
    });

    const term = await waitFor(
      'term-msg finished',
      () => {
        const s = statusOf(agent, 'term-msg')?.status;
        return s?.phase === 'Failed' ? s : undefined;
      },
      90_000,
    );
    const ended = (name: string) =>
      term.containerStatuses.find((c) => c.name === name)?.state.terminated;
    assert.equal(ended('file')?.message, 'DONE');
    assert.equal(ended('custom')?.message, 'DONE', 'a non-root container at a custom path');
    assert.equal(ended('custom')?.exitCode, 0, 'the non-root container could write its file');
    assert.equal(ended('fallback')?.message, 'DONE\n', 'FallbackToLogsOnError: a failed log');
    assert.equal(ended('file-over-logs')?.message, 'OK', 'FallbackToLogsOnError: the file first');

    const hosts = await waitFor(
      'the hosts pod',
      () => {
        const s = statusOf(agent, 'hosts');
        return s?.status.phase === 'Running' && s.status.podIP !== undefined ? s : undefined;
      },
      90_000,
    );
    // The init container's exit is seen at the next relist (1 s, as the reference's PLEG), not at
    // the next periodic sync a minute later: it exits before any list sees it running.
    const finished = hosts.status.initContainerStatuses?.[0]?.state.terminated?.finishedAt;
    const started = hosts.status.containerStatuses[0]?.state.running?.startedAt;
    assert.ok(finished !== undefined && started !== undefined, JSON.stringify(hosts.status));
    const gapMs = Date.parse(started) - Date.parse(finished);
    assert.ok(gapMs <= 5_000, `the app container started ${gapMs} ms after the init container`);
    // Each container status lists its mounts, as the reference's (RecursiveReadOnlyMounts).
    assert.deepEqual(hosts.status.initContainerStatuses?.[0]?.volumeMounts, [
      { name: 'work', mountPath: '/work' },
    ]);
    assert.deepEqual(hosts.status.containerStatuses[0]?.volumeMounts, [
      { name: 'work', mountPath: '/sub' },
    ]);
    const id = (await agent.runtime.runtime.listContainers({ podUid: hosts.uid })).find(
      (c) => c.name === 'c',
    )?.id;
    assert.ok(id);
    const printed = await waitFor('the printed files', async () => {
      const out = await agent.runtime.runtime.logs(id);
      return out.includes('in-sub') ? out : undefined;
    });
    assert.equal(
      printed,
      [...printedHostsAndName(hosts.status.podIP ?? ''), 'in-sub', ''].join('\n'),
    );
  },
);
