import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FLAGS } from '../../../../src/agent/cli/flags.js';
import { parseArgs } from '../../../../src/agent/cli/parser.js';
import { buildConfiguration } from '../../../../src/agent/config/effective.js';
import { renderPrintConfig } from '../../../../src/agent/config/print.js';
import { MASK } from '../../../../src/agent/config/redact.js';
import { ConfigError } from '../../../../src/common/util/errors.js';

const HEAD = 'apiVersion: nodeagent.config.platform.io/v1beta1\nkind: NodeAgentConfiguration\n';

async function dir(
  t: { after(fn: () => unknown): void },
  files: Record<string, string>,
): Promise<string> {
  const d = await mkdtemp(join(tmpdir(), 'na-eff-'));
  t.after(() => rm(d, { recursive: true, force: true }));
  for (const [rel, text] of Object.entries(files)) {
    await mkdir(join(d, rel, '..'), { recursive: true });
    await writeFile(join(d, rel), text);
  }
  return d;
}

const build = (argv: string[]) => buildConfiguration({ specs: FLAGS, parsed: parseArgs(argv) });

test('without --config the legacy flag defaults apply', async () => {
  const r = await build([]);
  assert.deepEqual(r.problems, []);
  assert.equal(r.config.authentication.anonymous.enabled, true);
  assert.equal(r.config.authentication.webhook.enabled, false);
  assert.equal(r.config.authorization.mode, 'AlwaysAllow');
  assert.equal(r.config.readOnlyPort, 10255);
  assert.equal(r.flags.certDir, '/var/lib/nodeagent/pki');
});

test('with --config the file defaults apply', async (t) => {
  const d = await dir(t, { 'c.yaml': HEAD });
  const r = await build(['--config', join(d, 'c.yaml')]);
  assert.equal(r.config.authentication.anonymous.enabled, false);
  assert.equal(r.config.authentication.webhook.enabled, true);
  assert.equal(r.config.authorization.mode, 'Webhook');
  assert.equal(r.config.readOnlyPort, 0);
});

test('precedence: defaults < file < drop-ins (lexical) < flags; feature gates merge key by key', async (t) => {
  const d = await dir(t, {
    'c.yaml': `${HEAD}port: 10251\nmaxPods: 50\nsyncFrequency: 2m\nfeatureGates:\n  QOSReserved: true\n  LoggingAlphaOptions: true\nevictionHard:\n  memory.available: 200Mi\n  nodefs.available: 5%\nclusterDNS: [10.0.0.10]\n`,
    'd/10-a.conf': `${HEAD}port: 10252\nmaxPods: 60\nfeatureGates:\n  CustomCPUCFSQuotaPeriod: true\nevictionHard:\n  nodefs.available: null\n  imagefs.available: 20%\nclusterDNS: [10.0.0.11, 10.0.0.12]\n`,
    'd/20-b.conf': `${HEAD}maxPods: 70\nstaticPodPath: pods\n`,
  });
  const r = await build([
    '--config',
    join(d, 'c.yaml'),
    '--config-dir',
    join(d, 'd'),
    '--max-pods=80',
    '--feature-gates=QOSReserved=false',
  ]);
  assert.deepEqual(r.problems, []);
  assert.equal(r.config.port, 10252, 'drop-in over file');
  assert.equal(r.config.maxPods, 80, 'flag over drop-ins');
  assert.equal(r.config.syncFrequency, '2m0s', 'file over defaults, normalized');
  assert.deepEqual(r.config.featureGates, {
    QOSReserved: false,
    LoggingAlphaOptions: true,
    CustomCPUCFSQuotaPeriod: true,
  });
  assert.deepEqual(
    r.config.evictionHard,
    { 'memory.available': '200Mi', 'imagefs.available': '20%' },
    'drop-in merges maps key by key',
  );
  assert.deepEqual(r.config.clusterDNS, ['10.0.0.11', '10.0.0.12'], 'lists are replaced whole');
  assert.equal(r.config.staticPodPath, join(d, 'd', 'pods'), 'relative to the drop-in directory');
  assert.deepEqual(r.files, [
    join(d, 'c.yaml'),
    join(d, 'd', '10-a.conf'),
    join(d, 'd', '20-b.conf'),
  ]);
});

