// The arguments every test gives a BUILT agent (bin/nodeagent) it joins to a BUILT plat-apiserver
// with the server's admin platconfig: the runtime (process:// unless named), its state under the
// test's directory, the node on 127.0.0.1, no cgroups, pod logs under the test's directory
// (agent-pod-logs.ts). Each test adds its own server, port and node options after these.
import { join } from 'node:path';
import { NO_CGROUPS_ARGS } from './agent-cgroups.js';
import { testPodLogsArgs } from './agent-pod-logs.js';

export interface JoinedAgentOptions {
  /** The API server's admin platconfig. */
  platconfig: string;
  /** The test's directory: root/ and pki/ of the agent go under it. */
  dir: string;
  node: string;
  /** Passed as --platform-domain when given (the agent's default otherwise). */
  platformDomain?: string;
  /** process:// when not given. */
  runtimeEndpoint?: string;
}

export function joinedAgentArgs(o: JoinedAgentOptions): string[] {
  return [
    `--platconfig=${o.platconfig}`,
    ...(o.platformDomain !== undefined ? [`--platform-domain=${o.platformDomain}`] : []),
    `--container-runtime-endpoint=${o.runtimeEndpoint ?? 'process://'}`,
    `--root-dir=${join(o.dir, 'root')}`,
    `--cert-dir=${join(o.dir, 'pki')}`,
    `--hostname-override=${o.node}`,
    '--node-ip=127.0.0.1',
    '--fail-cgroupv1=false',
    ...NO_CGROUPS_ARGS,
    ...testPodLogsArgs(o.dir, o.platformDomain),
  ];
}
