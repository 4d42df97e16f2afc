// --hairpin-mode on a fake /proc and /sys/class/net: the reference's fallback from
// promiscuous-bridge to hairpin-veth without kubenet, hairpin turned on for the bridge port of a
// sandbox's veth (found through the sandbox's iflink), nothing for a veth on no bridge, a failure
// logged with the reference's words, and process:// saying once why it has no effect.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HairpinVeth, effectiveHairpinMode } from '../../../../src/agent/runtime/docker/hairpin.js';
import { createRuntime } from '../../../../src/agent/runtime/factory.js';
import { recordingLogger } from '../../../helpers/recording-logger.js';
import { ManualClock } from '../../../helpers/manual-clock.js';

async function fakeHost(t: {
  after(fn: () => unknown): void;
}): Promise<{ proc: string; net: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'na-hairpin-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const net = join(dir, 'sys/class/net');
  const iface = async (name: string, index: number, brport: boolean): Promise<void> => {
    await mkdir(join(net, name, brport ? 'brport' : ''), { recursive: true });
    await writeFile(join(net, name, 'ifindex'), `${index}\n`);
    if (brport) await writeFile(join(net, name, 'brport/hairpin_mode'), '0\n');
  };
  await iface('lo', 1, false);
  await iface('docker0', 3, false);
  await iface('veth1a2b', 9, true);
  await iface('vethlone', 11, false);
  const sandbox = async (pid: number, peer: number): Promise<void> => {
    await mkdir(join(dir, `proc/${pid}/root/sys/class/net/eth0`), { recursive: true });
    await writeFile(join(dir, `proc/${pid}/root/sys/class/net/eth0/iflink`), `${peer}\n`);
  };
  await sandbox(4242, 9);
  await sandbox(4343, 11);
  return { proc: join(dir, 'proc'), net };
}

test('--hairpin-mode: promiscuous-bridge falls back to hairpin-veth as the reference says without kubenet; hairpin-veth and none stand', () => {
  const log = recordingLogger();
  assert.equal(effectiveHairpinMode('promiscuous-bridge', log), 'hairpin-veth');
  assert.deepEqual(
    log.lines.map((l) => [l.level, l.msg, l.fields.hairpinMode]),
    [
      [
        'info',
        'Hairpin mode is set but kubenet is not enabled, falling back to HairpinVeth',
        'promiscuous-bridge',
      ],
    ],
  );
  assert.equal(effectiveHairpinMode('hairpin-veth', log), 'hairpin-veth');
  assert.equal(effectiveHairpinMode('none', log), 'none');
  assert.equal(log.lines.length, 1);
});

test('--hairpin-mode=hairpin-veth writes 1 to brport/hairpin_mode of the sandbox veth; a veth on no bridge is left alone; a failure is logged and the pod runs on', async (t) => {
  const host = await fakeHost(t);
  const log = recordingLogger();
  const hairpin = new HairpinVeth({ logger: log, procDir: host.proc, sysfsNet: host.net });
  await hairpin.sandboxStarted('web', 4242);
  assert.equal(await readFile(join(host.net, 'veth1a2b/brport/hairpin_mode'), 'utf8'), '1');
  await hairpin.sandboxStarted('lone', 4343);
  assert.equal(log.lines.filter((l) => l.level === 'warn').length, 0);
  assert.deepEqual(
    log.lines
      .filter((l) => l.level === 'debug')
      .map((l) => [l.fields.interfaceName, l.fields.result]),
    [
      ['veth1a2b', 'enabled'],
      ['vethlone', 'not a bridge port'],
    ],
  );
  await hairpin.sandboxStarted('gone', 5000);
  const warn = log.lines.find((l) => l.level === 'warn');
  assert.equal(warn?.msg, 'Hairpin setup failed for pod');
  assert.equal(warn?.fields.pod, 'gone');
  assert.match(
    String(warn?.fields.err),
    /could not read the peer interface index from .*proc\/5000\/root\/sys\/class\/net\/eth0\/iflink/,
  );
});

test('--hairpin-mode with process:// says once why it cannot take effect; none says nothing', async () => {
  const base = {
    endpoint: 'process://',
    imageEndpoint: '',
    rootDir: '/nonexistent',
    requestTimeoutMs: 0,
    serializeImagePulls: true,
    registryPullQPS: 0,
    registryBurst: 0,
    clock: new ManualClock(),
  };
  const log = recordingLogger();
  await (await createRuntime({ ...base, logger: log, hairpinMode: 'promiscuous-bridge' })).close();
  const warns = log.lines.filter((l) => l.level === 'warn');
  assert.equal(warns.length, 1);
  assert.equal(
    warns[0]?.msg,
    "--hairpin-mode cannot take effect on this host: the process:// runtime runs pods in the host's network namespace: they have no veth or bridge port; hairpin mode is not set",
  );
  const quiet = recordingLogger();
  await (await createRuntime({ ...base, logger: quiet, hairpinMode: 'none' })).close();
  assert.deepEqual(
    quiet.lines.filter((l) => l.level === 'warn'),
    [],
  );
});
