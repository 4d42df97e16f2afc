// Kubelet credential provider plugins end to end: a real registry (Debian's docker-registry) on
// 127.0.0.1 with htpasswd basic auth holds busybox:local pushed by the test through the Docker
// engine; an agent with --image-credential-provider-config/-bin-dir runs a pod from it through a
// small plugin script; an agent without them gets ErrImagePull with the registry's refusal. The
// password never reaches the agent's log.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { runAgent, type Agent } from '../../../../src/agent/start/agent.js';
import { dockerFromEndpoint } from '../../../../src/agent/runtime/docker/runtime.js';
import { stopChild } from '../../../helpers/processes.js';
import { recordingLogger } from '../../../helpers/recording-logger.js';
import { tempDir, testConfig, testFlags, waitFor } from './agent-harness.js';
import { DOCKER_ENDPOINT, removeDockerPodsNamed } from './runtimes.js';
import { pushBusybox, registrySkipReason, startRegistry, type Registry } from './local-registry.js';

const skip = await registrySkipReason('the credential provider test');
const NODE = `cred-${randomBytes(3).toString('hex')}`;
const PREFIX = `${NODE}-`;
const USER = 'puller';
const PASSWORD = `pw-${randomBytes(8).toString('hex')}`;
const WHO = { user: USER, password: PASSWORD };

async function writePlugin(binDir: string, host: string, calls: string): Promise<void> {
  await mkdir(binDir, { recursive: true });
  const script = `#!/bin/sh
req=$(cat)
echo "$req" >> "${calls}"
printf '{"apiVersion":"credentialprovider.kubelet.k8s.io/v1","kind":"CredentialProviderResponse","cacheKeyType":"Registry","cacheDuration":"5m","auth":{"${host}":{"username":"%s","password":"%s"}}}' "$REG_USER" "$REG_PASSWORD"
`;
  await writeFile(join(binDir, 'local-cred'), script);
  await chmod(join(binDir, 'local-cred'), 0o755);
}

function containerWaiting(
  agent: Agent | undefined,
  podName: string,
): { reason?: string; message?: string } | undefined {
  const pod = agent?.pods.pods().find((p) => p.metadata.name === podName);
  const statuses = (
    pod?.status as
      | { containerStatuses?: { state?: { waiting?: { reason?: string; message?: string } } }[] }
      | undefined
  )?.containerStatuses;
  return statuses?.[0]?.state?.waiting;
}

function containerRunning(agent: Agent | undefined, podName: string): boolean {
  const pod = agent?.pods.pods().find((p) => p.metadata.name === podName);
  const statuses = (
    pod?.status as { containerStatuses?: { state?: { running?: unknown } }[] } | undefined
  )?.containerStatuses;
  return statuses?.[0]?.state?.running !== undefined;
}

test(
  'a private-registry pull through a credential provider plugin; without it ErrImagePull with the registry refusal',
  { skip, timeout: 180_000 },
  async (t) => {
    const root = await tempDir('na-cred-');
    const manifests = await tempDir('na-cred-m-');
    const regDir = await tempDir('na-cred-reg-');
    const started: { registry?: Registry } = {};
    let image = '';
    const stops: (() => Promise<void>)[] = [];
    const log = recordingLogger();
    t.after(async () => {
      for (const s of stops.reverse()) await s().catch(() => undefined);
      await removeDockerPodsNamed(PREFIX);
      await stopChild(started.registry?.child);
      if (image !== '')
        await dockerFromEndpoint(DOCKER_ENDPOINT, 30_000)
          .getImage(image)
          .remove({ force: true })
          .catch(() => undefined);
      await root.cleanup();
      await manifests.cleanup();
      await regDir.cleanup();
    });
    const registry = await startRegistry(regDir.path, WHO);
    started.registry = registry;
    const repo = `hopt-${randomBytes(3).toString('hex')}/busybox`;
    image = await pushBusybox(registry, repo, WHO);

    // the plugin and its configuration
    const binDir = join(root.path, 'plugins');
    const calls = join(root.path, 'plugin-calls.log');
    await writePlugin(binDir, registry.host, calls);
    const cpConfig = join(root.path, 'credential-providers.yaml');
    await writeFile(
      cpConfig,
      [
        'apiVersion: kubelet.config.k8s.io/v1',
        'kind: CredentialProviderConfig',
        'providers:',
        '- name: local-cred',
        `  matchImages: ["${registry.host}"]`,
        '  defaultCacheDuration: 1m',
        '  apiVersion: credentialprovider.kubelet.k8s.io/v1',
        '  env:',
        `  - {name: REG_USER, value: ${USER}}`,
        `  - {name: REG_PASSWORD, value: ${PASSWORD}}`,
        '',
      ].join('\n'),
    );

    const start = async (
      name: string,
      credentialFlags: boolean,
    ): Promise<{ agent: () => Agent | undefined }> => {
      const dir = join(manifests.path, name);
      await mkdir(dir);
      const ac = new AbortController();
      let agent: Agent | undefined;
      const running = runAgent({
        config: testConfig(join(root.path, name), {
          staticPodPath: dir,
          containerRuntimeEndpoint: DOCKER_ENDPOINT,
        }),
        flags: testFlags(join(root.path, name), {
          hostnameOverride: `${NODE}-${name}`,
          ...(credentialFlags
            ? { imageCredentialProviderConfig: cpConfig, imageCredentialProviderBinDir: binDir }
            : {}),
        }),
        logger: log,
        signal: ac.signal,
        onBuilt: (a) => (agent = a),
      });
      stops.push(async () => {
        ac.abort();
        await running.catch(() => 1);
      });
      await writeFile(
        join(dir, 'pod.json'),
        JSON.stringify({
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: { name: `${PREFIX}${name}`, namespace: 'default' },
          spec: {
            terminationGracePeriodSeconds: 1,
            containers: [
              { name: 'c', image, imagePullPolicy: 'Always', command: ['sleep', '300'] },
            ],
          },
        }),
      );
      return { agent: () => agent };
    };

    const withPlugin = await start('with', true);
    await waitFor(
      'the pod from the private registry running',
      () => containerRunning(withPlugin.agent(), `${PREFIX}with-${NODE}-with`),
      90_000,
      200,
    );
    const requests = (await readFile(calls, 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    assert.deepEqual(requests[0], {
      kind: 'CredentialProviderRequest',
      apiVersion: 'credentialprovider.kubelet.k8s.io/v1',
      image: `${registry.host}/${repo}`,
    });

    const without = await start('without', false);
    const waiting = await waitFor(
      'ErrImagePull without the plugin',
      () => {
        const w = containerWaiting(without.agent(), `${PREFIX}without-${NODE}-without`);
        return w?.reason === 'ErrImagePull' ? w : undefined;
      },
      60_000,
      200,
    );
    // the engine's own words for the refusal, without the API client's HTTP status
    assert.match(
      waiting.message ?? '',
      /(no basic auth credentials|unauthorized|authentication required)/,
    );
    assert.doesNotMatch(waiting.message ?? '', /HTTP code/);
    assert.ok(
      !JSON.stringify(log.lines).includes(PASSWORD),
      'the registry password never reaches the log',
    );
  },
);
