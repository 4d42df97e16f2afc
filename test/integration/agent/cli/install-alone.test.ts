// Installing nodeagent alone (npm run pack:agent, then npm install of the tarball on a node, with
// no registry reachable) pulls none of plat-apiserver's dependencies and compiles nothing, and the
// installed program runs a static pod on the process:// runtime. The figure printed is the
// installed size against the production dependencies of the whole project.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import {
  lstatSync,
  mkdtempSync,
  mkdirSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, stopChild } from '../../../helpers/processes.js';
import { waitFor } from '../../../helpers/server-https-request.js';
import { NO_CGROUPS_ARGS } from '../../../helpers/agent-cgroups.js';
import { testPodLogsArgs } from '../../../helpers/agent-pod-logs.js';
import { killProcessPods } from '../pods/runtimes.js';

const REPO = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..', '..');
/** What only plat-apiserver uses: none of it may arrive with the agent. */
const APISERVER_ONLY = [
  'better-sqlite3',
  '@grpc/grpc-js',
  '@opentelemetry/api',
  'cel-js',
  'jose',
  'tweetnacl',
];

function duBytes(path: string): number {
  const st = lstatSync(path);
  if (!st.isDirectory()) return st.isFile() ? st.size : 0;
  return readdirSync(path).reduce((n, e) => n + duBytes(join(path, e)), 0);
}

test(
  'nodeagent installs alone from its tarball with no dependencies and runs a static pod',
  { timeout: 120_000 },
  async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'na-install-'));
    const running: { child?: ReturnType<typeof spawn> } = {};
    t.after(async () => {
      await stopChild(running.child);
      // the static pod's `sleep 300` outlives the agent (pods survive an agent restart)
      await killProcessPods(join(dir, 'root'));
      rmSync(dir, { recursive: true, force: true });
    });
    const tarball = execFileSync(process.execPath, [join(REPO, 'scripts', 'pack-agent.mjs')], {
      cwd: REPO,
      encoding: 'utf8',
    }).trim();
    const prefix = join(dir, 'node');
    mkdirSync(prefix);
    execFileSync(
      'npm',
      ['install', '--offline', '--no-audit', '--no-fund', '--prefix', prefix, tarball],
      { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const installed = readdirSync(join(prefix, 'node_modules')).filter((e) => !e.startsWith('.'));
    assert.deepEqual(installed, ['nodeagent'], 'the agent is the only package installed');
    for (const dep of APISERVER_ONLY)
      assert.equal(installed.includes(dep.split('/')[0]!), false, `${dep} is not installed`);

    const agentBytes = duBytes(join(prefix, 'node_modules'));
    const prod = execFileSync('npm', ['ls', '--omit=dev', '--all', '--parseable'], {
      cwd: REPO,
      encoding: 'utf8',
    })
      .trim()
      .split('\n')
      .slice(1);
    // A package nested in another's node_modules is counted with its parent.
    const tops = [...new Set(prod)]
      .sort()
      .filter((p, i, all) => !all.slice(0, i).some((q) => p.startsWith(`${q}/`)));
    const projectBytes = tops.reduce((n, p) => n + duBytes(p), 0);
    console.log(
      `figure: nodeagent alone installs ${(agentBytes / 2 ** 20).toFixed(1)} MiB (1 package) against ${(projectBytes / 2 ** 20).toFixed(1)} MiB of the project's production dependencies (${new Set(prod).size} packages): ${(agentBytes / projectBytes).toFixed(2)}x`,
    );
    assert.ok(agentBytes < projectBytes, 'the agent alone is smaller than the whole project');

    const manifests = join(dir, 'manifests');
    mkdirSync(manifests);
    const marker = join(dir, 'ran');
    writeFileSync(
      join(manifests, 'web.yaml'),
      `apiVersion: v1\nkind: Pod\nmetadata: {name: web, namespace: default}\nspec:\n  containers:\n  - name: c\n    command: [sh, -c, 'echo ran > ${marker}; sleep 300']\n`,
    );
    const port = await freePort();
    const child = spawn(
      join(prefix, 'node_modules', '.bin', 'nodeagent'),
      [
        `--root-dir=${join(dir, 'root')}`,
        `--cert-dir=${join(dir, 'pki')}`,
        `--pod-manifest-path=${manifests}`,
        '--container-runtime-endpoint=process://',
        '--hostname-override=alone',
        '--address=127.0.0.1',
        `--port=${port}`,
        '--read-only-port=0',
        '--healthz-port=0',
        '--fail-cgroupv1=false',
        ...NO_CGROUPS_ARGS,
        '--fail-swap-on=false',
        ...testPodLogsArgs(dir),
      ],
      { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] },
    );
    running.child = child;
    let stderr = '';
    child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    const ran = (): boolean => {
      try {
        return statSync(marker).isFile();
      } catch {
        return false;
      }
    };
    await waitFor(ran, "the static pod's container runs", 60_000).catch((err: unknown) => {
      throw new Error(`${String(err)}; the agent's log ends: ${stderr.slice(-2000)}`);
    });
  },
);
