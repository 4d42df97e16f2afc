import { test } from 'node:test';
import { skipOutsideCi } from '../../../helpers/skip-outside-ci.js';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, resolve } from 'node:path';
import {
  FLAGS,
  configPathToFlag,
  fieldWithFlag,
  flagByName,
  flagByShort,
} from '../../../../src/agent/cli/flags.js';
import { featureGateInfo } from '../../../../src/agent/cli/feature-gates.js';
import type { FlagType } from '../../../../src/agent/cli/flag-spec.js';

// The spec lives beside the repository (../shared/spec), found from this file whether it runs
// from test/ (tsx) or dist/test/ (built).
function findSpec(): string | undefined {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 8; i++) {
    const p = resolve(dir, '../shared/spec/nodeagent-and-apiserver-config.md');
    if (existsSync(p)) return p;
    dir = dirname(dir);
  }
  return undefined;
}

interface SpecRow {
  names: string[];
  type: string;
  def: string;
  note: string;
  meaning: string;
}

function specRows(path: string): SpecRow[] {
  const text = readFileSync(path, 'utf8');
  const start = text.indexOf('### Node agent options');
  const end = text.indexOf('### API server configuration types');
  const rows: SpecRow[] = [];
  for (const line of text.slice(start, end).split('\n')) {
    if (!line.startsWith('| `')) continue;
    const cells = line
      .replace(/\\\|/g, '\u{E000}')
      .split('|')
      .slice(1, -1)
      .map((c) => c.replaceAll('\u{E000}', '|').trim());
    const [opt = '', type = '', def = '', note = '', meaning = ''] = cells;
    rows.push({
      names: [...opt.matchAll(/`-{1,2}([^`]+)`/g)].map((m) => m[1] ?? ''),
      type,
      def: def.replace(/`/g, ''),
      note,
      meaning,
    });
  }
  return rows;
}

const SPEC_TYPE: Readonly<Record<string, FlagType>> = {
  string: 'string',
  strings: 'strings',
  bool: 'bool',
  int32: 'int32',
  int: 'int',
  duration: 'duration',
  quantity: 'quantity',
  'comma-separated key=value pairs': 'mapStringString',
  'key=value pairs': 'mapStringString',
  'comma-separated key=True|False pairs': 'featureGates',
  'colon-separated multimap': 'colonMultimap',
  'list of taints': 'taints',
  'reserved-memory': 'reservedMemory',
  'pattern=N,...': 'vmodule',
  'version[=true]': 'version',
  RuntimeDefault: 'seccompDefault',
  '': 'help',
};

const specPath = findSpec();

test('every option of the spec table has one entry with the spec type, default, note and stage', (t) => {
  if (specPath === undefined) {
    t.skip(
      skipOutsideCi(
        'the spec file',
        '../shared/spec/nodeagent-and-apiserver-config.md not found next to the repository; spec comparison skipped',
      ),
    );
    return;
  }
  const rows = specRows(specPath);
  assert.equal(rows.length, 128, 'the spec table has 128 rows');
  const beyondSpec = [
    'platform-domain',
    'platform-profile',
    'print-config',
    'pod-infra-container-image',
  ];
  const ours = FLAGS.filter((f) => !beyondSpec.includes(f.name));
  assert.equal(
    ours.length,
    rows.length,
    "one flag per spec row (plus --platform-domain, --platform-profile, --print-config and the reference's --pod-infra-container-image, which kubeadm writes)",
  );
  for (const row of rows) {
    const long = row.names[row.names.length - 1] ?? '';
    const spec = flagByName(long);
    assert.ok(spec, `--${long} is in the table`);
    if (row.names.length === 2) assert.equal(spec.short, row.names[0], `--${long} shorthand`);
    assert.equal(spec.type, SPEC_TYPE[row.type], `--${long} type (${row.type})`);
    assert.equal(spec.defaultText ?? '', row.def, `--${long} default`);
    assert.equal(spec.note?.kind ?? '', row.note, `--${long} note`);
    const stage = /^Alpha\./.test(row.meaning)
      ? 'alpha'
      : /^Beta\./.test(row.meaning)
        ? 'beta'
        : undefined;
    assert.equal(spec.stage, stage, `--${long} stage`);
    const gate = /`(\w+)` (feature )?gate/.exec(row.meaning)?.[1];
    if (gate !== undefined) assert.equal(spec.requiresGate, gate, `--${long} needs ${gate}`);
  }
});

