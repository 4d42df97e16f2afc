// The BUILT agent joined to a BUILT plat-apiserver with its CRI socket absent at start (kubeadm's
// kind of endpoint, a containerd.sock nothing listens on): it keeps retrying, registers the Node
// NotReady with the reference's "container runtime is down" (reason NodeAgentNotReady, the
// reference's KubeletNotReady under this profile), and once a containerd of the test's own
// (test/helpers/containerd.ts) starts on that socket the same process turns the Node Ready, its
// nodeInfo naming the runtime. Skipped without containerd except under CI=true.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startApiServer } from '../../../helpers/apiserver.js';
import { waitFor } from '../../../helpers/server-https-request.js';
import { startAgent } from '../../../helpers/agent-process.js';
import { joinedAgentArgs } from '../../../helpers/joined-agent-args.js';
import { containerdSkipReason, startContainerd } from '../../../helpers/containerd.js';

const skip = (await containerdSkipReason()) ?? false;
const NODE = `cri-down-${process.pid}`;

interface Condition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
}
interface NodeObj {
  status?: { conditions?: Condition[]; nodeInfo?: { containerRuntimeVersion?: string } };
}

test(
  'the CRI socket absent at start: the node registers NotReady ("container runtime is down") and turns Ready once containerd starts, without a restart',
  { skip, timeout: 150_000 },
  async (t) => {
    const dir = await mkdtemp(join(tmpdir(), 'na-cri-down-'));
    const socket = join(dir, 'run', 'containerd.sock');
    const api = await startApiServer({});
    const agent = startAgent([
      ...joinedAgentArgs({
        platconfig: api.adminPlatconfig,
        dir,
        node: NODE,
        runtimeEndpoint: `unix://${socket}`,
      }),
      '--enable-server=false',
      '--read-only-port=0',
      '--healthz-port=0',
      '--node-status-update-frequency=2s',
    ]);
    const started: { stop?: () => Promise<void> } = {};
    t.after(async () => {
      await agent.stop();
      await started.stop?.();
      await api.stop();
      await rm(dir, { recursive: true, force: true });
    });
    const ready = async (): Promise<{ node: NodeObj; cond: Condition | undefined }> => {
      const r = await api.request('GET', `/api/v1/nodes/${NODE}`);
      const node = (r.status === 200 ? r.json : {}) as NodeObj;
      return { node, cond: node.status?.conditions?.find((c) => c.type === 'Ready') };
    };
    let down: Condition | undefined;
    await waitFor(
      async () => {
        down = (await ready()).cond;
        return down !== undefined;
      },
      `the node registered (agent output: ${agent.output().slice(-2000)})`,
      60_000,
      200,
    );
    assert.equal(down?.status, 'False');
    assert.equal(down?.reason, 'NodeAgentNotReady');
    assert.match(String(down?.message), /^container runtime is down/);
    assert.ok(String(down?.message).includes(socket), String(down?.message));
    assert.match(agent.output(), /container runtime not answering/);
    const pid = agent.child.pid;
    const ctd = await startContainerd({ socketPath: socket });
    started.stop = () => ctd.stop();
    let up: { node: NodeObj; cond: Condition | undefined } | undefined;
    await waitFor(
      async () => {
        up = await ready();
        return up.cond?.status === 'True';
      },
      `the node Ready (agent output: ${agent.output().slice(-2000)})`,
      60_000,
      200,
    );
    assert.equal(up?.cond?.reason, 'NodeAgentReady');
    assert.equal(agent.child.exitCode, null, 'the same process, not restarted');
    assert.equal(agent.child.pid, pid);
    assert.match(String(up?.node.status?.nodeInfo?.containerRuntimeVersion), /^containerd:\/\/1\./);
  },
);
