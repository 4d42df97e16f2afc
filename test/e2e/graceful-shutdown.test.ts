// Graceful node shutdown on the BUILT agent (bin/nodeagent, process:// runtime, standalone):
// pointed at a private D-Bus (DBUS_SYSTEM_BUS_ADDRESS) with a fake systemd-logind, it takes the
// delay inhibitor lock at start, and on PrepareForShutdown(true) stops its pods (a pod that
// traps SIGTERM records it) and releases the lock. Without a bus it says once why it cannot.
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { tempDir, waitFor } from '../integration/agent/pods/agent-harness.js';
import { killProcessPods } from '../integration/agent/pods/runtimes.js';
import { startFakeLogind, startPrivateBus } from '../helpers/fake-logind.js';
import { skipOutsideCi } from '../helpers/skip-outside-ci.js';
import { startAgent } from './static-pods-harness.js';

const noDbus =
  spawnSync('dbus-daemon', ['--version']).error !== undefined
    ? skipOutsideCi('dbus-daemon (Debian package dbus)', 'dbus-daemon is not installed')
    : undefined;

async function agentFiles(root: string, extra: string): Promise<string[]> {
  const manifests = join(root, 'manifests');
  const config = join(root, 'config.yaml');
  await writeFile(
    config,
    `apiVersion: nodeagent.config.platform.io/v1beta1\nkind: NodeAgentConfiguration\nshutdownGracePeriod: 20s\nshutdownGracePeriodCriticalPods: 10s\npodLogsDir: ${join(root, 'pod-logs')}\n${extra}`,
  );
  const { mkdir } = await import('node:fs/promises');
  await mkdir(manifests);
  return [
    '--config',
    config,
    '--pod-manifest-path',
    manifests,
    '--container-runtime-endpoint',
    'process://',
    '--root-dir',
    root,
    '--cert-dir',
    join(root, 'pki'),
    '--hostname-override',
    'shut',
    '--fail-cgroupv1=false',
    '--fail-swap-on=false',
    '--enable-server=false',
    '--healthz-port=0',
    '--read-only-port=0',
    '-v',
    '2',
  ];
}

test(
  'the built agent: delay lock at start; PrepareForShutdown(true) stops the pods (SIGTERM) and releases the lock',
  { skip: noDbus ?? false },
  async (t) => {
    const root = await tempDir('na-shutdown-e2e-');
    const bus = await startPrivateBus();
    const logind = await startFakeLogind(bus, {
      delayUSec: 60_000_000n,
      dropinDir: join(root.path, 'logind.conf.d'),
    });
    t.after(async () => {
      logind.stop();
      await bus.stop();
      await killProcessPods(root.path);
      await root.cleanup();
    });
    const args = await agentFiles(root.path, '');
    const seen = join(root.path, 'term.seen');
    await writeFile(
      join(root.path, 'manifests', 'web.yaml'),
      `apiVersion: v1\nkind: Pod\nmetadata: {name: web}\nspec: {containers: [{name: c, command: [sh, -c, "trap 'echo TERM > ${seen}; exit 0' TERM; echo up; while :; do sleep 0.1; done"]}]}\n`,
    );
    const prev = process.env['DBUS_SYSTEM_BUS_ADDRESS'];
    process.env['DBUS_SYSTEM_BUS_ADDRESS'] = bus.address;
    const agent = startAgent(args);
    if (prev === undefined) delete process.env['DBUS_SYSTEM_BUS_ADDRESS'];
    else process.env['DBUS_SYSTEM_BUS_ADDRESS'] = prev;
    t.after(async () => void (await agent.stop()));
    await waitFor('the inhibitor lock', () => logind.state.inhibits.length === 1, 30_000);
    assert.deepEqual(logind.state.inhibits[0]?.args, [
      'shutdown',
      'nodeagent',
      'nodeagent needs time to handle node shutdown',
      'delay',
    ]);
    logind.dropOwnCopies();
    await waitFor('the pod running', () => agent.output().includes('container started'), 30_000);
    assert.equal(logind.released(0), false);
    logind.prepareForShutdown(true);
    await waitFor(
      'the pod told to stop',
      async () => (await readFile(seen, 'utf8').catch(() => '')).includes('TERM'),
      30_000,
    );
    await waitFor('the lock released', () => logind.released(0), 30_000);
    // The agent logs completion just after it releases the lock (as the reference does): its line
    // may reach our end of the stdout pipe after logind saw the release, so it is awaited.
    for (const line of [
      /Shutdown manager detected new shutdown event/,
      /Shutdown manager completed processing shutdown event, node will shutdown shortly/,
    ]) {
      await waitFor(`the log line ${String(line)}`, () => line.test(agent.output()), 30_000).catch(
        () => assert.match(agent.output(), line),
      );
    }
  },
);

test('the built agent without a system bus: says once that graceful node shutdown cannot take effect, and why', async (t) => {
  const root = await tempDir('na-shutdown-nobus-');
  t.after(async () => {
    await killProcessPods(root.path);
    await root.cleanup();
  });
  const args = await agentFiles(root.path, '');
  const prev = process.env['DBUS_SYSTEM_BUS_ADDRESS'];
  process.env['DBUS_SYSTEM_BUS_ADDRESS'] = `unix:path=${join(root.path, 'no-bus.sock')}`;
  const agent = startAgent(args);
  if (prev === undefined) delete process.env['DBUS_SYSTEM_BUS_ADDRESS'];
  else process.env['DBUS_SYSTEM_BUS_ADDRESS'] = prev;
  t.after(async () => void (await agent.stop()));
  await waitFor(
    'the error line',
    () => agent.output().includes('Failed to start node shutdown manager'),
    30_000,
  );
  const lines = agent
    .output()
    .split('\n')
    .filter((l) => l.includes('Failed to start node shutdown manager'));
  assert.equal(lines.length, 1);
  assert.match(lines[0] ?? '', /cannot connect to the system bus at unix:path=.*no-bus\.sock/);
  assert.match(lines[0] ?? '', /graceful node shutdown cannot take effect/);
});
