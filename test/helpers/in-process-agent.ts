// An agent in the test's own process (runAgent) on a temporary root directory and a temporary
// static pod directory: the setup the tests that watch an agent drive a real runtime (Docker,
// process://, real cgroups) share. Its configuration is testConfig's (servers off, no cgroup
// hierarchy unless asked, podLogsDir under the root directory), its log is recorded, and on the
// way out, even when the test failed: the agent's warnings and errors as test diagnostics, the
// agent stopped, the pods it started removed (Docker containers by pod-name prefix, process://
// pods by root directory), the caller's clean-up, then both directories removed.
import type { TestContext } from 'node:test';
import { runAgent, type Agent } from '../../src/agent/start/agent.js';
import type { NodeAgentConfiguration } from '../../src/agent/config/schema.js';
import type { NodeAgentFlags } from '../../src/agent/config/flags-type.js';
import type { Logger } from '../../src/common/log/types.js';
import { tempDir, testConfig, testFlags } from '../integration/agent/pods/agent-harness.js';
import { killProcessPods, removeDockerPodsNamed } from '../integration/agent/pods/runtimes.js';
import { recordingLogger, type LogLine } from './recording-logger.js';

export interface InProcessAgentOptions {
  /** Prefix of the temporary directories' names. */
  readonly prefix: string;
  /** Over testConfig's; staticPodPath is the temporary manifest directory unless given. */
  readonly config?: Partial<NodeAgentConfiguration>;
  /** Over testFlags'. */
  readonly flags?: Partial<NodeAgentFlags>;
  /** The agent's logger; by default one that records (`log`). */
  readonly logger?: Logger;
  /** Docker (the engine itself or a proxy to it): the prefix of the test's pod names; their containers are removed at the end. */
  readonly dockerPodPrefix?: string;
  /** Runs after the agent stopped and its pods went, before the directories are removed. */
  readonly afterStop?: () => Promise<void>;
}

export interface InProcessAgent {
  /** The agent's --root-dir. */
  readonly root: string;
  /** The static pod directory (--pod-manifest-path). */
  readonly manifests: string;
  /** What the agent logged (when no logger was given). */
  readonly log: { lines: LogLine[] };
  /** The built agent, once runAgent has built it. */
  agent(): Agent | undefined;
  /** runAgent's promise: its exit code once the test's clean-up stops it. */
  readonly run: Promise<number>;
}

export async function startInProcessAgent(
  t: Pick<TestContext, 'after' | 'diagnostic'>,
  o: InProcessAgentOptions,
): Promise<InProcessAgent> {
  const root = await tempDir(`${o.prefix}-`);
  const m = await tempDir(`${o.prefix}-m-`);
  const recording = recordingLogger();
  const ac = new AbortController();
  let built: Agent | undefined;
  const config = testConfig(root.path, { staticPodPath: m.path, ...o.config });
  const run = runAgent({
    config,
    flags: testFlags(root.path, o.flags),
    logger: o.logger ?? recording,
    signal: ac.signal,
    onBuilt: (a) => (built = a),
  });
  t.after(async () => {
    for (const l of recording.lines)
      if (l.level === 'warn' || l.level === 'error')
        t.diagnostic(`${l.msg} ${JSON.stringify(l.fields)}`);
    ac.abort();
    await run.catch(() => 1);
    if (config.containerRuntimeEndpoint.startsWith('process://')) await killProcessPods(root.path);
    else if (o.dockerPodPrefix !== undefined) await removeDockerPodsNamed(o.dockerPodPrefix);
    await o.afterStop?.();
    await root.cleanup();
    await m.cleanup();
  });
  return { root: root.path, manifests: m.path, log: recording, agent: () => built, run };
}
