// Every place a file enters either program parses it within bounds: a 10,000-level document (JSON,
// YAML flow, YAML block) in a static pod manifest, an agent config file or drop-in, a platconfig
// or an API server configuration file is the program's own typed error naming the file and the
// limit (ManifestError, ConfigError, PlatconfigError), never a crash.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeManifest } from '../../../../src/agent/pod/decode.js';
import { decodeConfigText } from '../../../../src/agent/config/load.js';
import { parsePlatconfig } from '../../../../src/common/platconfig/platconfig.js';
import { loadConfigFile } from '../../../../src/apiserver/config/load.js';
import { ConfigError, ManifestError, PlatconfigError } from '../../../../src/common/util/errors.js';

const N = 10_000;
const deep = {
  json: (head: string) => `{${head}"x":${'{"a":'.repeat(N)}1${'}'.repeat(N)}}`,
  flow: (head: string) => `{${head}x: ${'['.repeat(N)}${']'.repeat(N)}}`,
  block: (head: string) =>
    `${head.replaceAll(', ', '\n').replaceAll('"', '')}\nx:\n  ${'- '.repeat(N)}v\n`,
};

test('static pod manifests: ManifestError naming the file and the limit', () => {
  for (const [form, make] of Object.entries(deep)) {
    const text = make('"apiVersion": "v1", "kind": "Pod", ');
    assert.throws(
      () => decodeManifest(text, '/etc/pods/deep.yaml'),
      (e: unknown) =>
        e instanceof ManifestError &&
        e.file === '/etc/pods/deep.yaml' &&
        /^\/etc\/pods\/deep\.yaml: more than 100 levels of nesting \(limit maxDepth=100\) at byte offset \d+.*: manifest skipped$/.test(
          e.message,
        ),
      form,
    );
  }
});

test('agent config files and drop-ins: a fatal ConfigError naming the file and the limit', async () => {
  const opts = { defaultPlatformDomain: 'platform.io' };
  for (const [form, make] of Object.entries(deep)) {
    for (const isDropIn of [false, true]) {
      const text = make(
        '"apiVersion": "nodeagent.config.platform.io/v1beta1", "kind": "NodeAgentConfiguration", ',
      );
      await assert.rejects(
        decodeConfigText('/etc/na/c.yaml', text, { ...opts, isDropIn }),
        (e: unknown) => {
          assert.ok(e instanceof ConfigError, String(e));
          assert.equal(e.file, '/etc/na/c.yaml');
          assert.match(
            e.message,
            /config file "\/etc\/na\/c\.yaml": more than 100 levels of nesting \(limit maxDepth=100\) at byte offset \d+/,
            `${form} ${isDropIn}`,
          );
          return true;
        },
      );
    }
  }
});

test('platconfig files: PlatconfigError naming the file and the limit', async () => {
  for (const make of Object.values(deep)) {
    await assert.rejects(
      parsePlatconfig(make('"apiVersion": "v1", "kind": "Config", '), '/p/admin.platconfig'),
      (e: unknown) => {
        assert.ok(e instanceof PlatconfigError);
        assert.match(
          e.message,
          /^platconfig \/p\/admin\.platconfig: more than 100 levels of nesting \(limit maxDepth=100\)/,
        );
        return true;
      },
    );
  }
});

test('API server configuration files: ConfigError naming the file and the limit', () => {
  const dir = mkdtempSync(join(tmpdir(), 'bounded-cfg-'));
  try {
    for (const [form, make] of Object.entries(deep)) {
      const file = join(dir, `${form}.yaml`);
      writeFileSync(
        file,
        make(
          '"apiVersion": "apiserver.config.platform.io/v1", "kind": "AuthenticationConfiguration", ',
        ),
      );
      assert.throws(
        () => loadConfigFile(file, 'AuthenticationConfiguration'),
        (e: unknown) => {
          assert.ok(e instanceof ConfigError, String(e));
          assert.ok(
            e.message.startsWith(`${file}: more than 100 levels of nesting (limit maxDepth=100)`),
            e.message,
          );
          return true;
        },
      );
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
