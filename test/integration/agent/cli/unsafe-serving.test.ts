// The built agent warns at start when its command endpoints are open to anyone (the reference's
// legacy flag defaults on a non-loopback address), naming the flags that close them. The agent
// is held waiting for a container runtime that is not there, so it never binds the address.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BIN, REPO } from './run-cli.js';
import { NO_CGROUPS_ARGS } from '../../../helpers/agent-cgroups.js';
import { testPodLogsArgs } from '../../../helpers/agent-pod-logs.js';
import { launcherEnv } from '../../../helpers/launcher.js';

function runUntil(args: string[], pattern: RegExp): Promise<{ out: string; code: number | null }> {
  return new Promise((resolve, reject) => {
    const child = spawn(BIN, args, {
      cwd: REPO,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: launcherEnv(),
    });
    let out = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    let signalled = false;
    const onData = (d: string): void => {
      out += d;
      // one signal: a second one while stopping means "exit at once" (status 1)
      if (!signalled && pattern.test(out)) {
        signalled = true;
        child.kill('SIGTERM');
      }
    };
    child.stdout.setEncoding('utf8').on('data', onData);
    child.stderr.setEncoding('utf8').on('data', onData);
    child.on('error', reject);
    // 'close', not 'exit': once it fires the whole output has been read
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ out, code });
    });
  });
}

test(
  'with the flag defaults on 0.0.0.0 the agent warns at start, naming --anonymous-auth=false, --authorization-mode=Webhook and --address; on 127.0.0.1 it does not',
  { timeout: 60_000 },
  async (t) => {
    const dir = await mkdtemp(join(tmpdir(), 'na-unsafe-'));
    t.after(() => rm(dir, { recursive: true, force: true }));
    const base = [
      `--root-dir=${join(dir, 'root')}`,
      `--cert-dir=${join(dir, 'pki')}`,
      `--container-runtime-endpoint=unix://${join(dir, 'no-engine.sock')}`,
      '--fail-cgroupv1=false',
      ...NO_CGROUPS_ARGS,
      '--fail-swap-on=false',
      ...testPodLogsArgs(dir),
    ];
    const held = /container runtime not answering/;

    const open = await runUntil([...base, '--address=0.0.0.0'], held);
    assert.equal(open.code, 0, open.out);
    const line = open.out.split('\n').find((l) => l.includes('Unsafe serving configuration')) ?? '';
    assert.match(
      line,
      /^W\S+ \S+ .*Unsafe serving configuration: the agent serves \/exec, \/run, \/attach and \/portForward on 0\.0\.0\.0:10250/,
    );
    for (const flag of ['--anonymous-auth=false', '--authorization-mode=Webhook', '--address'])
      assert.ok(line.includes(flag), `${flag} in: ${line}`);

    const closed = await runUntil([...base, '--address=127.0.0.1'], held);
    assert.equal(closed.code, 0, closed.out);
    assert.ok(!closed.out.includes('Unsafe serving configuration'), closed.out);
  },
);
