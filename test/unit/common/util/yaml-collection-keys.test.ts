// A mapping key that is a sequence or a mapping has no JSON form. The reference (go-yaml v2 under
// sigs.k8s.io/yaml) refuses the document; the `yaml` library would stringify the key ("[ a, b ]")
// and write a Node process warning. Every YAML input of both programs refuses it, naming the
// source, the line and column, and what a key may be; nothing reaches process warnings.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeManifest } from '../../../../src/agent/pod/decode.js';
import { decodeConfigText } from '../../../../src/agent/config/load.js';
import { loadCredentialProviderConfig } from '../../../../src/agent/runtime/credentials/provider-config.js';
import { parsePlatconfig } from '../../../../src/common/platconfig/platconfig.js';
import { loadConfigFile } from '../../../../src/apiserver/config/load.js';
import {
  CONFIG_FILE_LIMITS,
  parseYamlValueBounded,
} from '../../../../src/common/util/bounded-parse.js';
import { CollectionKeyError } from '../../../../src/common/util/yaml-collection-key.js';
import { setYamlNoteSink } from '../../../../src/common/util/yaml-notes.js';
import { ConfigError, ManifestError, PlatconfigError } from '../../../../src/common/util/errors.js';

const ACCEPTED = 'a mapping key must be a string, a number within int64 or a boolean';

/** Runs `fn`, then lets a process warning (emitted on the next tick) arrive, and returns those that did. */
async function processWarnings(fn: () => unknown): Promise<string[]> {
  const seen: string[] = [];
  const onWarning = (w: Error): void => void seen.push(w.message);
  process.on('warning', onWarning);
  try {
    await fn();
    await new Promise((r) => setImmediate(r));
  } finally {
    process.off('warning', onWarning);
  }
  return seen;
}

// [text, line, column, kind]: block (`? `), flow keys, nested, an alias of a collection.
const CASES: [string, number, number, 'sequence' | 'mapping'][] = [
  ['? [a, b]\n: c\n', 1, 3, 'sequence'],
  ['[a]: b\n', 1, 1, 'sequence'],
  ['{a: b}: c\n', 1, 1, 'mapping'],
  ['x:\n  y: {[a]: b}\n', 2, 7, 'sequence'],
  ['x: [{a: 1}: 2]\n', 1, 5, 'mapping'],
  ['? - a\n  - b\n: c\n', 1, 3, 'sequence'],
  ['x: &s [1]\n*s : 2\n', 2, 1, 'sequence'],
  ['? {k: v}\n: w\n', 1, 3, 'mapping'],
  // go-yaml decodes a key before checking it: the collection key inside the key is the one named
  ['? [{[i]: j}]\n: c\n', 1, 5, 'sequence'],
];

test('parseYamlValueBounded: a collection key is a CollectionKeyError naming the source, line and column and what is accepted; no process warning', async () => {
  for (const [text, line, col, kind] of CASES) {
    const warnings = await processWarnings(() =>
      assert.throws(
        () => parseYamlValueBounded(text, { limits: CONFIG_FILE_LIMITS, source: 'the source' }),
        (e: unknown) => {
          assert.ok(e instanceof CollectionKeyError, String(e));
          assert.equal(
            e.message,
            `the source: line ${line}, column ${col}: invalid map key: the key is a ${kind}; ${ACCEPTED}`,
            JSON.stringify(text),
          );
          assert.deepEqual([e.line, e.col, e.kind], [line, col, kind]);
          return true;
        },
      ),
    );
    assert.deepEqual(warnings, [], `no process warning for ${JSON.stringify(text)}`);
  }
});

