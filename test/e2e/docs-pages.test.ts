// The ```sh blocks of docs/getting-started.md, docs/operations.md, docs/plat-apiserver.md and
// docs/configuration.md run as a user runs them (test/helpers/doc-blocks.ts: one bash script per
// block, read from the page, so an edit that breaks a command fails here), each answer the page
// shows or describes checked. The only changes are the test's moves: the page's /tmp paths into a
// temp dir, its ports (the server's 6443, the example pod's 18080, the agent's defaults) free
// ones, `npm run build` skipped (the suite is built), and for each agent no cgroups and pod log
// links under the temp dir (the machine is shared). Every other command of README.md and
// docs/*.md is listed below with the reason it cannot run here, and the first test checks that the
// run blocks and that list are exactly the documentation's commands.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  cpSync,
  existsSync,
  lstatSync,
  mkdtempSync,
  readFileSync,
  readlinkSync,
  readdirSync,
} from 'node:fs';
import { rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from '../helpers/apiserver.js';
import { freePort } from '../helpers/processes.js';
import { waitFor } from '../helpers/server-https-request.js';
import { kubectlSkipReason } from '../helpers/kubectl.js';
import { NO_CGROUPS_ARGS } from '../helpers/agent-cgroups.js';
import { testPodLogsArgs } from '../helpers/agent-pod-logs.js';
import {
  awaitOutput,
  blockWith,
  runBlock,
  stopGroup,
  withSwaps,
  type BlockRun,
  type Swap,
} from '../helpers/doc-blocks.js';
import {
  RUN_BLOCKS,
  documentedShellCommands,
  runCommands,
  type DocBlockRef,
} from '../helpers/doc-inventory.js';
import { killProcessPods } from '../integration/agent/pods/runtimes.js';

const root = repoRoot();
const skip = kubectlSkipReason('the documentation pages') ?? false;
const BIN_PATH = { PATH: `${join(root, 'bin')}:${process.env['PATH'] ?? ''}` };

/** Commands no test runs, by page, each with why it cannot run here. */
const NOT_RUN: Record<string, readonly [string, string][]> = {
  'README.md': [
    ['npm ci && npm run quickstart', 'reinstalls node_modules; timed by hand from a fresh clone'],
    ['npm test', 'the whole suite, of which this test is part'],
    [
      'npm run build && node scripts/run-bench.mjs kubelet-side-by-side',
      'needs the reference kubelet and control plane of a session (/opt/anchors), never in CI',
    ],
  ],
  'docs/getting-started.md': [
    ['npm ci && npm run quickstart', 'reinstalls node_modules; timed by hand from a fresh clone'],
  ],
  'docs/benchmarks.md': [
    [
      'node dist/bench/apiserver-csr.bench.js --kubeconfig ~/.kube/config',
      "a benchmark of minutes against the reader's own cluster",
    ],
    [
      'node dist/bench/apiserver-watch.bench.js --server https://10.0.0.1:6443 --certificate-authority ca.crt --client-certificate admin.crt --client-key admin.key',
      "a benchmark of minutes against the reader's own cluster (10.0.0.1)",
    ],
    [
      'npm run build && node scripts/run-bench.mjs kubelet-side-by-side',
      'needs the reference kubelet and control plane of a session (/opt/anchors), never in CI',
    ],
    [
      'BENCH_SBS_ROUNDS=2 BENCH_SBS_STEADY_ROUNDS=2 BENCH_SBS_SETTLE_S=20 node scripts/run-bench.mjs kubelet-side-by-side',
      "needs the reference's kubelet and control plane of a session (/opt/anchors), never in CI",
    ],
    [
      'docker tag busybox:local registry.k8s.io/e2e-test-images/busybox:1.36.1-1',
      "prepares the side-by-side benchmark's images in the host's Docker, never in CI",
    ],
    [
      `printf 'FROM busybox:local\\nCMD ["sleep", "2147483647"]\\n' | DOCKER_BUILDKIT=0 docker build -q -t registry.k8s.io/pause:3.10 -`,
      "prepares the side-by-side benchmark's images in the host's Docker, never in CI",
    ],
    [
      'BENCH_SIM_NODES=100,300,1000 node dist/bench/node-sim.bench.js',
      'a benchmark of about 10 minutes and 30,000 pods (its figures are on the page)',
    ],
    [
      'BENCH_KUBECONFIG=/opt/anchors/admin.kubeconfig BENCH_WITH_BUILD=1 BENCH_SERVER_PIDS=$(cat /opt/anchors/run/kube-apiserver.pid),$(cat /opt/anchors/run/etcd.pid) BENCH_SERVER_DATA_DIR=/opt/anchors/etcd-data BENCH_SIM_NODES=100,300,1000 node dist/bench/node-sim.bench.js',
      'needs the reference control plane of a session (/opt/anchors), never in CI',
    ],
    [
      'BENCH_DATA_DIR=1 BENCH_BUILD_ARGS=--tls-processes=1 BENCH_COMPARE_ARGS=--tls-processes=0 BENCH_COMPARE_BIN=$PWD/bin/plat-apiserver node dist/bench/apiserver-events.bench.js',
      'a benchmark of three alternating rounds (its figures are on the page); --tls-processes is tested in test/integration/apiserver/tls-fronts.test.ts',
    ],
    [
      'BENCH_DATA_DIR=1 BENCH_BUILD_ARGS=--worker-threads=1 BENCH_COMPARE_ARGS=--worker-threads=0 BENCH_COMPARE_BIN=$PWD/bin/plat-apiserver node dist/bench/apiserver-list.bench.js',
      'a benchmark of three alternating rounds (its figures are on the page); --worker-threads is tested in test/integration/apiserver/worker-threads.test.ts',
    ],
    [
      "BENCH_SLOW_FSYNC_MS=5 BENCH_ROUNDS=4 BENCH_EVENTS=2000 BENCH_DATA_DIR=1 BENCH_COMPARE_BIN=<main's build>/bin/plat-apiserver node dist/bench/apiserver-events.bench.js",
      "needs another build of the program to compare with (its path is the user's), never in CI",
    ],
    [
      "env -u NODE_EXTRA_CA_CERTS BENCH_BOOTSTRAP_UNBUNDLED=0 BENCH_COMPARE_BIN=<main's build>/bin/nodeagent node scripts/run-bench.mjs bootstrap",
      "needs another build of the program to compare with (its path is the user's), never in CI",
    ],
    [
      'BENCH_SIM_AGENTS=100 BENCH_SIM_ROUNDS=2 BENCH_SIM_WINDOW_S=120 node dist/bench/node-sim-agents.bench.js',
      'a benchmark of about 20 minutes with a hundred agents (its figures are on the page)',
    ],
    [
      'BENCH_KUBECONFIG=/opt/anchors/admin.kubeconfig BENCH_WITH_BUILD=1 BENCH_DATA_DIR=1 BENCH_SERVER_PIDS=$(cat /opt/anchors/run/kube-apiserver.pid),$(cat /opt/anchors/run/etcd.pid) node dist/bench/apiserver-csr.bench.js',
      'needs the reference control plane of a session (/opt/anchors), never in CI',
    ],
    [
      'node dist/bench/apiserver-streaming-reference.bench.js',
      'needs the reference control plane of a session (/opt/anchors), never in CI',
    ],
  ],
  'docs/join-kubernetes.md': [
    [
      'KUBELET_EXTRA_ARGS=--container-runtime-endpoint=unix:///var/run/docker.sock',
      "a line of a kubeadm node's /etc/default/kubelet, read by kubeadm's systemd drop-in",
    ],
  ],
  'docs/plat-apiserver.md': [
    ['npm run build', 'the test-running recipe: the suite is built before it runs'],
    [
      'node scripts/run-tests.mjs test/unit/apiserver/store test/unit/apiserver/flags test/unit/apiserver/auth test/unit/apiserver/wire',
      'runs suites of the test run this test is part of',
    ],
    ['node scripts/run-tests.mjs integration/apiserver/', 'runs suites of this test run'],
    ['node scripts/run-tests.mjs e2e/kubectl', 'runs suites of this test run'],
  ],
};

function script(ref: DocBlockRef, swaps: readonly Swap[]): string {
  return withSwaps(blockWith(root, ref.file, ref.marker), swaps);
}

/** What every agent a page starts gets on top of its page's flags: free ports, no cgroups. */
async function agentMoves(dir: string, domain?: string): Promise<string> {
  const ports = `--port=${await freePort()} --healthz-port=${await freePort()} --read-only-port=0`;
  return [ports, ...NO_CGROUPS_ARGS, ...testPodLogsArgs(dir, domain)].join(' ');
}

/** A temp dir and the process groups started in it, all stopped and removed after the test. */
function workspace(t: { after(fn: () => Promise<void>): void }, name: string) {
  const dir = mkdtempSync(join(tmpdir(), `docs-${name}-`));
  const runs: BlockRun[] = [];
  const podRoots: string[] = [];
  t.after(async () => {
    for (const r of runs) await stopGroup(r.pgid);
    for (const p of podRoots) await killProcessPods(p);
    rmSync(dir, { recursive: true, force: true });
  });
  /** Starts a block (its group stopped after the test). */
  const start = (body: string): BlockRun => {
    const r = runBlock(body, root, BIN_PATH);
    runs.push(r);
    return r;
  };
  /** Runs a block to its end; its output, or a failure with it. */
  const toEnd = async (body: string): Promise<string> => {
    const r = start(body);
    const code = await r.exited;
    assert.equal(code, 0, `the block failed (exit ${String(code)}):\n${r.output().slice(-4000)}`);
    return r.output();
  };
  return { dir, podRoots, start, toEnd };
}

test('every command of README.md and docs/*.md runs in a test or is listed with its reason', (t) => {
  const all = documentedShellCommands(root);
  const run = runCommands(root);
  const key = (file: string, text: string): string => `${file}: ${text}`;
  const ran = new Set(run.map((c) => `${c.file}:${c.line}`));
  const listed = Object.entries(NOT_RUN).flatMap(([f, cs]) => cs.map(([c]) => key(f, c)));
  const leftOver = all
    .filter((c) => !ran.has(`${c.file}:${c.line}`))
    .map((c) => key(c.file, c.text));
  assert.deepEqual(
    [...new Set(leftOver)].sort(),
    [...listed].sort(),
    'the commands no test runs are not the NOT_RUN list: run a new command or list it with its reason',
  );
  const byRun = all.filter((c) => ran.has(`${c.file}:${c.line}`)).length;
  assert.ok(byRun >= 30, `only ${byRun} of ${all.length} documented commands run`);
  t.diagnostic(`${byRun} of ${all.length} documented commands run as written`);
});

test(
  'getting-started: the standalone agent by hand serves its static pod',
  { timeout: 90_000 },
  async (t) => {
    const w = workspace(t, 'standalone');
    const port = await freePort();
    const manifests = join(w.dir, 'static-pods');
    cpSync(join(root, 'examples/static-pods'), manifests, { recursive: true });
    for (const f of readdirSync(manifests))
      writeFileSync(
        join(manifests, f),
        readFileSync(join(manifests, f), 'utf8').replaceAll('18080', String(port)),
      );
    w.podRoots.push(join(w.dir, 'nodeagent'));
    const body = script(RUN_BLOCKS.standalone, [
      [/^npm run build$/m, 'true'],
      ['examples/static-pods', manifests],
      [/\/tmp\/nodeagent/g, join(w.dir, 'nodeagent')],
      ['--fail-cgroupv1=false &', `--fail-cgroupv1=false ${await agentMoves(w.dir)} &`],
      ['http://127.0.0.1:18080/', `http://127.0.0.1:${port}/`],
    ]);
    const out = await w.toEnd(body);
    // the block's own comment
    assert.match(out, /^hello from static pod web-demo$/m);
  },
);

/** The page's swaps of every /tmp path into the test's dir (`/tmp/x` -> `<dir>/x`). */
function tmpInto(dir: string): Swap {
  return [/\/tmp\//g, `${dir}/`];
}

test(
  'getting-started: join with a token file, run a pod (logs, exec), then token create, list and delete',
  { skip, timeout: 180_000 },
  async (t) => {
    const w = workspace(t, 'join');
    const port = await freePort();
    // step 1 (with --enable-bootstrap-token-auth, which the page asks for before token create)
    const server = w.start(
      script(RUN_BLOCKS.tokenServer, [
        [
          '/tmp/tokens.csv &',
          `/tmp/tokens.csv --enable-bootstrap-token-auth --secure-port=${port} &`,
        ],
        tmpInto(w.dir),
      ]),
    );
    await awaitOutput(
      server,
      [new RegExp(`listening on https://127\\.0\\.0\\.1:${port}\\b`)],
      30_000,
    );
    // step 2: the page's bootstrap platconfig, written where its first line says
    const conf = withSwaps(
      blockWith(root, 'docs/getting-started.md', '# /tmp/bootstrap.conf', ['yaml']),
      [['https://127.0.0.1:6443', `https://127.0.0.1:${port}`], tmpInto(w.dir)],
    );
    const confPath = /^# (\S+)/.exec(conf)?.[1] ?? '';
    assert.equal(confPath, join(w.dir, 'bootstrap.conf'));
    writeFileSync(confPath, conf, { mode: 0o600 });
    // step 3: the agent bootstraps and logs the page's lines in order
    const agent = w.start(
      script(RUN_BLOCKS.bootstrapAgent, [
        tmpInto(w.dir),
        [
          '--fail-cgroupv1=false',
          `--fail-cgroupv1=false --root-dir ${w.dir}/root ${await agentMoves(w.dir)}`,
        ],
      ]),
    );
    w.podRoots.push(join(w.dir, 'root'));
    const lines = [
      /Using bootstrap platconfig to generate TLS client cert, key and platconfig file/,
      /No valid private key and\/or certificate found, reusing existing private key or creating a new one/,
      /Waiting for client certificate to be issued/,
      /certificate signing request node-csr-\S+ is approved, waiting to be issued/,
      /certificate signing request node-csr-\S+ is issued/,
    ];
    await awaitOutput(agent, lines, 60_000);
    const at = lines.map((re) => agent.output().search(re));
    assert.deepEqual(
      [...at].sort((a, b) => a - b),
      at,
      `not in the page's order:\n${agent.output()}`,
    );
    await waitFor(() => existsSync(join(w.dir, 'node.conf')), 'node.conf', 10_000).catch(() =>
      assert.fail(
        `no node.conf; pki: ${readdirSync(join(w.dir, 'pki')).join(' ')}\n${agent.output()}`,
      ),
    );
    assertBootstrapFiles(w.dir);
    // step 4: a pod on the node, its log and an exec (the block's comments), then deleted
    const pod = await w.toEnd(script(RUN_BLOCKS.podOnNode, [tmpInto(w.dir)]));
    assert.match(pod, /^hello from the node$/m);
    assert.match(pod, /^hi$/m);
    assert.match(pod, /^pod "hello" deleted$/m);
    // kubeadm's way: token create writes step 2's file, token list shows it, token delete
    const created = await w.toEnd(script(RUN_BLOCKS.tokenCreate, [tmpInto(w.dir)]));
    const id = /\b([a-z0-9]{6})\.[a-z0-9]{16}\b/.exec(created)?.[1];
    assert.ok(id !== undefined, `token create printed no token:\n${created}`);
    assert.equal(statSync(confPath).mode & 0o777, 0o600);
    assert.match(readFileSync(confPath, 'utf8'), /certificate-authority-data: /);
    const listed = await w.toEnd(script(RUN_BLOCKS.tokenList, [tmpInto(w.dir), [/7k2q9x/g, id]]));
    assert.match(listed, /^TOKEN\s+TTL\s+EXPIRES\s+USAGES\s+DESCRIPTION\s+EXTRA GROUPS$/m);
    assert.match(
      listed,
      new RegExp(
        `^${id}\\.[a-z0-9]{16}\\s+23h\\s+\\S+\\s+authentication,signing\\s+<none>\\s+<none>$`,
        'm',
      ),
    );
    assert.match(listed, new RegExp(`^bootstrap token "${id}" deleted$`, 'm'));
  },
);

/** The page's "Afterwards": the client certificate, its symlink and the node's platconfig. */
function assertBootstrapFiles(dir: string): void {
  const pki = join(dir, 'pki');
  const current = join(pki, 'nodeagent-client-current.pem');
  assert.ok(lstatSync(current).isSymbolicLink());
  assert.match(readlinkSync(current), /nodeagent-client-\d{4}(-\d\d){5}\.pem$/);
  assert.equal(statSync(current).mode & 0o777, 0o600);
  const node = join(dir, 'node.conf');
  assert.equal(statSync(node).mode & 0o777, 0o600);
  const text = readFileSync(node, 'utf8');
  for (const name of ['default-cluster', 'default-auth', 'default-context'])
    assert.ok(text.includes(name), name);
}

test(
  "operations: the node's labels, taint, Lease and events as the page describes",
  { skip, timeout: 120_000 },
  async (t) => {
    const w = workspace(t, 'ops');
    const port = await freePort();
    w.podRoots.push(join(w.dir, 'na'));
    const out = await w.toEnd(
      script(RUN_BLOCKS.nodeStatus, [
        [/^npm run build$/m, 'true'],
        ['--secure-port 6443', `--secure-port ${port}`],
        tmpInto(w.dir),
        ['NoSchedule &', `NoSchedule ${await agentMoves(w.dir, 'k8s.io')} &`],
      ]),
    );
    assert.match(out, /node\/demo condition met/);
    assert.match(out, /^\s+node\.k8s\.io\/pool: blue$/m);
    assert.match(out, /- effect: NoSchedule\n\s+key: dedicated\n\s+value: demo/);
    assert.match(out, /^demo\s+demo\s+\S+$/m, 'the Lease: NAME HOLDER AGE');
    assert.match(out, /\bStarting\b/);
    assert.match(out, /\bRegisteredNode\b/);
  },
);

test(
  'plat-apiserver: the first server answers kubectl; --validate-config accepts the examples',
  { skip, timeout: 90_000 },
  async (t) => {
    const w = workspace(t, 'api');
    const port = await freePort();
    const out = await w.toEnd(
      script(RUN_BLOCKS.apiserverStart, [
        [/^npm run build$/m, 'true'],
        ['--secure-port 6443', `--secure-port ${port}`],
        tmpInto(w.dir),
      ]),
    );
    // the block's comments
    const admin = join(w.dir, 'x', 'admin.platconfig');
    assert.ok(
      out.includes(
        `plat-apiserver listening on https://127.0.0.1:${port}; admin credentials in ${admin}`,
      ),
      out,
    );
    assert.match(out, /^No resources found$/m);
    const checked = await w.toEnd(script(RUN_BLOCKS.validateConfig, []));
    assert.doesNotMatch(checked, /error|invalid/i);
  },
);

test('configuration: the worked example prints the merged result of its table', async (t) => {
  const w = workspace(t, 'config');
  const out = await w.toEnd(script(RUN_BLOCKS.printConfig, []));
  // the table's "result" column
  assert.match(out, /^maxPods: 80$/m);
  assert.match(out, /^systemReserved:\n\s+cpu: 500m\n\s+memory: 1Gi$/m);
  assert.match(out, /^\s+QOSReserved: true$/m);
  assert.match(out, /dedicated=infra:NoSchedule|key: dedicated\n\s+value: infra/);
});
