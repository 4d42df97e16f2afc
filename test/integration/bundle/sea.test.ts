// The agent's single executable (npm run sea: scripts/sea.mjs), built once with the node that runs
// the tests, then run as a systemd unit runs it on a node: the file alone, copied into an empty
// directory, started from another empty directory with HOME in a third and a bare environment
// (no NODE_OPTIONS, no NODE_PATH), so nothing of the repository (no node_modules, no dist/, no
// package.json) is within its reach. It answers --version and --help as the bundled agent does,
// refuses bad input with the bundled agent's messages, runs a static pod on the process:// runtime
// and joins a real plat-apiserver with a bootstrap token.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { readlink, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from '../../helpers/apiserver.js';
import { launcherEnv } from '../../helpers/launcher.js';
import { freePort, stopChild } from '../../helpers/processes.js';
import { waitFor } from '../../helpers/server-https-request.js';
import { NO_CGROUPS_ARGS } from '../../helpers/agent-cgroups.js';
import { testPodLogsArgs } from '../../helpers/agent-pod-logs.js';
import {
  opensslFacts,
  spawnAgent,
  startBootstrapEnv,
  type AgentProgram,
} from '../../helpers/bootstrap-env.js';
import {
  killProcessPods,
  processContainerLog,
  processContainersReport,
} from '../agent/pods/runtimes.js';

const ROOT = repoRoot();
const NODE_MAJOR = Number(process.versions.node.split('.')[0]);
const PKG = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
/** bin/nodeagent's #! line's node flags (the bundles test pins them). */
const LAUNCH_FLAGS = '--max-semi-space-size=1 --use-openssl-ca';
/**
 * A warning of node's own: `(node:<pid>) Warning: Currently the require() provided to the main
 * script embedded into single-executable applications only supports loading built-in modules.`
 * when a library tries an optional addon through the executable's require().
 */
const NODE_WARNING = /\(node:\d+\) \w*Warning/;

interface Sea {
  /** The executable, alone in its directory. */
  exe: string;
  /** Empty directories: the working directory and HOME of every run. */
  cwd: string;
  home: string;
  /** The build's stderr (sea.mjs says there what the embedded node cannot do). */
  buildStderr: string;
}

const tmp = mkdtempSync(join(tmpdir(), 'sea-'));
let sea: Sea | undefined;