test('scalar keys of every kind are read as the reference reads them: strings, numbers, booleans, an alias of a scalar, explicit scalar keys; a null key refused', () => {
  const read = (text: string): unknown =>
    parseYamlValueBounded(text, { limits: CONFIG_FILE_LIMITS, source: 's' });
  // The reference (YAMLToJSON): {"1":"x","a":1,"true":true} (y is true to go-yaml v2); `null: z` is `Unsupported map key of type: %!s(<nil>), key: <nil>, value: "z"`.
  assert.deepEqual(read('a: 1\n1: x\ntrue: y\n'), { a: 1, 1: 'x', true: true });
  assert.throws(() => read('a: 1\nnull: z\n'), {
    message:
      's: line 2, column 1: a mapping key that is null has no JSON form; a mapping key must be a string, a number within int64 or a boolean',
  });
  assert.deepEqual(read('k: &n name\n*n : v\n'), { k: 'name', name: 'v' });
  assert.deepEqual(read('? a\n: b\n"q": c\n'), { a: 'b', q: 'c' });
});

test('the key the message shows in the reference`s words keeps its values: CollectionKeyError.key', () => {
  assert.throws(
    () =>
      parseYamlValueBounded('? [a, 1, true, null, {x: y}]\n: c\n', {
        limits: CONFIG_FILE_LIMITS,
        source: 's',
      }),
    (e: unknown) => {
      assert.ok(e instanceof CollectionKeyError, String(e));
      // The reference: `yaml: invalid map key: []interface {}{"a", 1, true, interface {}(nil), map[interface {}]interface {}{"x":true}}` (y is true to go-yaml v2).
      assert.deepEqual(e.key, ['a', 1, true, null, new Map([['x', true]])]);
      return true;
    },
  );
});

test('static pod manifests: a ManifestError naming the file, line and column; no process warning', async () => {
  const text = '? [a, b]\n: c\napiVersion: v1\nkind: Pod\n';
  const warnings = await processWarnings(() =>
    assert.throws(
      () => decodeManifest(text, '/etc/pods/k.yaml'),
      (e: unknown) => {
        assert.ok(e instanceof ManifestError, String(e));
        assert.equal(e.file, '/etc/pods/k.yaml');
        assert.equal(
          e.message,
          `/etc/pods/k.yaml: line 1, column 3: invalid map key: the key is a sequence; ${ACCEPTED}: manifest skipped`,
        );
        return true;
      },
    ),
  );
  assert.deepEqual(warnings, []);
  // the second document of a manifest names its own line
  assert.throws(
    () => decodeManifest('apiVersion: v1\nkind: Pod\n---\n{a: b}: c\n', '/m.yaml'),
    (e: unknown) =>
      e instanceof ManifestError &&
      e.message.startsWith('/m.yaml: line 4, column 1: invalid map key: the key is a mapping;'),
  );
});

test('agent config files and drop-ins: a fatal ConfigError `config file "<path>" line L, column C`; the fast path leaves the file to the full parser', async () => {
  const head = 'apiVersion: nodeagent.config.platform.io/v1beta1\nkind: NodeAgentConfiguration\n';
  for (const isDropIn of [false, true]) {
    for (const profile of [undefined, 'kubernetes'] as const) {
      const text = `${head}? [a, b]\n: c\n`;
      await assert.rejects(
        decodeConfigText('/etc/na/c.yaml', text, {
          defaultPlatformDomain: 'platform.io',
          isDropIn,
          ...(profile ? { profile } : {}),
        }),
        (e: unknown) => {
          assert.ok(e instanceof ConfigError, String(e));
          assert.equal(
            e.message,
            `config file "/etc/na/c.yaml" line 3, column 3: invalid map key: the key is a sequence; ${ACCEPTED}`,
          );
          return true;
        },
      );
    }
  }
});

test('platconfig files: a PlatconfigError naming the file, line and column', async () => {
  await assert.rejects(
    parsePlatconfig('apiVersion: v1\nkind: Config\nclusters:\n- {[a]: b}\n', '/p/admin.platconfig'),
    (e: unknown) => {
      assert.ok(e instanceof PlatconfigError, String(e));
      assert.equal(
        e.message,
        `platconfig /p/admin.platconfig is not valid YAML: line 4, column 4: invalid map key: the key is a sequence; ${ACCEPTED}`,
      );
      return true;
    },
  );
});

