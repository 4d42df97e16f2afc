// The inline code spans of README.md and docs/*.md that are whole commands (the rule is
// test/helpers/doc-spans.ts's: a program a user runs from a shell followed by at least one word)
// run as the block tests run theirs (test/helpers/doc-blocks.ts: bash, bin/ first on PATH, a
// process group of its own): harmless ones as written, a nodeagent command with --print-config
// added, a plat-apiserver server started (its cert dir a temp dir, its port a free one, on
// 127.0.0.1) and stopped, and each kubectl command against the server its page starts (the
// page's own server span, or plat-apiserver with the flags the page's prose asks for). Every
// other command span is listed below with why it cannot run here; the first test fails on a span
// that is neither, naming its file and line, and on a listed text no page holds any more.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from '../helpers/apiserver.js';
import { freePort } from '../helpers/processes.js';
import { kubectlSkipReason } from '../helpers/kubectl.js';
import { awaitOutput, runBlock, stopGroup, type BlockRun } from '../helpers/doc-blocks.js';
import { inlineCommands, type InlineCommand } from '../helpers/doc-spans.js';

const root = repoRoot();
const spans = inlineCommands(root);
const skip = kubectlSkipReason('the documentation command spans') ?? false;
const BIN_PATH = { PATH: `${join(root, 'bin')}:${process.env['PATH'] ?? ''}` };

/** How a span runs, and what its answer must hold (what the page says or implies). */
type Run =
  | { readonly way: 'as-written' | 'agent'; readonly answer: RegExp }
  | { readonly way: 'server' }
  | { readonly way: 'kubectl'; readonly answer: RegExp };

const RUN: Record<string, Run> = {
  'node -e 0': { way: 'as-written', answer: /^$/ },
  'nodeagent --print-config': { way: 'as-written', answer: /^kind: \w+Configuration$/m },
  'nodeagent --help': { way: 'as-written', answer: /^Usage:/m },
  'nodeagent --version': { way: 'as-written', answer: /^nodeagent v\d+\.\d+\.\d+$/m },
  'plat-apiserver --help': { way: 'as-written', answer: /^Usage:/m },
  'node bin/nodeagent': { way: 'agent', answer: /^kind: \w+Configuration$/m },
  'node bin/plat-apiserver --platform-profile=kubernetes': { way: 'server' },
  'kubectl get lease -n kube-node-lease': {
    way: 'kubectl',
    answer: /^No resources found in kube-node-lease namespace\.$/m,
  },
  'kubectl get csr': { way: 'kubectl', answer: /^No resources found$/m },
  'kubectl describe pod': {
    way: 'kubectl',
    answer: /^No resources found in default namespace\.$/m,
  },
  'kubectl auth whoami': { way: 'kubectl', answer: /^Username\s+\S+/m },
  'kubectl create clusterrolebinding dana-view --clusterrole=view --user=dana': {
    way: 'kubectl',
    answer: /^clusterrolebinding\.rbac\.\S+\/dana-view created$/m,
  },
  'until kubectl get --raw /readyz >/dev/null 2>&1; do sleep 1; done': {
    way: 'kubectl',
    answer: /^$/,
  },
  'kubectl explain pods --output=plaintext-openapiv2': {
    way: 'kubectl',
    answer: /^KIND:\s+Pod$/m,
  },
};

/** The server a page's kubectl spans run against when the page shows none: the prose's flags. */
const PAGE_SERVER: Record<string, string> = {
  // README's join block runs the server under the kubernetes profile
  'README.md': 'plat-apiserver --platform-profile=kubernetes',
  // "With --platform-domain=k8s.io on both programs, `kubectl get csr` ... work as is"
  'docs/getting-started.md': 'plat-apiserver --platform-domain=k8s.io',
  // the page's first block starts its server with --platform-domain=k8s.io
  'docs/plat-apiserver.md': 'plat-apiserver --platform-domain=k8s.io',
  // its restart section follows README's join
  'docs/troubleshooting.md': 'plat-apiserver --platform-profile=kubernetes',
};

const SUITE = 'runs suites of the test run this test is part of';
const BENCH = 'a benchmark of minutes (docs/benchmarks.md gives its figures)';
const ON_A_POD =
  "a subcommand named in prose, no pod given; README.md's join block runs it on a pod";