/** A node's bare environment: the system PATH (sh, iptables), HOME; nothing of node's. */
function bareEnv(home: string): NodeJS.ProcessEnv {
  return { PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin', HOME: home };
}

function built(): Sea {
  assert.ok(sea !== undefined, 'the single executable was not built (see the before hook)');
  return sea;
}

function runSea(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const s = built();
  return spawnSync(s.exe, args, {
    cwd: s.cwd,
    env: bareEnv(s.home),
    encoding: 'utf8',
    timeout: 60_000,
  });
}

function runBundle(args: string[]): { status: number | null; stdout: string; stderr: string } {
  return spawnSync(join(ROOT, 'bin', 'nodeagent'), args, {
    cwd: ROOT,
    env: launcherEnv(),
    encoding: 'utf8',
    timeout: 60_000,
  });
}

/** The run left nothing in its working directory or HOME, and nothing beside the executable. */
function assertUntouched(): void {
  const s = built();
  assert.deepEqual(readdirSync(s.cwd), [], 'working directory');
  assert.deepEqual(readdirSync(s.home), [], 'HOME');
  assert.deepEqual(readdirSync(join(s.exe, '..')), ['nodeagent'], "the executable's directory");
}

before(() => {
  const out = join(tmp, 'build');
  const started = process.hrtime.bigint();
  const r = spawnSync(process.execPath, [join(ROOT, 'scripts', 'sea.mjs')], {
    cwd: ROOT,
    env: { ...process.env, SEA_OUT: out },
    encoding: 'utf8',
    timeout: 170_000,
  });
  const ms = Number((process.hrtime.bigint() - started) / 1_000_000n);
  assert.equal(
    r.status,
    0,
    `node scripts/sea.mjs (SEA_OUT=${out}) failed: ${r.error?.message ?? ''}\n${r.stdout}\n${r.stderr}`,
  );
  const dirs = { bin: join(tmp, 'bin'), cwd: join(tmp, 'cwd'), home: join(tmp, 'home') };
  for (const d of Object.values(dirs)) mkdirSync(d);
  const exe = join(dirs.bin, 'nodeagent');
  copyFileSync(join(out, 'nodeagent'), exe);
  chmodSync(exe, 0o755);
  // the build's own directory (bundle, blob, node copy) goes: the executable is all that is left
  rmSync(out, { recursive: true, force: true });
  console.log(
    `figure: single executable built in ${ms} ms with node ${process.version}, ${(statSync(exe).size / 2 ** 20).toFixed(1)} MiB (load average ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')})`,
  );
  sea = { exe, cwd: dirs.cwd, home: dirs.home, buildStderr: r.stderr };
});

after(() => rmSync(tmp, { recursive: true, force: true }));

describe('the single executable (npm run sea)', () => {
  test('--version and --version=raw answer from the executable alone, with the build stamp fixed in', () => {
    const v = runSea(['--version']);
    assert.equal(v.status, 0, v.stderr);
    assert.equal(v.stdout, `nodeagent v${PKG.version}\n`);
    // nothing on stderr: in particular V8 took the blob's code cache (`Warning: Code cache data
    // rejected.` otherwise), which it does only under the node flags it was made with: on Node 24
    // those of bin/nodeagent's #! line (sea-config execArgv), on Node 20 none (see the next test)
    assert.equal(v.stderr, '');
    const raw = runSea(['--version=raw']);
    assert.equal(raw.status, 0, raw.stderr);
    const info = JSON.parse(raw.stdout) as Record<string, string>;
    const stamp = JSON.parse(readFileSync(join(ROOT, 'dist', 'build-info.json'), 'utf8')) as Record<
      string,
      string
    >;
    assert.equal(info['gitVersion'], `v${PKG.version}`);
    assert.equal(info['gitCommit'], stamp['gitCommit']);
    assert.equal(info['buildDate'], stamp['buildDate']);
    assert.equal(
      info['nodeVersion'],
      process.version,
      'the executable embeds the node that built it',
    );
    assertUntouched();
  });

  test("the build says when the embedded node cannot start the executable with bin/nodeagent's node flags", () => {
    const said = built()
      .buildStderr.split('\n')
      .filter((l) => l.includes('has no single executable execArgv'));
    if (NODE_MAJOR === 20) {
      // Node 20's sea-config has no execArgv: said once, naming the flags left out
      assert.equal(said.length, 1, built().buildStderr);
      assert.ok(said[0]?.includes(`(${LAUNCH_FLAGS})`), said[0]);
    } else if (NODE_MAJOR >= 24) {
      assert.deepEqual(said, []);
    }
  });

  test('--help answers as the bundled agent does', () => {
    const h = runSea(['--help']);
    assert.equal(h.status, 0, h.stderr);
    assert.match(h.stdout, /^nodeagent is the agent that runs on every node of a cluster\./);
    assert.equal(h.stdout, runBundle(['--help']).stdout);
    assert.equal(h.stderr, '');
    assertUntouched();
  });

  test("a bad flag and a bad configuration file exit 1 with the bundled agent's messages", () => {
    const flag = runSea(['--no-such-flag']);
    assert.equal(flag.status, 1);
    assert.equal(flag.stderr, 'failed to parse nodeagent flag: unknown flag: --no-such-flag\n');
    const bundleFlag = runBundle(['--no-such-flag']);
    assert.deepEqual(
      [flag.status, flag.stdout, flag.stderr],
      [bundleFlag.status, bundleFlag.stdout, bundleFlag.stderr],
    );

    const conf = join(tmp, 'bad-config.yaml');
    writeFileSync(
      conf,
      'apiVersion: nodeagent.config.platform.io/v1beta1\nkind: NodeAgentConfiguration\nmaxPods: lots\n',
    );
    const file = runSea(['--config', conf]);
    assert.equal(file.status, 1);
    assert.equal(
      file.stderr,
      `config file "${conf}" line 3, column 1: field maxPods: expected number, received string\n`,
    );
    const bundleFile = runBundle(['--config', conf]);
    assert.deepEqual(
      [file.status, file.stdout, file.stderr],
      [bundleFile.status, bundleFile.stdout, bundleFile.stderr],
    );
    assertUntouched();
  });

  test(
    "runs a static pod on the process:// runtime and the pod's container answers",
    { timeout: 120_000 },
    async (t) => {
      const s = built();
      const dir = mkdtempSync(join(tmpdir(), 'sea-pod-'));
      const running: { child?: ReturnType<typeof spawn> } = {};
      t.after(async () => {
        await stopChild(running.child);
        // the agent leaves a static pod's processes running when it stops (as the reference does)
        await killProcessPods(join(dir, 'root'));
        rmSync(dir, { recursive: true, force: true });
      });
      const manifests = join(dir, 'manifests');
      mkdirSync(manifests);
      // the container is a small HTTP server (this test's node: the workload, not the agent) that
      // answers with an environment variable of the pod spec; it listens on a port of its own
      // choosing and writes it to its log (a port picked beforehand could be taken meanwhile)
      const server = `const s = require('node:http').createServer((q, r) => r.end(process.env.ANSWER)).listen(0, '127.0.0.1', () => console.log('listening on ' + s.address().port))`;
      writeFileSync(
        join(manifests, 'web.yaml'),
        `apiVersion: v1\nkind: Pod\nmetadata: {name: web, namespace: default}\nspec:\n  containers:\n  - name: c\n    command: ${JSON.stringify([process.execPath, '-e', server])}\n    env: [{name: ANSWER, value: from-the-single-executable}]\n`,
      );
      const child = spawn(
        s.exe,
        [
          `--root-dir=${join(dir, 'root')}`,
          `--cert-dir=${join(dir, 'pki')}`,
          `--pod-manifest-path=${manifests}`,
          '--container-runtime-endpoint=process://',
          '--hostname-override=sea',
          '--address=127.0.0.1',
          `--port=${await freePort()}`,
          '--read-only-port=0',
          '--healthz-port=0',
          '--fail-cgroupv1=false',
          ...NO_CGROUPS_ARGS,
          '--fail-swap-on=false',
          ...testPodLogsArgs(dir),
        ],
        { cwd: s.cwd, env: bareEnv(s.home), stdio: ['ignore', 'ignore', 'pipe'] },
      );
      running.child = child;
      let stderr = '';
      child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
      let answer = '';
      const answers = async (): Promise<boolean> => {
        const ports = [
          ...(await processContainerLog(join(dir, 'root'), 'c')).matchAll(/listening on (\d+)/g),
        ];
        const port = ports[ports.length - 1]?.[1];
        if (port === undefined) return false;
        answer = await fetch(`http://127.0.0.1:${port}/`).then(
          (r) => r.text(),
          () => '',
        );
        return answer !== '';
      };
      await waitFor(answers, "the static pod's container answers", 60_000).catch(
        async (err: unknown) => {
          throw new Error(
            `${String(err)}\n${await processContainersReport(join(dir, 'root'))}\nthe agent's log ends: ${stderr.slice(-2000)}`,
          );
        },
      );
      assert.equal(answer, 'from-the-single-executable');
      assert.match(stderr, /container started .*pod=default\/web-sea /);
      assert.doesNotMatch(stderr, NODE_WARNING);
      assertUntouched();
    },
  );

  test(
    'joins a started plat-apiserver with a bootstrap token and writes its client certificate and key 0600',
    { timeout: 120_000 },
    async (t) => {
      const s = built();
      const env = await startBootstrapEnv();
      t.after(() => env.stop());
      const program: AgentProgram = { bin: s.exe, cwd: s.cwd, env: bareEnv(s.home) };
      const agent = await spawnAgent(env, [], 'sea-node', { program });
      t.after(() => agent.stop());
      t.after(() => killProcessPods(join(env.dir, 'root')));
      await agent.waitFor(/client certificate issued and platconfig written/, 60_000);
      const current = join(env.certDir, 'nodeagent-client-current.pem');
      const target = await readlink(current);
      assert.match(target, /^\/.*nodeagent-client-\d{4}(-\d\d){5}\.pem$/);
      assert.equal((await stat(target)).mode & 0o777, 0o600);
      const pem = readFileSync(target, 'utf8');
      assert.match(pem, /-----BEGIN CERTIFICATE-----/);
      assert.match(pem, /-----BEGIN (EC |RSA )?PRIVATE KEY-----/);
      assert.equal((await stat(env.platconfig)).mode & 0o777, 0o600);
      const f = opensslFacts(current, env.api.clusterCaFile);
      assert.match(f.verify, /: OK$/);
      assert.equal(f.subject, 'subject=O=system:nodes,CN=system:node:sea-node');
      assert.ok(f.keyMatches, "the key is the certificate's");
      // the certificate works: the agent registers its node with it
      await agent.waitFor(/successfully registered node/, 30_000);
      await agent.stop();
      assert.doesNotMatch(agent.output(), NODE_WARNING);
      assertUntouched();
    },
  );
});
