// An in-process agent joined to a BUILT plat-apiserver (process:// runtime, admin platconfig),
// for the pods tests that run one: the server and the agent's root directory first (a test may
// create objects before the agent starts), then the agent; the clean-up, registered on the test,
// stops the agent, its pods and the server and removes the directory even when the test fails.
import type { TestContext } from 'node:test';
import { runAgent } from '../../../../src/agent/start/agent.js';
import type { NodeAgentConfiguration } from '../../../../src/agent/config/schema.js';
import type { Logger } from '../../../../src/common/log/types.js';
import { startApiServer, type StartedApiServer } from '../../../helpers/apiserver.js';
import { tempDir, testConfig, testFlags } from './agent-harness.js';
import { killProcessPods } from './runtimes.js';

export interface JoinedAgentScene {
  api: StartedApiServer;
  /** The agent's root directory. */
  root: string;
  /** Runs the agent as node `node`, its configuration the tests' (testConfig) with process:// and `config` over it. */
  start(o: { node: string; logger: Logger; config?: Partial<NodeAgentConfiguration> }): void;
  /** Stops the agent as a service stop does (its pods keep running), for a restart with start(). */
  stop(): Promise<void>;
}

export async function joinedAgentScene(
  t: Pick<TestContext, 'after'>,
  rootPrefix: string,
): Promise<JoinedAgentScene> {
  // process:// cannot mount volumes: its pods would be refused the projected service-account
  // token the ServiceAccount admission plugin adds by default, so the plugin is off here.
  const api = await startApiServer({ args: ['--disable-admission-plugins=ServiceAccount'] });
  const root = await tempDir(rootPrefix);
  let ac = new AbortController();
  let agent: Promise<number> | undefined;
  t.after(async () => {
    ac.abort();
    await agent?.catch(() => 1);
    await killProcessPods(root.path);
    await api.stop();
    await root.cleanup();
  });
  return {
    api,
    root: root.path,
    start(o) {
      ac = new AbortController();
      agent = runAgent({
        config: testConfig(root.path, { containerRuntimeEndpoint: 'process://', ...o.config }),
        flags: testFlags(root.path, { hostnameOverride: o.node, platconfig: api.adminPlatconfig }),
        logger: o.logger,
        signal: ac.signal,
      });
    },
    async stop() {
      ac.abort();
      await agent?.catch(() => 1);
    },
  };
}
