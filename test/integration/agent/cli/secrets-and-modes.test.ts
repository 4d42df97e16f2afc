// Secrets and files of the built agent: the userinfo of a URL flag (`user:pass@host` in
// --manifest-url) never shows in /configz, --print-config, the log or an error; under umask 000
// the process runtime's state files (pod env values) are 0600 in 0700 dirs, the root and pod
// dirs 0750 (the reference's MkdirAll(..., 0750)) and container logs 0640.
// Regression: the password showed in all four places; state files were 0644 in 0755 dirs, and
// under umask 000 the root dir was 0777 and container logs 0666.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { BIN, REPO, runCli } from './run-cli.js';
import { killProcessPods } from '../pods/runtimes.js';
import { freePort, stopChild } from '../../../helpers/processes.js';
import { NO_CGROUPS_ARGS } from '../../../helpers/agent-cgroups.js';
import { testPodLogsArgs } from '../../../helpers/agent-pod-logs.js';
import { launcherEnv } from '../../../helpers/launcher.js';

const USER = 'alice-user';
const PASSWORD = 's3cret-pass';

const mode = async (p: string): Promise<string> =>
  ((await stat(p)).mode & 0o777).toString(8).padStart(4, '0');

test('--print-config and a validation error mask URL userinfo', async () => {
  const printed = await runCli([
    '--print-config',
    `--manifest-url=https://${USER}:${PASSWORD}@example.test/pods?x=1`,
    `--container-runtime-endpoint=tcp://${USER}:${PASSWORD}@127.0.0.1:2375`,
  ]);
  assert.equal(printed.code, 0, printed.stderr);
  assert.ok(!printed.stdout.includes(PASSWORD) && !printed.stdout.includes(USER), printed.stdout);
  assert.match(printed.stdout, /^staticPodURL: https:\/\/xxxxx:xxxxx@example\.test\/pods\?x=1$/m);
  assert.match(
    printed.stdout,
    /^containerRuntimeEndpoint: tcp:\/\/xxxxx:xxxxx@127\.0\.0\.1:2375$/m,
  );
  const bad = await runCli([`--manifest-url=ftp://${USER}:${PASSWORD}@example.test/pods`]);
  assert.equal(bad.code, 1);
  assert.ok(!bad.stderr.includes(PASSWORD) && !bad.stderr.includes(USER), bad.stderr);
  assert.match(bad.stderr, /ftp:\/\/xxxxx:xxxxx@example\.test\/pods/);
});

test(
  'under umask 000: /configz and the log mask URL userinfo; state files 0600 in 0700 dirs, pod dirs 0750, logs 0640',
  { timeout: 90_000 },
  async (t) => {
    const dir = await mkdtemp(join(tmpdir(), 'na-secrets-'));
    const root = join(dir, 'root');
    const manifests = join(dir, 'manifests');
    await mkdir(manifests);
    await writeFile(
      join(manifests, 'web.yaml'),
      'apiVersion: v1\nkind: Pod\nmetadata: {name: web}\nspec: {containers: [{name: c, image: busybox, command: [sh, -c, "echo started; sleep 600"], env: [{name: API_KEY, value: pod-secret}]}]}\n',
    );
    const port = await freePort();
    const closed = await freePort();
    const args = [
      BIN,
      `--root-dir=${root}`,
      `--cert-dir=${join(dir, 'pki')}`,
      `--pod-manifest-path=${manifests}`,
      `--manifest-url=http://${USER}:${PASSWORD}@127.0.0.1:${closed}/pods`,
      '--container-runtime-endpoint=process://',
      '--hostname-override=secrets-node',
      '--address=127.0.0.1',
      `--port=${port}`,
      '--read-only-port=0',
      '--healthz-port=0',
      '--fail-cgroupv1=false',
      ...NO_CGROUPS_ARGS,
      ...testPodLogsArgs(dir),
      '--fail-swap-on=false',
      '--v=5',
    ];
    const child = spawn('/bin/sh', ['-c', 'umask 000; exec "$0" "$@"', ...args], {
      cwd: REPO,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: launcherEnv(),
    });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (out += d));
    const tls = new Agent({ connect: { rejectUnauthorized: false } });
    t.after(async () => {
      await stopChild(child);
      await killProcessPods(root);
      await tls.close();
      await rm(dir, { recursive: true, force: true, maxRetries: 5 });
    });
    const podsDir = join(root, 'pods');
    const stateDir = join(root, 'process-runtime', 'containers');
    const deadline = Date.now() + 60_000;
    let logFile: string | undefined;
    while (logFile === undefined) {
      if (Date.now() > deadline || child.exitCode !== null)
        throw new Error(`the pod did not start:\n${out}`);
      for (const uid of await readdir(podsDir).catch(() => [] as string[])) {
        const f = join(podsDir, uid, 'c.log');
        if ((await stat(f).catch(() => undefined))?.size) logFile = f;
      }
      if (logFile === undefined) await new Promise((r) => setTimeout(r, 100));
    }
    while (
      !/could not read pods from the manifest URL/.test(out) ||
      !/agent servers started/.test(out)
    ) {
      if (Date.now() > deadline)
        throw new Error(`no manifest URL failure or server start logged:\n${out}`);
      await new Promise((r) => setTimeout(r, 100));
    }

    const res = await request(`https://127.0.0.1:${port}/configz`, { dispatcher: tls });
    const configz = await res.body.text();
    assert.equal(res.statusCode, 200, configz);
    assert.ok(!configz.includes(PASSWORD) && !configz.includes(USER), configz);
    assert.match(
      configz,
      new RegExp(`"staticPodURL":"http://xxxxx:xxxxx@127\\.0\\.0\\.1:${closed}/pods"`),
    );
    assert.ok(!out.includes(PASSWORD) && !out.includes(USER), `the log shows no userinfo:\n${out}`);
    assert.match(
      out,
      /Effective configuration/,
      'the V(5) configuration line was written (and masked)',
    );

    assert.equal(await mode(root), '0750', 'root dir');
    assert.equal(await mode(podsDir), '0750', 'pods dir');
    assert.equal(await mode(join(logFile, '..')), '0750', 'pod dir');
    assert.equal(await mode(logFile), '0640', 'container log');
    assert.equal(await mode(join(root, 'process-runtime')), '0700', 'process-runtime dir');
    assert.equal(await mode(stateDir), '0700', 'state dir');
    const states = (await readdir(stateDir)).filter((f) => f.endsWith('.json'));
    assert.ok(states.length >= 2, `sandbox and container state files: ${states.join(', ')}`);
    for (const f of states) assert.equal(await mode(join(stateDir, f)), '0600', `state file ${f}`);
  },
);