test('each flag is well formed: unique names, a home for its value, help text, known gates', () => {
  const names = new Set<string>();
  const paths = new Set<string>();
  const fields = new Set<string>();
  for (const f of FLAGS) {
    assert.ok(!names.has(f.name), `duplicate ${f.name}`);
    names.add(f.name);
    assert.match(f.name, /^[a-z][a-z0-9-]*$/);
    assert.ok(f.help.length > 10 && /[.)]$/.test(f.help), `--${f.name} help text`);
    if (f.note?.kind === 'cfg') assert.ok(f.configPath, `cfg flag --${f.name} has a config field`);
    if (f.note?.kind === 'dep') assert.ok(f.note.reason.length > 0);
    const actionOnly = f.type === 'help' || f.type === 'version' || f.name === 'print-config';
    assert.equal(
      f.configPath === undefined && f.flagsField === undefined,
      actionOnly,
      `--${f.name} has exactly a config field or a NodeAgentFlags field`,
    );
    assert.ok(
      !(f.configPath !== undefined && f.flagsField !== undefined),
      `--${f.name} has not both`,
    );
    if (f.configPath !== undefined) {
      assert.ok(!paths.has(f.configPath), `duplicate config path ${f.configPath}`);
      paths.add(f.configPath);
      assert.match(f.configPath, /^[a-z][A-Za-z0-9]*(\.[a-z][A-Za-z0-9]*)*$/);
    }
    if (f.flagsField !== undefined) {
      assert.ok(!fields.has(f.flagsField));
      fields.add(f.flagsField);
    }
    if (f.requiresGate !== undefined)
      assert.ok(featureGateInfo(f.requiresGate), `gate ${f.requiresGate} is known`);
  }
});

test('the reference field names and renames', () => {
  const want: Record<string, string> = {
    'pod-manifest-path': 'staticPodPath',
    'manifest-url': 'staticPodURL',
    'manifest-url-header': 'staticPodURLHeader',
    'rotate-server-certificates': 'serverTLSBootstrap',
    'event-qps': 'eventRecordQPS',
    'anonymous-auth': 'authentication.anonymous.enabled',
    'authentication-token-webhook': 'authentication.webhook.enabled',
    'authentication-token-webhook-cache-ttl': 'authentication.webhook.cacheTTL',
    'client-ca-file': 'authentication.x509.clientCAFile',
    'authorization-mode': 'authorization.mode',
    'authorization-webhook-cache-authorized-ttl': 'authorization.webhook.cacheAuthorizedTTL',
    'authorization-webhook-cache-unauthorized-ttl': 'authorization.webhook.cacheUnauthorizedTTL',
    'plat-api-qps': 'platAPIQPS',
    'plat-api-burst': 'platAPIBurst',
    'plat-api-content-type': 'platAPIContentType',
    'plat-reserved': 'platReserved',
    'plat-reserved-cgroup': 'platReservedCgroup',
    'nodeagent-cgroups': 'nodeagentCgroups',
    'registry-qps': 'registryPullQPS',
    'minimum-image-ttl-duration': 'imageMinimumGCAge',
    'image-gc-high-threshold': 'imageGCHighThresholdPercent',
    'pod-max-pids': 'podPidsLimit',
    'reserved-cpus': 'reservedSystemCPUs',
    'contention-profiling': 'enableContentionProfiling',
    'logging-format': 'logging.format',
    'log-flush-frequency': 'logging.flushFrequency',
    'log-text-split-stream': 'logging.options.text.splitStream',
    'log-text-info-buffer-size': 'logging.options.text.infoBufferSize',
    'fail-cgroupv1': 'failCgroupV1',
    runonce: 'runOnce',
    'cgroups-per-qos': 'cgroupsPerQOS',
    'make-iptables-util-chains': 'makeIPTablesUtilChains',
    'provider-id': 'providerID',
    'platform-domain': 'platformDomain',
    'seccomp-default': 'seccompDefault',
    'feature-gates': 'featureGates',
  };
  for (const [flag, path] of Object.entries(want)) {
    assert.equal(flagByName(flag)?.configPath, path, flag);
    assert.equal(configPathToFlag(path)?.name, flag, path);
  }
  for (const flagOnly of [
    'config',
    'config-dir',
    'platconfig',
    'bootstrap-platconfig',
    'cert-dir',
    'hostname-override',
    'node-ip',
    'node-labels',
    'root-dir',
  ]) {
    assert.equal(flagByName(flagOnly)?.configPath, undefined, flagOnly);
    assert.ok(flagByName(flagOnly)?.flagsField, flagOnly);
  }
  assert.equal(fieldWithFlag('eventRecordQPS'), 'eventRecordQPS (--event-qps)');
  assert.equal(fieldWithFlag('nothing'), 'nothing');
  assert.equal(flagByName('pod_manifest_path')?.name, 'pod-manifest-path');
  assert.equal(flagByShort('v')?.name, 'v');
  assert.equal(flagByShort('h')?.name, 'help');
  assert.deepEqual(flagByName('maximum-dead-containers')?.note, {
    kind: 'dep',
    reason: 'Use --eviction-hard or --eviction-soft instead. Will be removed in a future version.',
  });
  assert.deepEqual(flagByName('experimental-mounter-path')?.note, {
    kind: 'dep',
    reason: 'will be removed in 1.25 or later, in favor of using CSI.',
  });
});
