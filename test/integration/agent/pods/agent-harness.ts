// Test helpers for pod tests: an agent configuration for a temp root dir, in-process agents,
// polling with a deadline, and clean-up of what a test started.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultConfiguration } from '../../../../src/agent/config/defaults.js';
import type { NodeAgentConfiguration } from '../../../../src/agent/config/schema.js';
import {
  buildNodeAgentFlags,
  type NodeAgentFlags,
} from '../../../../src/agent/config/flags-type.js';
import { FLAGS } from '../../../../src/agent/cli/flags.js';
import { NO_CGROUPS_ARGS, NO_CGROUPS_CONFIG } from '../../../helpers/agent-cgroups.js';
import { testPodLogsArgs } from '../../../helpers/agent-pod-logs.js';

/** The program's own flag defaults (as with no flags given), pointed at a temp root dir. */
export function testFlags(rootDir: string, over: Partial<NodeAgentFlags> = {}): NodeAgentFlags {
  return {
    ...buildNodeAgentFlags(FLAGS, new Map()),
    certDir: join(rootDir, 'pki'),
    rootDir,
    hostnameOverride: 'test-node',
    ...over,
  };
}

export function testConfig(
  rootDir: string,
  over: Partial<NodeAgentConfiguration> = {},
): NodeAgentConfiguration {
  // servers off (ports would clash between parallel tests); the pod tests do not need them; no
  // cgroup hierarchy unless a test asks for one under its own root (test/helpers/agent-cgroups.ts);
  // container log links (podLogsDir) under the agent's own root directory, not the host's
  // /var/log/pods, nor a directory other tests' agents clean up as theirs
  return {
    ...defaultConfiguration('flags'),
    fileCheckFrequency: '1s',
    syncFrequency: '10s',
    enableServer: false,
    healthzPort: 0,
    readOnlyPort: 0,
    ...NO_CGROUPS_CONFIG,
    podLogsDir: join(rootDir, 'pod-logs'),
    ...over,
  };
}

/**
 * Flags of a built agent (bin/nodeagent) alone on the process:// runtime under `root`, named
 * `node`: static pods only, no servers, no cgroups, container log links under its root.
 */
export function standaloneAgentArgs(root: string, node: string): string[] {
  return [
    '--container-runtime-endpoint',
    'process://',
    '--root-dir',
    root,
    '--hostname-override',
    node,
    '--sync-frequency',
    '10s',
    '--fail-cgroupv1=false',
    ...NO_CGROUPS_ARGS,
    ...testPodLogsArgs(root),
    '--enable-server=false',
    '--healthz-port=0',
    '--read-only-port=0',
  ];
}

export async function tempDir(
  prefix: string,
): Promise<{ path: string; cleanup: () => Promise<void> }> {
  const path = await mkdtemp(join(tmpdir(), prefix));
  // retries: a runtime may still be writing a state file for a process the test just killed
  return {
    path,
    cleanup: () => rm(path, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 }),
  };
}

/** Polls `fn` until it returns a value other than undefined/false, or fails after `timeoutMs`. */
export async function waitFor<T>(
  what: string,
  fn: () => T | undefined | false | Promise<T | undefined | false>,
  timeoutMs = 15_000,
  everyMs = 50,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const v = await fn();
      if (v !== undefined && v !== false) return v;
    } catch (err) {
      last = err;
    }
    await new Promise((r) => setTimeout(r, everyMs));
  }
  throw new Error(
    `timed out after ${timeoutMs} ms waiting for ${what}${last ? `: ${String(last)}` : ''}`,
  );
}
