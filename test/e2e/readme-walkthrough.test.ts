// README.md's "Join plat-apiserver" block, run as a user runs it: the whole ```sh block as one
// bash script (set -e), with only what a test must change: its directory (/tmp/demo) moved to a
// temp dir, the ports of the server and the agent free ones, the pod's name made unique, and the
// image the local one (busybox:local: no registry is reachable here). It starts plat-apiserver,
// creates a token, joins the agent on Docker, waits for the node Ready, runs a pod, reads its
// log and runs a command in it; each of its commented answers is checked.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from '../helpers/apiserver.js';
import { freePort } from '../helpers/processes.js';
import { waitFor } from '../helpers/server-https-request.js';
import { dockerSkipReason, removeDockerPods } from '../integration/agent/pods/runtimes.js';
import { kubectlSkipReason } from '../helpers/kubectl.js';
import { systemMounter } from '../../src/agent/volume/mounts.js';

const skip = kubectlSkipReason('the README walkthrough') ?? (await dockerSkipReason()) ?? false;
const root = repoRoot();

/** The first ```sh block after the heading. */
function blockAfter(heading: string): string {
  const text = readFileSync(join(root, 'README.md'), 'utf8');
  const at = text.indexOf(`\n## ${heading}\n`);
  assert.ok(at >= 0, `README.md has no "## ${heading}"`);
  const m = /```sh\n([\s\S]*?)```/.exec(text.slice(at));
  assert.ok(m !== null, `no sh block under "## ${heading}"`);
  return m[1] ?? '';
}

interface Moves {
  dir: string;
  apiPort: number;
  agentPort: number;
  healthzPort: number;
  pod: string;
}

/** The block with the test's moves; each replaced text must be there, so a change is noticed. */
function moved(block: string, m: Moves): string {
  const swaps: [string | RegExp, string][] = [
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
    [/\bweb\b/g, m.pod],
    ['--image=busybox ', '--image=busybox:local '],
  ];
  let out = block;
  for (const [from, to] of swaps) {
    // a /g pattern replaces every match, a string or another pattern the first
    const next = out.replace(from, to);
    assert.notEqual(next, out, `README's block no longer has ${String(from)}`);
    out = next;
  }
  return out;
}

/** Whether a signal reaches the process group (false once all of it is gone). */
function groupAlive(pgid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false;
  }
}

/** SIGTERM to the block's process group (the server and the agent it started), then SIGKILL. */
async function stopGroup(pgid: number | undefined): Promise<void> {
  if (pgid === undefined || !groupAlive(pgid, 'SIGTERM')) return;
  await waitFor(() => !groupAlive(pgid, 0), 'the block to stop', 15_000, 100).catch(() =>
    groupAlive(pgid, 'SIGKILL'),
  );
}

test(
  "README's Join plat-apiserver block runs as written: node Ready, the pod's log and exec",
  { skip, timeout: 300_000 },
  async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'readme-demo-'));
    const m: Moves = {
      dir,
      apiPort: await freePort(),
      agentPort: await freePort(),
      healthzPort: await freePort(),
      pod: `web${process.pid}`,
    };
    const script = `set -euo pipefail\n${moved(blockAfter('Join plat-apiserver'), m)}`;
    const child = spawn('bash', ['-c', script], {
      cwd: root,
      detached: true,
      env: { ...process.env, PATH: `${join(root, 'bin')}:${process.env['PATH'] ?? ''}` },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (b: Buffer) => (out += b.toString()));
    child.stderr.on('data', (b: Buffer) => (out += b.toString()));
    const kubeconfig = join(dir, 'api', 'admin.platconfig');
    const kubectl = (...args: string[]) =>
      spawnSync('kubectl', [`--kubeconfig=${kubeconfig}`, ...args], {
        encoding: 'utf8',
        timeout: 60_000,
      });
    t.after(async () => {
      const uid = kubectl('get', 'pod', m.pod, '-o', 'jsonpath={.metadata.uid}').stdout;
      kubectl('delete', 'pod', m.pod, '--grace-period=1', '--timeout=60s');
      await stopGroup(child.pid);
      if (uid !== '') await removeDockerPods([uid]);
      const mounts = systemMounter();
      for (const p of await mounts.mountsUnder(dir)) await mounts.unmount(p).catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    });
    // 'exit', not 'close': the server and the agent the block starts in the background keep the
    // output pipe open
    const code = await new Promise<number | null>((r) => child.once('exit', r));
    assert.equal(code, 0, `the block failed:\n${out.slice(-4000)}`);
    // the block's own comments: `demo   Ready`, `hello from web`, `web` (the pod's name here)
    const answers = [
      /^demo\s+Ready\s/m,
      new RegExp(`^hello from ${m.pod}$`, 'm'),
      new RegExp(`^${m.pod}$`, 'm'),
    ];
    await waitFor(
      () => answers.every((re) => re.test(out)),
      "the block's answers",
      10_000,
      50,
    ).catch((err: Error) => assert.fail(`${err.message} in its output:\n${out.slice(-3000)}`));
  },
);