test('API server configuration files and the credential provider config: a ConfigError naming the file, line and column', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'collection-key-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const apiFile = join(dir, 'authn.yaml');
  writeFileSync(
    apiFile,
    'apiVersion: apiserver.config.platform.io/v1\nkind: AuthenticationConfiguration\n? [a]\n: b\n',
  );
  assert.throws(
    () => loadConfigFile(apiFile, 'AuthenticationConfiguration'),
    (e: unknown) => {
      assert.ok(e instanceof ConfigError, String(e));
      assert.equal(
        e.message,
        `${apiFile}: line 3, column 3: invalid map key: the key is a sequence; ${ACCEPTED}`,
      );
      return true;
    },
  );
  const credFile = join(dir, 'cred.yaml');
  writeFileSync(
    credFile,
    'apiVersion: kubelet.config.k8s.io/v1\nkind: CredentialProviderConfig\nproviders:\n- name: p\n  ? {x: 1}\n  : y\n',
  );
  await assert.rejects(loadCredentialProviderConfig(credFile), (e: unknown) => {
    assert.ok(e instanceof ConfigError, String(e));
    assert.equal(
      e.message,
      `error decoding config "${credFile}": line 5, column 5: invalid map key: the key is a mapping; ${ACCEPTED}`,
    );
    return true;
  });
});