test('a flag map replaces the file map; flag-only settings land in NodeAgentFlags', async (t) => {
  const d = await dir(t, {
    'c.yaml': `${HEAD}evictionHard:\n  memory.available: 200Mi\n  nodefs.available: 5%\n`,
  });
  const r = await build([
    '--config',
    join(d, 'c.yaml'),
    '--eviction-hard=memory.available<300Mi',
    '--node-labels=a=b',
    '--root-dir=/srv/na',
    '--hostname-override=node-1',
  ]);
  assert.deepEqual(r.config.evictionHard, { 'memory.available': '300Mi' });
  assert.deepEqual(r.flags.nodeLabels, { a: 'b' });
  assert.equal(r.flags.rootDir, '/srv/na');
  assert.equal(r.flags.hostnameOverride, 'node-1');
});

test('validation problems come back together, load problems throw ConfigError', async (t) => {
  const d = await dir(t, {
    'c.yaml': `${HEAD}eventRecordQPS: -1\n`,
    'bad.yaml': `${HEAD}port: [\n`,
  });
  const r = await build(['--config', join(d, 'c.yaml'), '--image-gc-high-threshold=150']);
  assert.deepEqual(r.problems, [
    'invalid configuration: eventRecordQPS (--event-qps) -1 must not be a negative number',
    'invalid configuration: imageGCHighThresholdPercent (--image-gc-high-threshold) 150 must be between 0 and 100, inclusive',
  ]);
  await assert.rejects(
    build(['--config', join(d, 'bad.yaml')]),
    (err: unknown) =>
      err instanceof ConfigError && /bad\.yaml" line \d+, column \d+/.test(err.message),
  );
  await assert.rejects(build(['--config-dir', join(d, 'nope')]), /failed to read config dir/);
});

test('--platform-domain changes the expected apiVersion', async (t) => {
  const d = await dir(t, {
    'c.yaml': 'apiVersion: nodeagent.config.k8s.io/v1beta1\nkind: NodeAgentConfiguration\n',
  });
  const r = await build(['--platform-domain=k8s.io', '--config', join(d, 'c.yaml')]);
  assert.equal(r.config.apiVersion, 'nodeagent.config.k8s.io/v1beta1');
  assert.equal(r.config.platformDomain, 'k8s.io');
});

test('print-config masks header values and shows every field', async () => {
  const r = await build([
    '--manifest-url=https://example.com/pods',
    '--manifest-url-header=Authorization:Bearer s3cret,X-A:1',
  ]);
  const out = renderPrintConfig(r.config, r.flags);
  assert.ok(!out.includes('s3cret'));
  assert.match(out, new RegExp(`Authorization:\\n\\s+- "?${MASK}"?`));
  const [first, second] = out.split('\n---\n');
  // the flag defaults open the command endpoints: a comment marks it before the document
  assert.match(
    first ?? '',
    /^# WARNING \(unsafe\): [^\n]*\napiVersion: nodeagent.config.platform.io\/v1beta1\nkind: NodeAgentConfiguration\n/,
  );
  assert.match(
    second ?? '',
    /^apiVersion: nodeagent.config.platform.io\/v1beta1\nkind: NodeAgentFlags\n/,
  );
  for (const spec of FLAGS) {
    const key = spec.configPath?.split('.')[0] ?? spec.flagsField;
    if (key !== undefined)
      assert.match(out, new RegExp(`^${key}:`, 'm'), `--${spec.name} shows as ${key}`);
  }
});

test('insecure cipher suites are accepted with a warning', async () => {
  const r = await build([
    '--tls-cipher-suites=TLS_RSA_WITH_AES_128_CBC_SHA,TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256',
  ]);
  assert.deepEqual(r.problems, []);
  assert.deepEqual(r.warnings, [
    'tlsCipherSuites (--tls-cipher-suites) includes the insecure cipher suite TLS_RSA_WITH_AES_128_CBC_SHA',
  ]);
});

