import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from '../../../../src/agent/cli/parser.js';
import {
  packageVersion,
  reportedVersion,
  versionInfo,
  versionOutput,
  versionOverride,
} from '../../../../src/agent/cli/version.js';
import { deprecationWarnings } from '../../../../src/agent/cli/deprecation.js';

function repoRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const p = join(dir, 'package.json');
    if (
      existsSync(p) &&
      (JSON.parse(readFileSync(p, 'utf8')) as { name?: string }).name === 'nodeagent'
    )
      return dir;
    const up = dirname(dir);
    if (up === dir) throw new Error('package.json of nodeagent not found');
    dir = up;
  }
}

const pkgVersion = (
  JSON.parse(readFileSync(join(repoRoot(), 'package.json'), 'utf8')) as { version: string }
).version;

test('--version prints nodeagent vX.Y.Z from package.json', () => {
  assert.equal(packageVersion(), `v${pkgVersion}`);
  assert.equal(versionOutput(parseArgs(['--version'])), `nodeagent v${pkgVersion}\n`);
  assert.equal(versionOutput(parseArgs(['--version=false'])), undefined);
  assert.equal(versionOutput(parseArgs([])), undefined);
});

test('--version=raw prints the full record as JSON', () => {
  const out = versionOutput(parseArgs(['--version=raw']));
  assert.ok(out !== undefined);
  const rec = JSON.parse(out) as Record<string, string>;
  assert.equal(rec['gitVersion'], `v${pkgVersion}`);
  assert.equal(rec['nodeVersion'], process.version);
  for (const k of [
    'major',
    'minor',
    'gitCommit',
    'gitTreeState',
    'buildDate',
    'compiler',
    'platform',
  ])
    assert.equal(typeof rec[k], 'string', k);
  assert.match(rec['buildDate'] ?? '', /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  // Stamped by the build (dist/build-info.json), the same facts git gives for this checkout.
  const stamped = JSON.parse(
    readFileSync(join(repoRoot(), 'dist', 'build-info.json'), 'utf8'),
  ) as Record<string, string>;
  assert.equal(rec['gitCommit'], stamped['gitCommit']);
  assert.equal(rec['buildDate'], stamped['buildDate']);
  assert.match(rec['gitCommit'] ?? '', /^[0-9a-f]{40}$/);
  assert.match(rec['gitTreeState'] ?? '', /^(clean|dirty)$/);
});

test('--version=vX.Y.Z sets the reported version and prints nothing', () => {
  const p = parseArgs(['--version=v1.32.0']);
  assert.equal(versionOutput(p), undefined);
  assert.equal(versionOverride(p), 'v1.32.0');
  assert.equal(reportedVersion(p), 'v1.32.0');
  assert.equal(reportedVersion(parseArgs([])), `v${pkgVersion}`);
  assert.deepEqual([versionInfo('v1.32.0').major, versionInfo('v1.32.0').minor], ['1', '32']);
});

test('deprecation warnings: reference wording, command-line order, once per flag', () => {
  const p = parseArgs([
    '--max-pods=10',
    '--node-ip=1.2.3.4',
    '--maximum-dead-containers=3',
    '--max-pods=20',
    '--experimental-mounter-path=/m',
    '-v',
    '2',
    '--sync-frequency=1s',
  ]);
  assert.deepEqual(deprecationWarnings(p), [
    "Flag --max-pods has been deprecated, This parameter should be set via the config file specified by the nodeagent's --config flag.",
    'Flag --maximum-dead-containers has been deprecated, Use --eviction-hard or --eviction-soft instead. Will be removed in a future version.',
    'Flag --experimental-mounter-path has been deprecated, will be removed in 1.25 or later, in favor of using CSI.',
    "Flag --sync-frequency has been deprecated, This parameter should be set via the config file specified by the nodeagent's --config flag.",
  ]);
  assert.deepEqual(deprecationWarnings(parseArgs(['--pod_manifest_path=/p'])), [
    "Flag --pod-manifest-path has been deprecated, This parameter should be set via the config file specified by the nodeagent's --config flag.",
  ]);
  assert.deepEqual(
    deprecationWarnings(parseArgs(['--config=/c', '--feature-gates=QOSReserved=true'])),
    [],
  );
});
