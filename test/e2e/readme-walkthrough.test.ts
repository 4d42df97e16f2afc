// README.md's "Join plat-apiserver" block, run as a user runs it: the whole ```sh block as one
// bash script (set -e), with only what a test must change: its directory (/tmp/demo) moved to a
// temp dir, the ports of the server, the agent and the port-forward free ones, the pod's name
// made unique, and the image the local one (busybox:local: no registry is reachable here). It
// starts plat-apiserver, creates a token, joins the agent on Docker, waits for the node Ready,
// runs a pod, reads its log, runs a command in it and reads its web page through kubectl
// port-forward; each of its commented answers is checked.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from '../helpers/apiserver.js';
import { freePort } from '../helpers/processes.js';
import {
  awaitOutput,
  blockWith,
  runBlock,
  stopGroup,
  withSwaps,
  type FencedBlock,
} from '../helpers/doc-blocks.js';
import { RUN_BLOCKS } from '../helpers/doc-inventory.js';
import { dockerSkipReason, removeDockerPods } from '../integration/agent/pods/runtimes.js';
import { kubectlSkipReason } from '../helpers/kubectl.js';
import { systemMounter } from '../../src/agent/volume/mounts.js';

const skip = kubectlSkipReason('the README walkthrough') ?? (await dockerSkipReason()) ?? false;
const root = repoRoot();

interface Moves {
  dir: string;
  apiPort: number;
  agentPort: number;
  healthzPort: number;
  forwardPort: number;
  pod: string;
}

/** The block with the test's moves; each replaced text must be there, so a change is noticed. */
function moved(block: FencedBlock, m: Moves): string {
  return withSwaps(block, [
    [/^npm run build$/m, 'true # built by the suite'],
    [/\/tmp\/demo/g, m.dir],
    [
      '--enable-bootstrap-token-auth &',
      `--enable-bootstrap-token-auth --secure-port=${m.apiPort} &`,
    ],
    [
      '--fail-cgroupv1=false &',
      `--fail-cgroupv1=false --port=${m.agentPort} --healthz-port=${m.healthzPort} --read-only-port=0 &`,
    ],
    [/\b18090:/, `${m.forwardPort}:`],
    ['http://127.0.0.1:18090/', `http://127.0.0.1:${m.forwardPort}/`],
    [/\bweb\b/g, m.pod],
    ['--image=busybox ', '--image=busybox:local '],
  ]);
}

test(
  "README's Join plat-apiserver block runs as written: node Ready, the pod's log, exec, port-forward",
  { skip, timeout: 300_000 },
  async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'readme-demo-'));
    const m: Moves = {
      dir,
      apiPort: await freePort(),
      agentPort: await freePort(),
      healthzPort: await freePort(),
      forwardPort: await freePort(),
      pod: `web${process.pid}`,
    };
    const script = moved(
      blockWith(root, RUN_BLOCKS.readmeJoin.file, RUN_BLOCKS.readmeJoin.marker),
      m,
    );
    const run = runBlock(script, root, {
      PATH: `${join(root, 'bin')}:${process.env['PATH'] ?? ''}`,
    });
    const kubeconfig = join(dir, 'api', 'admin.platconfig');
    const kubectl = (...args: string[]) =>
      spawnSync('kubectl', [`--kubeconfig=${kubeconfig}`, ...args], {
        encoding: 'utf8',
        timeout: 60_000,
      });
    t.after(async () => {
      const uid = kubectl('get', 'pod', m.pod, '-o', 'jsonpath={.metadata.uid}').stdout;
      kubectl('delete', 'pod', m.pod, '--grace-period=1', '--timeout=60s');
      await stopGroup(run.pgid);
      if (uid !== '') await removeDockerPods([uid]);
      const mounts = systemMounter();
      for (const p of await mounts.mountsUnder(dir)) await mounts.unmount(p).catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    });
    const code = await run.exited;
    assert.equal(code, 0, `the block failed:\n${run.output().slice(-4000)}`);
    // the block's own comments: `demo   Ready`, `hello from web` (the log, then the page read
    // through the port-forward), `web` (the pod's name here), `Forwarding from ...`
    const answers = [
      /^demo\s+Ready\s/m,
      new RegExp(`^${m.pod}$`, 'm'),
      new RegExp(`^Forwarding from 127\\.0\\.0\\.1:${m.forwardPort} -> 8080$`, 'm'),
    ];
    await awaitOutput(run, answers, 10_000);
    const hello = run.output().match(new RegExp(`^hello from ${m.pod}$`, 'gm')) ?? [];
    assert.equal(hello.length, 2, `the log and the forwarded page:\n${run.output()}`);
  },
);
