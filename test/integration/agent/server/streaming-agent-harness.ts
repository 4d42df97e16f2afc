// The built agent (node bin/nodeagent) with its HTTPS server on 127.0.0.1 (a test CA's serving
// certificate, client certificates from the same CA, AlwaysAllow) and static process:// pods,
// for the streaming tests over WebSocket and SPDY against the real program.

import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { readdirSync } from 'node:fs';
import { startAgent, type RunningAgent } from '../../../e2e/static-pods-harness.js';
import { killProcessPods, removeDockerPodsNamed } from '../pods/runtimes.js';
import { freePort } from '../../../helpers/processes.js';
import { wsConnect } from '../../../helpers/ws-client.js';
import { tempDir, waitFor } from '../pods/agent-harness.js';
import { makeServerCerts, type ServerCerts } from '../../../helpers/server-fixture.js';
import { NO_CGROUPS_ARGS } from '../../../helpers/agent-cgroups.js';
import { testPodLogsArgs } from '../../../helpers/agent-pod-logs.js';

export interface StreamingAgent {
  agent: RunningAgent;
  base: string;
  node: string;
  certs: ServerCerts;
  tls: { ca: string; cert: string; key: string };
  /** The static pod's name as the agent serves it (`<name>-<node>`). */
  pod(name: string): string;
  /** Open file descriptors of the agent process. */
  fds(): number;
  stop(): Promise<void>;
}

export interface StreamingAgentOptions {
  manifests: Record<string, unknown>;
  extraArgs?: string[];
  runtimeEndpoint?: string;
}

export async function startStreamingAgent(o: StreamingAgentOptions): Promise<StreamingAgent> {
  const certs = await makeServerCerts();
  const root = await tempDir('na-ws-root-');
  const files = await tempDir('na-ws-files-');
  const manifestDir = join(files.path, 'manifests');
  await mkdir(manifestDir);
  await writeFile(join(files.path, 'ca.pem'), certs.ca.certPem);
  await writeFile(join(files.path, 'tls.crt'), certs.serving.certPem);
  await writeFile(join(files.path, 'tls.key'), certs.serving.keyPem, { mode: 0o600 });
  for (const [name, m] of Object.entries(o.manifests))
    await writeFile(join(manifestDir, `${name}.json`), JSON.stringify(m));
  const port = await freePort();
  const node = `ws-${process.pid}-${port}`;
  const agent = startAgent([
    '--pod-manifest-path',
    manifestDir,
    '--container-runtime-endpoint',
    o.runtimeEndpoint ?? 'process://',
    '--root-dir',
    root.path,
    '--hostname-override',
    node,
    '--file-check-frequency',
    '1s',
    '--fail-cgroupv1=false',
    ...NO_CGROUPS_ARGS,
    ...testPodLogsArgs(root.path),
    '--address',
    '127.0.0.1',
    '--port',
    String(port),
    '--tls-cert-file',
    join(files.path, 'tls.crt'),
    '--tls-private-key-file',
    join(files.path, 'tls.key'),
    '--client-ca-file',
    join(files.path, 'ca.pem'),
    '--anonymous-auth=false',
    '--authorization-mode',
    'AlwaysAllow',
    '--healthz-port=0',
    '--read-only-port=0',
    ...(o.extraArgs ?? []),
  ]);
  return {
    agent,
    base: `https://127.0.0.1:${port}`,
    node,
    certs,
    tls: { ca: certs.ca.certPem, cert: certs.alice.certPem, key: certs.alice.keyPem },
    pod: (name) => `${name}-${node}`,
    fds: () =>
      agent.child.pid === undefined ? 0 : readdirSync(`/proc/${agent.child.pid}/fd`).length,
    stop: async () => {
      await agent.stop();
      if (o.runtimeEndpoint !== undefined)
        for (const name of Object.keys(o.manifests)) await removeDockerPodsNamed(`${name}-${node}`);
      await killProcessPods(root.path);
      await root.cleanup();
      await files.cleanup();
    },
  };
}

/** A process:// pod manifest. */
export interface TestContainer {
  name: string;
  command: string[];
  stdin?: boolean;
  stdinOnce?: boolean;
  tty?: boolean;
  image?: string;
  imagePullPolicy?: string;
}

export function processPod(name: string, containers: TestContainer[]): unknown {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name },
    spec: { terminationGracePeriodSeconds: 1, containers },
  };
}

/** `command=` query parameters. */
export function commandQuery(argv: readonly string[]): string {
  return argv.map((c) => `command=${encodeURIComponent(c)}`).join('&');
}

/**
 * Waits until `true` runs in the pod's container over a WebSocket v5 exec (its Status on the
 * error channel, 3, is Success): the pod is up. Fails with the end of the agent's output.
 */
export async function untilExecRuns(
  a: StreamingAgent,
  pod: string,
  container: string,
  timeoutMs: number,
  everyMs: number,
): Promise<void> {
  await waitFor(
    'the pod to run',
    async () => {
      const r = await wsConnect(
        `${a.base}/exec/default/${a.pod(pod)}/${container}?command=true&output=1`,
        ['v5.channel.k8s.io'],
        a.tls,
      ).catch(() => undefined);
      if (r?.kind !== 'open') return false;
      await r.messages.closed();
      return r.messages.text(3).includes('Success');
    },
    timeoutMs,
    everyMs,
  ).catch((err: unknown) => {
    throw new Error(`${String(err)}\n--- agent output ---\n${a.agent.output().slice(-3000)}`);
  });
}