/** Command spans no test here runs, each with why. */
const NOT_RUN: Record<string, string> = {
  'npm test': 'the whole suite, of which this test is part',
  'npm ci': 'reinstalls node_modules; timed by hand from a fresh clone',
  'npm run build': 'the suite is built before it runs',
  'npm run quickstart': 'builds, then holds the fixed ports 18080 and 10248-10250; run by hand',
  'npm run quickstart -- --check':
    'builds, then holds the fixed ports 18080 and 10248-10250 (a shared machine); run by hand',
  'npm run man': 'rewrites the tracked man/*.1; test/unit/agent/cli/man.test.ts fails when stale',
  'npm run docs':
    'rewrites the tracked docs/configuration.md; test/unit/agent/cli/config-doc.test.ts fails when stale',
  'npm run schema':
    'rewrites the tracked schema/nodeagent-config.schema.json; test/unit/agent/config/file-fields.test.ts checks it',
  'npm run pack:agent': 'packs the single-file agent (minutes); DESIGN.md describes it',
  'npm run sea':
    'builds the ~90 MB single executable; test/integration/bundle/sea.test.ts builds and runs one',
  'man nodeagent': 'reads an installed man page; man/nodeagent.1 is checked by man.test.ts',
  'node scripts/pod-schema.mjs --check': 'runs in test/unit/agent/pod/pod-schema-generated.test.ts',
  'node --import tsx --test test/unit/{platconfig,client,certificate}/*.test.ts': SUITE,
  'npm run build && node scripts/run-tests.mjs integration/bootstrap': SUITE,
  'node --test dist/test/unit/agent/server/*.test.js dist/test/unit/agent/node/*.test.js dist/test/unit/agent/eviction/*.test.js':
    SUITE,
  'node --test dist/test/integration/agent/server/*.test.js': SUITE,
  'npm run bench': BENCH,
  'npm run bench -- config-start': BENCH,
  'npm run build && node scripts/run-bench.mjs bootstrap': BENCH,
  'npm run build && BENCH_SBS_STEADY_ROUNDS=0 BENCH_SBS_ROUNDS=3 flock /tmp/sbs.lock node scripts/run-bench.mjs kubelet-side-by-side': `${BENCH}; it needs the reference kubelet and control plane of /opt/anchors`,
  'node --cpu-prof': 'a fragment: the flag named in prose, not a command',
  'node --cpu-prof bin/nodeagent ...':
    "a pattern: the agent's own flags go in place of the dots (a profile of a real start)",
  'node dist/bench/server-requests.bench.js': BENCH,
  'node dist/bench/server-events.bench.js': BENCH,
  'node dist/bench/worker-handoff.bench.js': BENCH,
  'node dist/bench/kubelet-parity.js':
    'runs the reference kubelet of /opt/anchors beside the agent on a private containerd; never in CI',
  'openssl speed': 'a benchmark of minutes of the machine (a figure of docs/benchmarks.md)',
  'node scripts/run-bench.mjs NAME': 'a synopsis: NAME is a benchmark of bench/',
  'npm run bench -- apiserver-': 'a prefix of benchmark names, not a whole name',
  'node dist/src/...': "a table row's label: the unbundled build, not a path",
  'node --snapshot-blob': 'a flag of node named in prose (the start-up snapshot not taken)',
  'sleep 3600': "a container's command (the benchmark's pods), not the reader's",
  'docker exec': "a subcommand named in prose (a probe's exec on Docker)",
  'docker exec <id> true': 'a synopsis: <id> is a container of a running benchmark',
  'scripts/docker-engine.sh start':
    'starts a second Docker engine; the machine has one, shared, which tests never restart',
  'curl http://127.0.0.1:18081/':
    'the fixed port of examples/static-pods-docker, after an agent on Docker; static-pods-docker.test.ts runs that folder',
  'mount -t tmpfs': 'a fragment (no device or target): how the agent mounts a memory emptyDir',
  'kill -9': 'a fragment (no pid): what a crash of the server is',
  'kubectl wait --for=create': "a fragment naming the flag; README.md's join block runs it",
  'kubectl logs': ON_A_POD,
  'kubectl delete pod web': "deletes README's pod (the walk-through test deletes it the same way)",
  'kill %1 %2 %3':
    "the reader's shell jobs (the walk-through test stops the block's process group)",
  'curl http://127.0.0.1:18090/': "reads through README's port-forward, which its join block runs",
  'kubectl port-forward pod/web 18091:8080':
    "needs README's pod on a node; README's join block runs kubectl port-forward on it",
  'kubectl exec': ON_A_POD,
  'kubectl exec -i': ON_A_POD,
  'kubectl port-forward': ON_A_POD,
  'kubectl attach':
    'a subcommand named in prose; test/e2e/kubectl-streaming-attach.test.ts runs it',
  'kubectl debug': 'a subcommand named in prose; needs a pod on a node',
  'kubectl debug -it <pod> --image=busybox --target=<container>':
    'a synopsis with <pod> and <container>, an interactive session',
  'kubectl logs -c <name>': 'a synopsis: <name> is a container of a pod',
  'kubectl logs -f': 'a subcommand and flag named in prose, no pod given',
  'kubectl logs --insecure-skip-tls-verify-backend': 'a subcommand and flag in prose, no pod given',
  'kubectl certificate approve': 'a fragment: the CSR is named in the sentence before',
  'kubectl certificate approve|deny': 'a synopsis: approve or deny, the CSR named before',
  'kubectl create token <name> [--audience=...] [--duration=...] [--bound-object-kind=Pod --bound-object-name=...]':
    'a synopsis with <name> and optional flags',
  'kubectl auth can-i [--list]': 'a synopsis: a verb and resource, or --list',
  'kubectl --as/--as-group': 'two flags named in prose',
  'kubectl get': 'a subcommand named in prose',
  'kubectl explain': 'a subcommand named in prose (its runnable form is on the same page)',
  'kubectl apply --validate=strict': 'a fragment naming the flag, no file given',
};

