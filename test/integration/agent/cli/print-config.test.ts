// Golden tests of precedence through the built program: a config file, two drop-ins and flags,
// checked through `nodeagent --print-config`. UPDATE_GOLDEN=1 rewrites the golden file.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { REPO, runCli } from './run-cli.js';

const HEAD = 'apiVersion: nodeagent.config.platform.io/v1beta1\nkind: NodeAgentConfiguration\n';
const GOLDEN = resolve(REPO, 'test/integration/agent/cli/testdata/precedence.golden.yaml');

function docs(stdout: string): [Record<string, unknown>, Record<string, unknown>] {
  const all = parseAllDocuments(stdout);
  assert.ok(Array.isArray(all) && all.length === 2, 'two YAML documents');
  return [all[0]?.toJS() as Record<string, unknown>, all[1]?.toJS() as Record<string, unknown>];
}

test('precedence: defaults < file < drop-ins < flags (golden)', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'na-golden-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  await writeFile(
    join(dir, 'config.yaml'),
    `${HEAD}port: 10251\nmaxPods: 50\nsyncFrequency: 2m\nstaticPodPath: manifests\nfeatureGates:\n  QOSReserved: true\n  LoggingAlphaOptions: true\nevictionHard:\n  memory.available: 200Mi\n  nodefs.available: 5%\nclusterDNS: [10.0.0.10]\nstaticPodURL: https://pods.example.com/node\nstaticPodURLHeader:\n  Authorization: [Bearer file-secret]\n`,
  );
  await mkdir(join(dir, 'config.d', 'sub'), { recursive: true });
  await writeFile(
    join(dir, 'config.d', '10-first.conf'),
    `${HEAD}port: 10252\nmaxPods: 60\nfeatureGates:\n  CustomCPUCFSQuotaPeriod: true\nevictionHard:\n  nodefs.available: null\n  imagefs.available: 20%\nclusterDNS: [10.0.0.11, 10.0.0.12]\n`,
  );
  await writeFile(
    join(dir, 'config.d', 'sub', '20-second.conf'),
    `${HEAD}maxPods: 70\nhealthzPort: 0\ncpuCFSQuotaPeriod: 50ms\n`,
  );
  await writeFile(join(dir, 'config.d', 'ignored.yaml'), `${HEAD}maxPods: 1\n`);
  const r = await runCli([
    `--config=${join(dir, 'config.yaml')}`,
    `--config-dir=${join(dir, 'config.d')}`,
    '--max-pods=80',
    '--feature-gates=QOSReserved=false',
    '--node-labels=node.platform.io/pool=blue',
    '--hostname-override=node-7',
    '--print-config',
  ]);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(
    r.stderr,
    "Flag --max-pods has been deprecated, This parameter should be set via the config file specified by the nodeagent's --config flag.\n",
  );
  const [cfg, flags] = docs(r.stdout);
  assert.equal(cfg['port'], 10252, 'drop-in over file');
  assert.equal(cfg['maxPods'], 80, 'flag over drop-ins');
  assert.equal(cfg['healthzPort'], 0, 'second drop-in (in a subdirectory) applies');
  assert.equal(cfg['syncFrequency'], '2m0s', 'file over default');
  assert.equal(cfg['readOnlyPort'], 0, 'file-mode default');
  assert.deepEqual(
    cfg['featureGates'],
    { QOSReserved: false, LoggingAlphaOptions: true, CustomCPUCFSQuotaPeriod: true },
    'gates merge key by key',
  );
  assert.deepEqual(cfg['evictionHard'], {
    'memory.available': '200Mi',
    'imagefs.available': '20%',
  });
  assert.deepEqual(cfg['clusterDNS'], ['10.0.0.11', '10.0.0.12']);
  assert.equal(cfg['staticPodPath'], join(dir, 'manifests'));
  assert.deepEqual(cfg['staticPodURLHeader'], { Authorization: ['<masked>'] });
  assert.ok(!r.stdout.includes('file-secret'), 'secrets never printed');
  assert.equal(flags['kind'], 'NodeAgentFlags');
  assert.deepEqual(flags['nodeLabels'], { 'node.platform.io/pool': 'blue' });
  assert.equal(flags['hostnameOverride'], 'node-7');

  const normalized = r.stdout.split(dir).join('<DIR>');
  if (process.env['UPDATE_GOLDEN'] === '1') await writeFile(GOLDEN, normalized);
  assert.equal(
    normalized,
    await readFile(GOLDEN, 'utf8'),
    `golden output differs; if intended, rerun with UPDATE_GOLDEN=1`,
  );
});

