// The --config file and drop-ins are read once per start (src/agent/config/pre-read.ts): what the
// naming-profile inference read is what the loader decodes, and a file the inference could not
// read is read and reported by the loader.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FLAGS } from '../../../../src/agent/cli/flags.js';
import { parseArgs } from '../../../../src/agent/cli/parser.js';
import { inputSignals } from '../../../../src/agent/cli/profile-signals.js';
import { buildConfiguration } from '../../../../src/agent/config/effective.js';
import { newPreRead } from '../../../../src/agent/config/pre-read.js';
import { ConfigError } from '../../../../src/common/util/errors.js';

const HEAD = 'apiVersion: nodeagent.config.platform.io/v1beta1\nkind: NodeAgentConfiguration\n';

async function tree(t: {
  after(fn: () => unknown): void;
}): Promise<{ config: string; dir: string }> {
  const d = await mkdtemp(join(tmpdir(), 'na-preread-'));
  t.after(() => rm(d, { recursive: true, force: true }));
  await mkdir(join(d, 'config.d', 'nested'), { recursive: true });
  await writeFile(join(d, 'config.yaml'), `${HEAD}maxPods: 10\n`);
  await writeFile(join(d, 'config.d', '10-a.conf'), `${HEAD}maxPods: 20\n`);
  // anchors leave the fast parser: this one goes through the `yaml` library in both places
  await writeFile(
    join(d, 'config.d', 'nested', '20-b.conf'),
    `${HEAD}evictionHard: &e {memory.available: 7Mi}\n`,
  );
  return { config: join(d, 'config.yaml'), dir: join(d, 'config.d') };
}

test('the loader decodes what the profile inference read: the files are not read again', async (t) => {
  const { config, dir } = await tree(t);
  const preRead = newPreRead();
  const signals = await inputSignals(
    { explicit: undefined, argv: [], configFile: config, configDir: dir },
    preRead,
  );
  assert.deepEqual(
    signals.map((s) => s.profile),
    ['platform', 'platform', 'platform'],
  );
  assert.equal(preRead.files.size, 3);
  assert.deepEqual(preRead.dropIns.get(dir), [
    join(dir, '10-a.conf'),
    join(dir, 'nested', '20-b.conf'),
  ]);
  // Changed on disk after the inference read them: the start uses the texts it read, once.
  await writeFile(config, `${HEAD}maxPods: 11\n`);
  await writeFile(join(dir, '10-a.conf'), `${HEAD}maxPods: 21\n`);
  await writeFile(join(dir, '30-late.conf'), `${HEAD}maxPods: 31\n`);
  const eff = await buildConfiguration({
    specs: FLAGS,
    parsed: parseArgs(['--config', config, '--config-dir', dir]),
    preRead,
  });
  assert.deepEqual(eff.problems, []);
  assert.equal(eff.config.maxPods, 20);
  assert.equal(eff.config.evictionHard['memory.available'], '7Mi');
  assert.deepEqual(eff.files, [config, join(dir, '10-a.conf'), join(dir, 'nested', '20-b.conf')]);
  assert.equal(preRead.files.size, 0, 'each pre-read file is taken once');
  // Without what was read, the loader reads the files as they are now.
  const fresh = await buildConfiguration({
    specs: FLAGS,
    parsed: parseArgs(['--config', config, '--config-dir', dir]),
  });
  assert.equal(fresh.config.maxPods, 31);
});

test('a file the inference could not read is read by the loader, which reports the problem', async (t) => {
  const { dir } = await tree(t);
  const preRead = newPreRead();
  await inputSignals(
    { explicit: undefined, argv: [], configFile: dir, configDir: undefined },
    preRead,
  );
  assert.equal(preRead.files.size, 0, 'a directory is not read');
  await assert.rejects(
    buildConfiguration({ specs: FLAGS, parsed: parseArgs(['--config', dir]), preRead }),
    (e: unknown) =>
      e instanceof ConfigError &&
      e.message === `failed to read config file "${dir}": is a directory`,
  );
});

test('an oversized file is left to the loader, which names the limit', async (t) => {
  const { config } = await tree(t);
  await writeFile(config, `${HEAD}x: "${'a'.repeat(4 * 1024 * 1024)}"\n`);
  const preRead = newPreRead();
  await inputSignals(
    { explicit: undefined, argv: [], configFile: config, configDir: undefined },
    preRead,
  );
  assert.equal(preRead.files.size, 0);
  await assert.rejects(
    buildConfiguration({ specs: FLAGS, parsed: parseArgs(['--config', config]), preRead }),
    (e: unknown) => e instanceof ConfigError && e.message.startsWith(`config file "${config}"`),
  );
});
