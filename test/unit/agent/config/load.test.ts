import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmod, mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeConfigText, loadConfigFile } from '../../../../src/agent/config/load.js';
import { loadShapeSchema } from '../../../../src/agent/config/shape-check.js';
import { ConfigError } from '../../../../src/common/util/errors.js';

const HEAD = 'apiVersion: nodeagent.config.platform.io/v1beta1\nkind: NodeAgentConfiguration\n';
// With the published schema's fast pre-check, as the program runs; the zod-only path is covered
// by running the fatal cases both ways.
const opts = { defaultPlatformDomain: 'platform.io', shape: loadShapeSchema() };
const zodOnly = { defaultPlatformDomain: 'platform.io' };

async function problems(fn: () => Promise<unknown>): Promise<string[]> {
  try {
    await fn();
  } catch (err) {
    assert.ok(err instanceof ConfigError, `expected ConfigError, got ${String(err)}`);
    return [...err.problems];
  }
  assert.fail('expected a ConfigError');
}

test('the published schema is found', () => {
  assert.notEqual(opts.shape, undefined);
});

test('a valid YAML file decodes, with relative paths resolved against its directory', async () => {
  const r = await decodeConfigText(
    '/etc/nodeagent/config.yaml',
    `${HEAD}staticPodPath: manifests\ntlsCertFile: /abs/cert.pem\nauthentication:\n  x509:\n    clientCAFile: ../pki/ca.crt\nresolvConf: ''\nport: 10250\n`,
    opts,
  );
  assert.deepEqual(r.warnings, []);
  assert.equal(r.content['staticPodPath'], '/etc/nodeagent/manifests');
  assert.equal(r.content['tlsCertFile'], '/abs/cert.pem');
  assert.deepEqual(r.content['authentication'], { x509: { clientCAFile: '/etc/pki/ca.crt' } });
  assert.equal(r.content['resolvConf'], '');
});

test('JSON is accepted as well', async () => {
  const r = await decodeConfigText(
    '/c.json',
    JSON.stringify({
      apiVersion: 'nodeagent.config.platform.io/v1beta1',
      kind: 'NodeAgentConfiguration',
      maxPods: 12,
    }),
    opts,
  );
  assert.equal(r.content['maxPods'], 12);
});

test('unknown and duplicate fields are dropped with one warning each, naming line and column', async () => {
  const r = await decodeConfigText(
    '/c.yaml',
    `${HEAD}port: 1\nbogus: 1\nauthentication:\n  anonymous:\n    enabled: true\n    extra: x\nport: 2\n`,
    opts,
  );
  assert.equal(r.content['port'], 2);
  assert.equal(r.content['bogus'], undefined);
  assert.deepEqual(r.content['authentication'], { anonymous: { enabled: true } });
  assert.deepEqual(
    r.warnings.sort(),
    [
      'config file "/c.yaml" line 4, column 1: unknown field "bogus" ignored',
      'config file "/c.yaml" line 8, column 5: unknown field "authentication.anonymous.extra" ignored',
      'config file "/c.yaml" line 9, column 1: duplicate field "port" ignored, the last value is used',
    ].sort(),
  );
});

const fatal: { name: string; text: string; expect: RegExp }[] = [
  { name: 'empty file', text: '', expect: /^config file "\/c.yaml" was empty$/ },
  { name: 'whitespace only', text: '  \n\n', expect: /^config file "\/c.yaml" was empty$/ },
  { name: 'comments only', text: '# nothing\n', expect: /^config file "\/c.yaml" was empty$/ },
  {
    name: 'syntax error',
    text: `${HEAD}port: [1\nmaxPods: 2\n`,
    expect: /^config file "\/c.yaml" line \d+, column \d+: /,
  },
  {
    name: 'bad indentation',
    text: `${HEAD}authentication:\n  anonymous:\n enabled: true\n   x: 1\n`,
    expect: /^config file "\/c.yaml" line \d+, column \d+: /,
  },
  {
    name: 'wrong kind',
    text: 'apiVersion: nodeagent.config.platform.io/v1beta1\nkind: Pod\n',
    expect:
      /^config file "\/c.yaml" line 2, column 1: kind "Pod" is not supported: expected kind: NodeAgentConfiguration$/,
  },
  {
    name: 'missing kind',
    text: 'apiVersion: nodeagent.config.platform.io/v1beta1\nport: 1\n',
    expect: /kind is missing: expected kind: NodeAgentConfiguration/,
  },
  {
    name: 'wrong apiVersion',
    text: 'apiVersion: v1\nkind: NodeAgentConfiguration\n',
    expect:
      /line 1, column 1: apiVersion "v1" is not supported: expected apiVersion: nodeagent.config.platform.io\/v1beta1/,
  },
  {
    name: 'not a mapping',
    text: '- a\n- b\n',
    expect: /expected a NodeAgentConfiguration mapping, got a list/,
  },
  {
    name: 'a scalar',
    text: 'hello\n',
    expect: /expected a NodeAgentConfiguration mapping, got string/,
  },
  {
    name: 'wrong type',
    text: `${HEAD}\nport: "10250"\n`,
    expect:
      /^config file "\/c.yaml" line 4, column 1: field port: expected number, received string$/,
  },
  {
    name: 'wrong nested type',
    text: `${HEAD}authentication:\n  anonymous:\n    enabled: yes-please\n`,
    expect: /line 5, column 5: field authentication.anonymous.enabled: expected boolean/,
  },
  {
    name: 'wrong map value',
    text: `${HEAD}featureGates:\n  QOSReserved: maybe\n`,
    expect: /field featureGates.QOSReserved: expected boolean/,
  },
  {
    name: 'multiple documents',
    text: `${HEAD}---\n${HEAD}`,
    expect: /line 3, column 1: Source contains multiple documents/,
  },
];