test('a .inf value and a null key (refused as the reference refuses them) name each file once, as a collection key does', async (t) => {
  const head = 'apiVersion: nodeagent.config.platform.io/v1beta1\nkind: NodeAgentConfiguration\n';
  const INF = '.inf is not a JSON number; accepted: a finite number, or a quoted string';
  const NULL_KEY = `a mapping key that is null has no JSON form; ${ACCEPTED}`;
  await assert.rejects(
    decodeConfigText('/etc/na/c.yaml', `${head}maxPods: .inf\n`, {
      defaultPlatformDomain: 'platform.io',
      isDropIn: false,
    }),
    { message: `config file "/etc/na/c.yaml" line 3, column 10: ${INF}` },
  );
  await assert.rejects(
    decodeConfigText('/etc/na/c.yaml', `${head}null: 3\n`, {
      defaultPlatformDomain: 'platform.io',
      isDropIn: false,
    }),
    { message: `config file "/etc/na/c.yaml" line 3, column 1: ${NULL_KEY}` },
  );
  await assert.rejects(
    parsePlatconfig('apiVersion: v1\nkind: Config\n~: x\n', '/p/admin.platconfig'),
    { message: `platconfig /p/admin.platconfig is not valid YAML: line 3, column 1: ${NULL_KEY}` },
  );
  const dir = mkdtempSync(join(tmpdir(), 'go-yaml-value-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const apiFile = join(dir, 'authn.yaml');
  writeFileSync(
    apiFile,
    'apiVersion: apiserver.config.platform.io/v1\nkind: AuthenticationConfiguration\nx: -.inf\n',
  );
  assert.throws(() => loadConfigFile(apiFile, 'AuthenticationConfiguration'), {
    message: `${apiFile}: line 3, column 4: -.inf is not a JSON number; accepted: a finite number, or a quoted string`,
  });
  const credFile = join(dir, 'cred.yaml');
  writeFileSync(
    credFile,
    'apiVersion: kubelet.config.k8s.io/v1\nkind: CredentialProviderConfig\nproviders:\n- name: p\n  null: y\n',
  );
  await assert.rejects(loadCredentialProviderConfig(credFile), {
    message: `error decoding config "${credFile}": line 5, column 3: ${NULL_KEY}`,
  });
});

test('the library`s warnings (unknown tags and directives, the YAML 1.1 tags) are notes through the sink, read as if untagged, never process warnings', async (t) => {
  const notes: string[] = [];
  setYamlNoteSink((n) => notes.push(n));
  t.after(() => setYamlNoteSink(undefined));
  let value: unknown;
  const warnings = await processWarnings(() => {
    value = parseYamlValueBounded(
      '%FOO bar\n---\na: !foo x\nb: !!binary aGk=\nc: !!set {k}\nd: !!timestamp 2001-01-01\n',
      { limits: CONFIG_FILE_LIMITS, source: 'f.yaml' },
    );
  });
  assert.deepEqual(warnings, []);
  // plain JSON values: no Buffer, Set or Date
  assert.deepEqual(value, { a: 'x', b: 'aGk=', c: { k: null }, d: '2001-01-01' });
  assert.deepEqual(notes, [
    'f.yaml: line 1, column 1: Unknown directive %FOO (YAML warning BAD_DIRECTIVE): ignored, the document is read without it',
    'f.yaml: line 3, column 4: Unresolved tag: !foo (YAML warning TAG_RESOLVE_FAILED): ignored, the document is read without it',
    'f.yaml: line 4, column 4: Unresolved tag: tag:yaml.org,2002:binary (YAML warning TAG_RESOLVE_FAILED): ignored, the document is read without it',
    'f.yaml: line 5, column 4: Unresolved tag: tag:yaml.org,2002:set (YAML warning TAG_RESOLVE_FAILED): ignored, the document is read without it',
    'f.yaml: line 6, column 4: Unresolved tag: tag:yaml.org,2002:timestamp (YAML warning TAG_RESOLVE_FAILED): ignored, the document is read without it',
  ]);
});

test('a text read twice (a config file by the profile inference, then by the loader) is noted once', (t) => {
  const notes: string[] = [];
  setYamlNoteSink((n) => notes.push(n));
  t.after(() => setYamlNoteSink(undefined));
  for (let i = 0; i < 3; i++)
    parseYamlValueBounded('a: !twice x\n', { limits: CONFIG_FILE_LIMITS, source: 'twice.yaml' });
  assert.deepEqual(notes, [
    'twice.yaml: line 1, column 4: Unresolved tag: !twice (YAML warning TAG_RESOLVE_FAILED): ignored, the document is read without it',
  ]);
});

test('notes from before a sink is set are held and handed over when it is', (t) => {
  t.after(() => setYamlNoteSink(undefined));
  setYamlNoteSink(undefined);
  parseYamlValueBounded('a: !early x\n', { limits: CONFIG_FILE_LIMITS, source: 'early.yaml' });
  const notes: string[] = [];
  setYamlNoteSink((n) => notes.push(n));
  assert.deepEqual(notes, [
    'early.yaml: line 1, column 4: Unresolved tag: !early (YAML warning TAG_RESOLVE_FAILED): ignored, the document is read without it',
  ]);
});

test('LOG_TOKENS and LOG_STREAM in the environment: the library prints nothing to stdout while we parse; one note says so; the variables are put back', async (t) => {
  const notes: string[] = [];
  setYamlNoteSink((n) => notes.push(n));
  // the library prints with console.log (tokens) and console.dir (CST tokens)
  const printed: unknown[] = [];
  const { log, dir } = console;
  console.log = (...a: unknown[]) => void printed.push(a);
  console.dir = (...a: unknown[]) => void printed.push(a);
  process.env['LOG_TOKENS'] = '1';
  process.env['LOG_STREAM'] = '1';
  t.after(() => {
    console.log = log;
    console.dir = dir;
    delete process.env['LOG_TOKENS'];
    delete process.env['LOG_STREAM'];
    setYamlNoteSink(undefined);
  });
  let value: unknown;
  const warnings = await processWarnings(() => {
    value = parseYamlValueBounded('secret: s3cr3t\n', {
      limits: CONFIG_FILE_LIMITS,
      source: 'f.yaml',
    });
    parseYamlValueBounded('a: 1\n', { limits: CONFIG_FILE_LIMITS, source: 'g.yaml' });
  });
  console.log = log;
  console.dir = dir;
  assert.deepEqual(value, { secret: 's3cr3t' });
  assert.deepEqual(printed, [], 'nothing printed');
  assert.deepEqual(warnings, []);
  assert.deepEqual(notes, [
    'LOG_TOKENS and LOG_STREAM set in the environment: ignored while YAML is parsed (the yaml library would print the text it reads to stdout)',
  ]);
  assert.deepEqual([process.env['LOG_TOKENS'], process.env['LOG_STREAM']], ['1', '1'], 'put back');
});
