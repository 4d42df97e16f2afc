// --runonce on the built agent: pods from files and a URL start, a summary line per pod is
// printed, and the exit status says whether all of them run.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { tempDir } from '../integration/agent/pods/agent-harness.js';
import { killProcessPods } from '../integration/agent/pods/runtimes.js';
import { NO_CGROUPS_ARGS } from '../helpers/agent-cgroups.js';
import { testPodLogsArgs } from '../helpers/agent-pod-logs.js';
import { launcherEnv } from '../helpers/launcher.js';

async function runOnce(
  t: { after: (fn: () => Promise<void>) => void },
  files: Record<string, string>,
  url?: string,
) {
  const root = await tempDir('na-runonce-');
  const m = await tempDir('na-runonce-m-');
  t.after(async () => {
    await killProcessPods(root.path);
    await root.cleanup();
    await m.cleanup();
  });
  for (const [name, text] of Object.entries(files)) await writeFile(join(m.path, name), text);
  const args = [
    '--runonce',
    '--enable-server=false',
    '--pod-manifest-path',
    m.path,
    '--container-runtime-endpoint',
    'process://',
    '--root-dir',
    root.path,
    '--cert-dir',
    join(root.path, 'pki'),
    '--hostname-override',
    'once',
    '--fail-cgroupv1=false',
    ...NO_CGROUPS_ARGS,
    ...testPodLogsArgs(root.path),
    '--healthz-port=0',
    '--read-only-port=0',
  ];
  if (url) args.push('--manifest-url', url);
  // async spawn: the URL server of the test runs in this process and must keep answering
  const child = spawn('bin/nodeagent', args, {
    stdio: ['ignore', 'pipe', 'ignore'],
    timeout: 60_000,
    env: launcherEnv(),
  });
  let stdout = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  // 'close', not 'exit': the output may still be on its way when the process has exited
  const status = await new Promise<number | null>((resolve) =>
    child.once('close', (code) => resolve(code)),
  );
  return { status, stdout };
}

const sleeper = (name: string): string =>
  `apiVersion: v1\nkind: Pod\nmetadata: {name: ${name}}\nspec: {containers: [{name: c, command: [sleep, "30"]}]}\n`;

test('--runonce: all pods (file and URL) running → exit 0 with a summary', async (t) => {
  const server = createServer((_q, res) =>
    res.end(
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'fromurl' },
        spec: { containers: [{ name: 'c', command: ['sleep', '30'] }] },
      }),
    ),
  );
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.after(() => new Promise<void>((r) => server.close(() => r())));
  const { status, stdout } = await runOnce(
    t,
    { 'a.yaml': sleeper('a') },
    `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
  );
  assert.match(stdout, /^pod default\/a-once: Running c=running$/m);
  assert.match(stdout, /^pod default\/fromurl-once: Running c=running$/m);
  assert.match(stdout, /runonce: all 2 pod\(s\) running/);
  assert.equal(status, 0);
});

test('--runonce: a pod that fails → exit 1', async (t) => {
  const { status, stdout } = await runOnce(t, {
    'ok.yaml': sleeper('ok'),
    'bad.yaml':
      'apiVersion: v1\nkind: Pod\nmetadata: {name: bad}\nspec: {restartPolicy: Never, containers: [{name: c, command: [sh, -c, "exit 4"]}]}\n',
  });
  assert.match(stdout, /^pod default\/bad-once: Failed c=terminated\(4\)$/m);
  assert.match(stdout, /^pod default\/ok-once: Running/m);
  assert.equal(status, 1);
});
