// Bad input through the built program: exit status 1, one clear line naming the flag or
// file:field, no stack trace, no usage text.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { problemLines, runCli } from './run-cli.js';

const HEAD = 'apiVersion: nodeagent.config.platform.io/v1beta1\nkind: NodeAgentConfiguration\n';

interface Case {
  name: string;
  /** argv; `$D` is replaced by the test's temporary directory. */
  args: string[];
  want: RegExp;
  /** Expected number of problem lines (default 1). */
  lines?: number;
}

const cases: Case[] = [
  {
    name: 'unknown flag',
    args: ['--foo'],
    want: /^failed to parse nodeagent flag: unknown flag: --foo$/,
  },
  {
    name: 'unknown flag close to a known one',
    args: ['--max-podz=3'],
    want: /^failed to parse nodeagent flag: unknown flag: --max-podz \(did you mean --max-pods\?\)$/,
  },
  { name: 'positional argument', args: ['start'], want: /^unknown command "start"/ },
  {
    name: 'bool value as a separate word',
    args: ['--fail-swap-on', 'false'],
    want: /^unknown command "false".*--fail-swap-on=false/,
  },
  {
    name: 'bad int32',
    args: ['--max-pods=lots'],
    want: /invalid argument "lots" for "--max-pods" flag/,
  },
  {
    name: 'int32 out of range',
    args: ['--max-pods=3000000000'],
    want: /invalid argument "3000000000" for "--max-pods" flag: .*out of range/,
  },
  {
    name: 'bad bool',
    args: ['--fail-swap-on=maybe'],
    want: /invalid argument "maybe" for "--fail-swap-on" flag/,
  },
  {
    name: 'bad duration',
    args: ['--sync-frequency=5 minutes'],
    want: /invalid argument "5 minutes" for "--sync-frequency" flag/,
  },
  {
    name: 'bad quantity',
    args: ['--log-text-info-buffer-size=lots'],
    want: /invalid argument "lots" for "--log-text-info-buffer-size" flag/,
  },
  {
    name: 'bad key=value pairs',
    args: ['--system-reserved=cpu'],
    want: /invalid argument "cpu" for "--system-reserved" flag/,
  },
  {
    name: 'unknown feature gate',
    args: ['--feature-gates=NoSuchGate=true'],
    want: /invalid argument "NoSuchGate=true" for "--feature-gates" flag: unrecognized feature gate: NoSuchGate \(known gates: /,
  },
  {
    name: 'bad taint',
    args: ['--register-with-taints=a=b:Often'],
    want: /invalid argument "a=b:Often" for "--register-with-taints" flag: invalid taint spec/,
  },
  {
    name: 'bad reserved memory',
    args: ['--reserved-memory=x:memory=1Gi'],
    want: /invalid argument "x:memory=1Gi" for "--reserved-memory" flag/,
  },
  {
    name: 'bad vmodule',
    args: ['--vmodule=server'],
    want: /invalid argument "server" for "--vmodule" flag/,
  },
  {
    name: 'out of range (validation)',
    args: ['--oom-score-adj=2000'],
    want: /^invalid configuration: oomScoreAdj \(--oom-score-adj\) 2000 must be between -1000 and 1000, inclusive$/,
  },
  {
    name: 'image GC low above high',
    args: ['--image-gc-low-threshold=90'],
    want: /^invalid configuration: imageGCLowThresholdPercent \(--image-gc-low-threshold\) 90 must be less than imageGCHighThresholdPercent \(--image-gc-high-threshold\) 85$/,
  },
  {
    name: 'conflicting options',
    args: ['--runonce'],
    want: /^invalid configuration: runOnce \(--runonce\) true is exclusive with enableServer \(--enable-server\) true/,
  },
  {
    name: 'enforce none with others',
    args: ['--enforce-node-allocatable=none,pods'],
    want: /may not contain additional enforcements when "none" is specified$/,
  },
  {
    name: 'gate needed',
    args: ['--cpu-cfs-quota-period=50ms'],
    want: /requires feature gate CustomCPUCFSQuotaPeriod$/,
  },
  {
    name: 'logging format',
    args: ['--logging-format=json'],
    want: /logging.format \(--logging-format\) "json" is not supported: the permitted format is text$/,
  },
  {
    name: 'TLS cipher names',
    args: ['--tls-cipher-suites=RC4-MD5'],
    want: /tlsCipherSuites \(--tls-cipher-suites\) \[RC4-MD5\] are not supported cipher suites/,
  },
  {
    name: 'reserved node labels',
    args: ['--node-labels=platform.io/role=master'],
    want: /^unknown 'platform.io' labels specified with --node-labels: \[platform.io\/role\]$/,
  },
  {
    name: 'every problem at once',
    args: ['--event-qps=-1', '--image-gc-high-threshold=150'],
    want: /eventRecordQPS \(--event-qps\) -1 must not be a negative number/,
    lines: 2,
  },
  {
    name: 'unreadable config file',
    args: ['--config=$D/missing.yaml'],
    want: /^failed to read config file ".*missing\.yaml": no such file or directory$/,
  },
  {
    name: 'config file is a directory',
    args: ['--config=$D'],
    want: /^failed to read config file ".*": is a directory$/,
  },
  {
    name: 'empty config file',
    args: ['--config=$D/empty.yaml'],
    want: /^config file ".*empty\.yaml" was empty$/,
  },
  {
    name: 'YAML syntax error with line and column',
    args: ['--config=$D/syntax.yaml'],
    want: /^config file ".*syntax\.yaml" line 4, column 1: Flow sequence in block collection must be sufficiently indented and end with a \]$/,
  },
  {
    name: 'wrong kind',
    args: ['--config=$D/kind.yaml'],
    want: /^config file ".*kind\.yaml" line 2, column 1: kind "KubeletConfiguration" is not supported: expected kind: NodeAgentConfiguration$/,
  },
  {
    name: 'wrong apiVersion',
    args: ['--config=$D/version.yaml'],
    want: /apiVersion "nodeagent.config.platform.io\/v1" is not supported: expected apiVersion: nodeagent.config.platform.io\/v1beta1$/,
  },
  {
    name: 'wrong field type',
    args: ['--config=$D/type.yaml'],
    want: /^config file ".*type\.yaml" line 3, column 1: field maxPods: expected number, received string$/,
  },
  {
    name: 'bad value in the file',
    args: ['--config=$D/value.yaml'],
    want: /^invalid configuration: containerLogMaxFiles \(--container-log-max-files\) 1 must be equal to or greater than 2$/,
  },
  {
    name: 'bad drop-in',
    args: ['--config=$D/ok.yaml', '--config-dir=$D/bad.d'],
    want: /^drop-in config file ".*bad\.d\/20-bad\.conf" was empty$/,
  },
  {
    name: 'drop-in without kind',
    args: ['--config-dir=$D/nokind.d'],
    want: /^config file ".*nokind\.d\/10\.conf": apiVersion and kind are missing: expected apiVersion: nodeagent.config.platform.io\/v1beta1 and kind: NodeAgentConfiguration$/,
  },
  {
    name: 'missing drop-in directory',
    args: ['--config-dir=$D/nope.d'],
    want: /^failed to read config dir ".*nope\.d": no such file or directory$/,
  },
];