for (const c of fatal) {
  for (const [how, o] of [
    ['with pre-check', opts],
    ['zod only', zodOnly],
  ] as const) {
    test(`fatal (${how}): ${c.name}`, async () => {
      const p = await problems(() => decodeConfigText('/c.yaml', c.text, o));
      assert.ok(p.length >= 1);
      assert.match(p[0] ?? '', c.expect);
      for (const line of p) assert.ok(!line.includes('\n'), `one line each: ${line}`);
    });
  }
}

test('the apiVersion follows --platform-domain, else the file platformDomain', async () => {
  const text = 'apiVersion: nodeagent.config.k8s.io/v1beta1\nkind: NodeAgentConfiguration\n';
  await decodeConfigText('/c.yaml', text, { ...opts, platformDomain: 'k8s.io' });
  await decodeConfigText('/c.yaml', `${text}platformDomain: k8s.io\n`, opts);
  assert.match(
    (await problems(() => decodeConfigText('/c.yaml', text, opts)))[0] ?? '',
    /expected apiVersion: nodeagent.config.platform.io\/v1beta1/,
  );
});

test('a drop-in may use null to delete a field (merge patch)', async () => {
  const r = await decodeConfigText('/d/10.conf', `${HEAD}evictionHard: null\nport: 3\n`, {
    ...opts,
    isDropIn: true,
  });
  assert.equal(r.content['evictionHard'], null);
  assert.match(
    (await problems(() => decodeConfigText('/d/10.conf', '', { ...opts, isDropIn: true })))[0] ??
      '',
    /^drop-in config file "\/d\/10.conf" was empty$/,
  );
});

test('unreadable files are one clear error naming the file', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'na-load-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  await assert.rejects(loadConfigFile(join(dir, 'missing.yaml'), opts), (err: unknown) => {
    assert.ok(err instanceof ConfigError);
    assert.equal(
      err.message,
      `failed to read config file "${join(dir, 'missing.yaml')}": no such file or directory`,
    );
    return true;
  });
  await mkdir(join(dir, 'adir'));
  await assert.rejects(loadConfigFile(join(dir, 'adir'), opts), /is a directory/);
  if (process.getuid?.() !== 0) {
    await writeFile(join(dir, 'secret.yaml'), HEAD);
    await chmod(join(dir, 'secret.yaml'), 0o000);
    await assert.rejects(loadConfigFile(join(dir, 'secret.yaml'), opts), /permission denied/);
  }
  await writeFile(join(dir, 'ok.yaml'), `${HEAD}staticPodPath: pods\n`);
  const r = await loadConfigFile(join(dir, 'ok.yaml'), opts);
  assert.equal(r.content['staticPodPath'], join(dir, 'pods'));
});

test('anchors, aliases and merge keys work as in the reference (bounded alias expansion)', async () => {
  const r = await decodeConfigText(
    '/c.yaml',
    `${HEAD}x-common: &common\n  memory.available: 100Mi\nevictionHard:\n  <<: *common\n  nodefs.available: 10%\n`,
    opts,
  );
  assert.deepEqual(r.content['evictionHard'], {
    'memory.available': '100Mi',
    'nodefs.available': '10%',
  });
  assert.deepEqual(r.warnings, [
    'config file "/c.yaml" line 3, column 1: unknown field "x-common" ignored',
  ]);
  const bomb = `${HEAD}a: &a [x, x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\ne: [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]\n`;
  const p = await problems(() => decodeConfigText('/c.yaml', bomb, opts));
  assert.match(p[0] ?? '', /^config file "\/c.yaml": Excessive alias count/);
});
