// A plat-apiserver (Node,RBAC authorization) and an in-process agent that reads it as its node
// (a token of system:node:<node> in system:nodes, so the Node authorizer decides what it may
// read), on the runtime the test names, for the volume tests. The clean-up, registered on the
// test, stops the agent, removes the pods' Docker containers or host processes, unmounts what the
// agent mounted under its root and removes the directories, even when the test fails.
import type { TestContext } from 'node:test';
import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { runAgent } from '../../../../src/agent/start/agent.js';
import type { NodeAgentConfiguration } from '../../../../src/agent/config/schema.js';
import { silentLogger } from '../../../../src/common/log/types.js';
import { systemMounter } from '../../../../src/agent/volume/mounts.js';
import {
  startApiServer,
  writeTokenPlatconfig,
  type StartedApiServer,
} from '../../../helpers/apiserver.js';
import { tempDir, testConfig, testFlags, waitFor } from './agent-harness.js';
import { killProcessPods, removeDockerPodsNamed } from './runtimes.js';

export interface VolumeScene {
  api: StartedApiServer;
  root: string;
  node: string;
  /** A prefix every pod name of the test starts with (the clean-up removes them by it). */
  prefix: string;
  start(config?: Partial<NodeAgentConfiguration>): void;
  createPod(pod: Record<string, unknown>): Promise<void>;
  /** Waits for the pod's phase; answers its status. */
  phase(name: string, want: string, timeoutMs?: number): Promise<Record<string, unknown>>;
  /** The messages of the pod's events with this reason. */
  events(name: string, reason: string): Promise<string[]>;
}

export async function volumeScene(
  t: Pick<TestContext, 'after'>,
  runtime: 'docker' | 'process',
): Promise<VolumeScene> {
  const dir = await tempDir('na-vol-');
  const node = `vol-${randomBytes(3).toString('hex')}`;
  const token = randomBytes(16).toString('hex');
  const tokens = join(dir.path, 'tokens.csv');
  await writeFile(tokens, `${token},system:node:${node},uid-${node},"system:nodes"\n`);
  // process:// cannot mount the projected service-account token the ServiceAccount admission
  // plugin adds by default: the plugin is off for that runtime.
  const api = await startApiServer({
    args: [
      `--token-auth-file=${tokens}`,
      ...(runtime === 'process' ? ['--disable-admission-plugins=ServiceAccount'] : []),
    ],
  });
  const platconfig = await writeTokenPlatconfig(join(dir.path, 'node.platconfig'), api, token);
  const root = join(dir.path, 'root');
  const logger = process.env.DEBUG_PODS
    ? (await import('pino')).default({ level: 'debug' })
    : silentLogger();
  const ac = new AbortController();
  let agent: Promise<number> | undefined;
  const prefix = `${node}-`;
  t.after(async () => {
    ac.abort();
    await agent?.catch(() => 1);
    if (runtime === 'docker') await removeDockerPodsNamed(prefix);
    else await killProcessPods(root);
    const m = systemMounter();
    for (const p of await m.mountsUnder(dir.path)) await m.unmount(p).catch(() => undefined);
    await api.stop();
    await dir.cleanup();
  });
  const request = async (name: string): Promise<Record<string, unknown>> => {
    const r = await api.request('GET', `/api/v1/namespaces/default/pods/${name}`);
    return (r.json?.['status'] as Record<string, unknown> | undefined) ?? {};
  };
  return {
    api,
    root,
    node,
    prefix,
    start(config) {
      agent = runAgent({
        config: testConfig(root, {
          containerRuntimeEndpoint:
            runtime === 'docker'
              ? (process.env.NODEAGENT_TEST_DOCKER_ENDPOINT ?? 'unix:///var/run/docker.sock')
              : 'process://',
          syncFrequency: '2s',
          ...config,
        }),
        flags: testFlags(root, { hostnameOverride: node, platconfig, nodeIP: '127.0.0.1' }),
        logger,
        signal: ac.signal,
      });
    },
    async createPod(pod) {
      const r = await api.request('POST', '/api/v1/namespaces/default/pods', { body: pod });
      if (r.status !== 201) throw new Error(`creating the pod: ${r.status} ${r.text}`);
    },
    phase: (name, want, timeoutMs = 60_000) =>
      waitFor(
        `pod ${name} to be ${want}`,
        async () => {
          const s = await request(name);
          return s['phase'] === want ? s : undefined;
        },
        timeoutMs,
        200,
      ),
    async events(name, reason) {
      const r = await api.request('GET', '/api/v1/namespaces/default/events');
      const items = (r.json?.['items'] as Record<string, unknown>[] | undefined) ?? [];
      return items
        .filter(
          (e) =>
            e['reason'] === reason &&
            (e['involvedObject'] as { name?: string } | undefined)?.name === name,
        )
        .map((e) => String(e['message']));
    },
  };
}