test('bad input: exit 1, one clear line, no stack trace', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'na-bad-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  await writeFile(join(dir, 'empty.yaml'), '');
  await writeFile(join(dir, 'syntax.yaml'), `${HEAD}maxPods: [1, 2\nport: 3\n`);
  await writeFile(
    join(dir, 'kind.yaml'),
    'apiVersion: nodeagent.config.platform.io/v1beta1\nkind: KubeletConfiguration\n',
  );
  await writeFile(
    join(dir, 'version.yaml'),
    'apiVersion: nodeagent.config.platform.io/v1\nkind: NodeAgentConfiguration\n',
  );
  await writeFile(join(dir, 'type.yaml'), `${HEAD}maxPods: many\n`);
  await writeFile(join(dir, 'value.yaml'), `${HEAD}containerLogMaxFiles: 1\n`);
  await writeFile(join(dir, 'ok.yaml'), HEAD);
  await mkdir(join(dir, 'bad.d'));
  await writeFile(join(dir, 'bad.d', '10-good.conf'), `${HEAD}maxPods: 3\n`);
  await writeFile(join(dir, 'bad.d', '20-bad.conf'), '');
  await mkdir(join(dir, 'nokind.d'));
  await writeFile(join(dir, 'nokind.d', '10.conf'), 'maxPods: 3\n');

  for (const c of cases) {
    await t.test(c.name, async () => {
      const args = c.args.map((a) => a.replace('$D', dir));
      const r = await runCli([...args, '--print-config']);
      const lines = problemLines(r.stderr);
      assert.equal(r.code, 1, `exit status for ${args.join(' ')}: ${r.stderr}`);
      assert.equal(r.stdout, '', 'nothing on stdout');
      assert.equal(lines.length, c.lines ?? 1, r.stderr);
      assert.match(lines[0] ?? '', c.want);
      assert.ok(!/^\s+at /m.test(r.stderr), `no stack trace: ${r.stderr}`);
      assert.ok(!/Usage:/i.test(r.stderr), 'no usage text');
    });
  }
});

test('deprecation notices come in command-line order, even when a later check fails', async () => {
  const r = await runCli([
    '--max-pods=10',
    '--maximum-dead-containers=3',
    '--event-qps=-1',
    '--print-config',
  ]);
  assert.equal(r.code, 1);
  const lines = r.stderr.trim().split('\n');
  assert.match(
    lines[0] ?? '',
    /^Flag --max-pods has been deprecated, This parameter should be set via the config file specified by the nodeagent's --config flag\.$/,
  );
  assert.match(lines[1] ?? '', /^Flag --maximum-dead-containers has been deprecated, /);
  assert.match(lines[2] ?? '', /^Flag --event-qps has been deprecated, /);
  assert.match(lines[3] ?? '', /eventRecordQPS \(--event-qps\) -1 must not be a negative number/);
});