test('zero durations are accepted as the reference accepts them: zero in a file is unset and gets the default', async (t) => {
  const d = await dir(t, {
    'c.yaml': `${HEAD}nodeStatusUpdateFrequency: 0s\nsyncFrequency: 0s\nfileCheckFrequency: 0s\nruntimeRequestTimeout: 0s\nimageMinimumGCAge: 0s\nevictionPressureTransitionPeriod: 0s\n`,
    'd/10-a.conf': `${HEAD}cpuManagerReconcilePeriod: 0s\nnodeStatusReportFrequency: 0s\n`,
  });
  const r = await build(['--config', join(d, 'c.yaml'), '--config-dir', join(d, 'd')]);
  assert.deepEqual(r.problems, []);
  assert.equal(r.config.nodeStatusUpdateFrequency, '10s');
  assert.equal(r.config.nodeStatusReportFrequency, '5m0s');
  assert.equal(r.config.syncFrequency, '1m0s');
  assert.equal(r.config.fileCheckFrequency, '20s');
  assert.equal(r.config.runtimeRequestTimeout, '2m0s');
  assert.equal(r.config.imageMinimumGCAge, '2m0s');
  assert.equal(r.config.evictionPressureTransitionPeriod, '5m0s');
  assert.equal(r.config.cpuManagerReconcilePeriod, '10s');
  // the flag's zero is accepted too; a period cannot run at zero, so its default applies, said once
  const f = await build(['--node-status-update-frequency=0s', '--minimum-image-ttl-duration=0s']);
  assert.deepEqual(f.problems, []);
  assert.equal(f.config.nodeStatusUpdateFrequency, '10s');
  assert.equal(f.config.imageMinimumGCAge, '0s');
  assert.deepEqual(f.warnings, [
    '--node-status-update-frequency=0s: a zero nodeStatusUpdateFrequency would run without pause, so its default 10s applies (the reference accepts a zero too)',
  ]);
});

test("a config file without evictionHard gets the reference's Linux default, imagefs.inodesFree included", async (t) => {
  const d = await dir(t, { 'c.yaml': HEAD });
  const r = await build(['--config', join(d, 'c.yaml')]);
  assert.deepEqual(r.config.evictionHard, {
    'memory.available': '100Mi',
    'nodefs.available': '10%',
    'nodefs.inodesFree': '5%',
    'imagefs.available': '15%',
    'imagefs.inodesFree': '5%',
  });
});

test("--feature-gates wins over a file's gate under the reference's name (KubeletTracing)", async (t) => {
  const d = await dir(t, {
    'c.yaml': `${HEAD}featureGates:\n  KubeletTracing: true\n  QOSReserved: true\n`,
  });
  const r = await build(['--config', join(d, 'c.yaml'), '--feature-gates=PlatletTracing=false']);
  assert.deepEqual(r.problems, []);
  assert.deepEqual(r.config.featureGates, { QOSReserved: true, PlatletTracing: false });
});

test("a drop-in's gate replaces the file's under its other name; one document naming a gate twice is refused", async (t) => {
  const d = await dir(t, {
    'c.yaml': `${HEAD}featureGates:\n  KubeletTracing: true\n  QOSReserved: true\n`,
    'd/10-a.conf': `${HEAD}featureGates:\n  PlatletTracing: false\n`,
    'd/20-b.conf': `${HEAD}featureGates:\n  KubeletTracing: true\n`,
    'twice.yaml': `${HEAD}featureGates:\n  KubeletTracing: true\n  PlatletTracing: false\n`,
  });
  const one = await build(['--config', join(d, 'c.yaml'), '--config-dir', join(d, 'd')]);
  assert.deepEqual(one.problems, []);
  assert.deepEqual(one.config.featureGates, { KubeletTracing: true, QOSReserved: true });
  const twice = await build(['--config', join(d, 'twice.yaml')]);
  assert.deepEqual(twice.problems, [
    "invalid configuration: featureGates (--feature-gates) feature gate PlatletTracing is KubeletTracing under another name (the reference's and nodeagent's): set it once",
  ]);
});
