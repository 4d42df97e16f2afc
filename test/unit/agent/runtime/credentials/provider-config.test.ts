// --image-credential-provider-config: decoding and validation in the reference's words
// (pkg/credentialprovider/plugin/config.go, field.Error formats), files and directories.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, mkdir, rm, writeFile, chmod } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadCredentialProviderConfig } from '../../../../../src/agent/runtime/credentials/provider-config.js';
import { loadCredentialProviders } from '../../../../../src/agent/runtime/credentials/keyring.js';
import { ManualClock } from '../../../../helpers/manual-clock.js';
import { recordingLogger } from '../../../../helpers/recording-logger.js';

const HEAD = 'apiVersion: kubelet.config.k8s.io/v1\nkind: CredentialProviderConfig\n';
const GOOD = `${HEAD}providers:\n- name: cred\n  matchImages: ["*.registry.io", "127.0.0.1:5000"]\n  defaultCacheDuration: 12h\n  apiVersion: credentialprovider.kubelet.k8s.io/v1\n  args: [--flag]\n  env: [{name: A, value: b}]\n`;

async function dir(t: { after(fn: () => unknown): void }): Promise<string> {
  const d = await mkdtemp(join(tmpdir(), 'cred-config-'));
  t.after(() => rm(d, { recursive: true, force: true }));
  return d;
}

test('a valid CredentialProviderConfig loads with its defaults', async (t) => {
  const d = await dir(t);
  await writeFile(join(d, 'c.yaml'), GOOD);
  assert.deepEqual(await loadCredentialProviderConfig(join(d, 'c.yaml')), [
    {
      name: 'cred',
      matchImages: ['*.registry.io', '127.0.0.1:5000'],
      defaultCacheDurationMs: 12 * 3_600_000,
      apiVersion: 'credentialprovider.kubelet.k8s.io/v1',
      args: ['--flag'],
      env: [{ name: 'A', value: 'b' }],
    },
  ]);
});

test('validation: the reference messages, every problem at once', async (t) => {
  const d = await dir(t);
  const bad = `${HEAD}providers:\n- name: a/b\n  matchImages: []\n  apiVersion: credentialprovider.kubelet.k8s.io/v2\n- name: c d\n  matchImages: ["%zz"]\n  defaultCacheDuration: -1s\n`;
  await writeFile(join(d, 'c.yaml'), bad);
  await assert.rejects(loadCredentialProviderConfig(join(d, 'c.yaml')), (e: Error) => {
    const want = [
      `providers.name: Invalid value: "a/b": provider name cannot contain '/'`,
      'providers.apiVersion: Unsupported value: "credentialprovider.kubelet.k8s.io/v2": supported values: "credentialprovider.kubelet.k8s.io/v1", "credentialprovider.kubelet.k8s.io/v1alpha1", "credentialprovider.kubelet.k8s.io/v1beta1"',
      'providers.matchImages: Required value: at least 1 item in matchImages is required',
      'providers.defaultCacheDuration: Required value',
      'providers.name: Invalid value: "c d": provider name cannot contain spaces',
      'providers.apiVersion: Required value',
      'providers.defaultCacheDuration: Invalid value: "-1s": defaultCacheDuration must be greater than or equal to 0',
    ];
    assert.ok(e.message.startsWith('failed to validate credential provider config: ['), e.message);
    for (const w of want) assert.ok(e.message.includes(w), `${w}\nin ${e.message}`);
    assert.match(
      e.message,
      /providers\.matchImages: Invalid value: "%zz": match image is invalid: parse "https:\/\/%zz": invalid URL escape "%zz"/,
    );
    return true;
  });
  await writeFile(join(d, 'c.yaml'), `${HEAD}providers: []\n`);
  await assert.rejects(
    loadCredentialProviderConfig(join(d, 'c.yaml')),
    /^ConfigError: failed to validate credential provider config: providers: Required value: at least 1 item in plugins is required$/,
  );
  await writeFile(join(d, 'c.yaml'), `${HEAD}providers:\n- name: x\n  unknownField: 1\n`);
  await assert.rejects(
    loadCredentialProviderConfig(join(d, 'c.yaml')),
    /error decoding config ".*c\.yaml": providers\.0: Unrecognized key: "unknownField"/,
  );
  await writeFile(
    join(d, 'c.yaml'),
    'apiVersion: kubelet.config.k8s.io/v1\nkind: KubeletConfiguration\n',
  );
  await assert.rejects(
    loadCredentialProviderConfig(join(d, 'c.yaml')),
    /failed to decode "KubeletConfiguration" \(wrong Kind\)/,
  );
  await assert.rejects(
    loadCredentialProviderConfig(join(d, 'missing.yaml')),
    /unable to access path ".*missing\.yaml"/,
  );
});

test('a directory: its json/yaml/yml files merged in lexical order; a duplicate name across files is refused', async (t) => {
  const d = await dir(t);
  const one = (name: string) =>
    `${HEAD}providers:\n- name: ${name}\n  matchImages: [a.io]\n  defaultCacheDuration: 1m\n  apiVersion: credentialprovider.kubelet.k8s.io/v1\n`;
  await writeFile(join(d, 'b.yaml'), one('second'));
  await writeFile(join(d, 'a.yml'), one('first'));
  await writeFile(join(d, 'ignored.txt'), 'not a config');
  await mkdir(join(d, 'sub.yaml'));
  assert.deepEqual(
    (await loadCredentialProviderConfig(d)).map((p) => p.name),
    ['first', 'second'],
  );
  await writeFile(
    join(d, 'c.json'),
    JSON.stringify({
      apiVersion: 'kubelet.config.k8s.io/v1',
      kind: 'CredentialProviderConfig',
      providers: [
        {
          name: 'first',
          matchImages: ['a.io'],
          defaultCacheDuration: '1m',
          apiVersion: 'credentialprovider.kubelet.k8s.io/v1',
        },
      ],
    }),
  );
  await assert.rejects(
    loadCredentialProviderConfig(d),
    /duplicate provider name "first" found in configuration file\(s\)/,
  );
  const empty = await dir(t);
  await assert.rejects(
    loadCredentialProviderConfig(empty),
    /no configuration files found in directory/,
  );
});

test('start checks: the bin dir and each plugin binary must exist, in the reference words', async (t) => {
  const d = await dir(t);
  await writeFile(join(d, 'c.yaml'), GOOD);
  const o = { configPath: join(d, 'c.yaml'), clock: new ManualClock(), logger: recordingLogger() };
  await assert.rejects(
    loadCredentialProviders({ ...o, binDir: join(d, 'nope') }),
    new RegExp(`plugin binary directory ${join(d, 'nope')} did not exist`),
  );
  const bin = join(d, 'bin');
  await mkdir(bin);
  await assert.rejects(
    loadCredentialProviders({ ...o, binDir: bin }),
    new RegExp(`plugin binary executable ${join(bin, 'cred')} did not exist`),
  );
  await writeFile(join(bin, 'cred'), '#!/bin/sh\n');
  await assert.rejects(
    loadCredentialProviders({ ...o, binDir: bin }),
    new RegExp(`error inspecting binary executable ${join(bin, 'cred')}: permission denied`),
    'not executable',
  );
  await chmod(join(bin, 'cred'), 0o755);
  await loadCredentialProviders({ ...o, binDir: bin });
});