test('without --config the legacy defaults apply', async () => {
  const r = await runCli(['--print-config']);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stderr, '');
  const [cfg] = docs(r.stdout);
  assert.deepEqual(cfg['authentication'], {
    x509: { clientCAFile: '' },
    webhook: { enabled: false, cacheTTL: '2m0s' },
    anonymous: { enabled: true },
  });
  assert.equal((cfg['authorization'] as { mode: string }).mode, 'AlwaysAllow');
  assert.equal(cfg['readOnlyPort'], 10255);
});

test('the examples are valid and merge as documented', async () => {
  const r = await runCli([
    '--config',
    'examples/nodeagent-config.yaml',
    '--config-dir',
    'examples/nodeagent-config.d',
    '--print-config',
  ]);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stderr, '');
  const [cfg] = docs(r.stdout);
  assert.equal(cfg['maxPods'], 60);
  assert.deepEqual(cfg['systemReserved'], { cpu: '500m', memory: '1Gi' });
  assert.deepEqual(cfg['evictionSoft'], {});
  assert.equal((cfg['logging'] as { verbosity: number }).verbosity, 4);
});

test('unknown fields are warned about on stderr, and the rest still applies', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'na-unknown-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  await writeFile(join(dir, 'c.yaml'), `${HEAD}maxPods: 12\nmaxPod: 13\nmaxPods: 14\n`);
  const r = await runCli(['--config', join(dir, 'c.yaml'), '--print-config']);
  assert.equal(r.code, 0, r.stderr);
  const lines = r.stderr.trim().split('\n');
  assert.equal(lines.length, 2, r.stderr);
  assert.match(
    r.stderr,
    /^W\d{4} [\d:.]+ config\] config file ".*c\.yaml" line 5, column 1: duplicate field "maxPods" ignored, the last value is used$/m,
  );
  assert.match(
    r.stderr,
    /^W\d{4} [\d:.]+ config\] config file ".*c\.yaml" line 4, column 1: unknown field "maxPod" ignored$/m,
  );
  assert.equal(docs(r.stdout)[0]['maxPods'], 14);
});

test('the example bootstrap platconfig and systemd files are well formed', async () => {
  const { parsePlatconfig } = await import('../../../../src/common/platconfig/index.js');
  const file = resolve(REPO, 'examples/bootstrap-platconfig.yaml');
  const pc = await parsePlatconfig(await readFile(file, 'utf8'), file);
  assert.equal(pc.kind, 'Config');
  const unit = await readFile(resolve(REPO, 'examples/systemd/nodeagent.service'), 'utf8');
  assert.match(unit, /^\[Service\]$/m);
  assert.match(unit, /^ExecStart=\/usr\/bin\/nodeagent$/m);
  const dropin = await readFile(
    resolve(REPO, 'examples/systemd/nodeagent.service.d/10-nodeagent.conf'),
    'utf8',
  );
  assert.match(dropin, /^ExecStart=$/m, 'the drop-in clears ExecStart before setting it');
  assert.match(
    dropin,
    /--config=\/etc\/nodeagent\/config\.yaml --config-dir=\/etc\/nodeagent\/config\.d/,
  );
});