test('every command span of README.md and docs/*.md runs here or is listed with its reason', (t) => {
  const unknown = spans.filter((s) => RUN[s.text] === undefined && NOT_RUN[s.text] === undefined);
  assert.deepEqual(
    unknown.map((s) => `${s.file}:${s.line}: ${s.text}`),
    [],
    'command spans neither run (RUN) nor listed with a reason (NOT_RUN)',
  );
  const texts = new Set(spans.map((s) => s.text));
  const stale = [...Object.keys(RUN), ...Object.keys(NOT_RUN)].filter((k) => !texts.has(k));
  assert.deepEqual(stale, [], 'listed command spans no page holds any more');
  const ran = spans.filter((s) => RUN[s.text] !== undefined).length;
  t.diagnostic(`${ran} of ${spans.length} command spans run; ${spans.length - ran} listed`);
});

/** Runs `script` to its end (bash, bin/ on PATH); its output, or a failure naming `where`. */
async function toEnd(where: string, script: string, env: NodeJS.ProcessEnv = {}): Promise<string> {
  const r = runBlock(script, root, { ...BIN_PATH, ...env });
  const code = await r.exited.finally(() => stopGroup(r.pgid));
  assert.equal(code, 0, `${where}: ${script} (exit ${String(code)}):\n${r.output().slice(-3000)}`);
  return r.output();
}

const where = (s: InlineCommand): string => `${s.file}:${s.line}`;

test('the harmless command spans run as written, nodeagent ones with --print-config', async () => {
  const done = new Set<string>();
  for (const s of spans) {
    const run = RUN[s.text];
    if (run === undefined || (run.way !== 'as-written' && run.way !== 'agent')) continue;
    if (done.has(s.text)) continue;
    done.add(s.text);
    const out = await toEnd(where(s), run.way === 'agent' ? `${s.text} --print-config` : s.text);
    assert.match(out, run.answer, `${where(s)}: ${s.text}`);
  }
  assert.ok(done.size >= 5, `only ${done.size} commands ran`);
});

/** A plat-apiserver started from a span or a page's default, with its admin platconfig. */
async function startServer(command: string, dir: string): Promise<BlockRun & { conf: string }> {
  const certs = mkdtempSync(join(dir, 'api-'));
  const port = await freePort();
  const moves = `--cert-dir ${certs} --secure-port ${port} --bind-address 127.0.0.1`;
  const r = runBlock(`exec ${command} ${moves}`, root, BIN_PATH);
  await awaitOutput(r, [new RegExp(`listening on https://127\\.0\\.0\\.1:${port}\\b`)], 60_000);
  return { ...r, conf: join(certs, 'admin.platconfig') };
}

test(
  "the server spans start and the kubectl spans answer against their page's server",
  { skip, timeout: 240_000 },
  async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'docs-inline-'));
    const servers: BlockRun[] = [];
    let started = 0;
    t.after(async () => {
      for (const s of servers) await stopGroup(s.pgid);
      rmSync(dir, { recursive: true, force: true });
    });
    let page = '';
    let conf = '';
    for (const s of spans) {
      const run = RUN[s.text];
      if (run === undefined || run.way === 'as-written' || run.way === 'agent') continue;
      if (s.file !== page) {
        for (const old of servers.splice(0)) await stopGroup(old.pgid);
        [page, conf] = [s.file, ''];
      }
      if (run.way === 'server' || conf === '') {
        const command = run.way === 'server' ? s.text : PAGE_SERVER[s.file];
        assert.ok(command !== undefined, `${where(s)}: no server for the page's kubectl spans`);
        const server = await startServer(command, dir);
        servers.push(server);
        started++;
        conf = server.conf;
        if (run.way === 'server') continue;
      }
      const out = await toEnd(where(s), s.text, { KUBECONFIG: conf });
      assert.match(out, run.answer, `${where(s)}: ${s.text}`);
    }
    assert.ok(started >= 4, `only ${started} servers started`);
  },
);
