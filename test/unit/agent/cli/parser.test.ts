import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { FlagError } from '../../../../src/common/util/errors.js';
import { parseArgs } from '../../../../src/agent/cli/parser.js';
import { FLAGS } from '../../../../src/agent/cli/flags.js';
import { editDistance, suggestFlag } from '../../../../src/common/cli/suggest.js';

function fails(argv: string[], message: string | RegExp): void {
  assert.throws(
    () => parseArgs(argv),
    (e: unknown) => {
      assert.ok(e instanceof FlagError, `expected FlagError, got ${String(e)}`);
      if (typeof message === 'string') assert.equal(e.message, message);
      else assert.match(e.message, message);
      return true;
    },
    argv.join(' '),
  );
}

function values(argv: string[]): Record<string, unknown> {
  return Object.fromEntries(parseArgs(argv).values);
}

test('--x=v and --x v, _ read as -', () => {
  assert.deepEqual(
    values([
      '--address=1.2.3.4',
      '--root-dir',
      '/r',
      '--pod_manifest_path',
      '/etc/pods',
      '--node-labels',
      '--x=y',
    ]),
    {
      address: '1.2.3.4',
      'root-dir': '/r',
      'pod-manifest-path': '/etc/pods',
      'node-labels': { '--x': 'y' },
    },
  );
  assert.deepEqual(values(['--address=']), { address: '' });
  assert.deepEqual(values(['--address=a=b']), { address: 'a=b' });
});

test('booleans: bare, every ParseBool form after =, and --x false leaves a positional', () => {
  assert.deepEqual(values(['--fail-swap-on']), { 'fail-swap-on': true });
  for (const f of ['0', 'f', 'F', 'false', 'FALSE', 'False'])
    assert.deepEqual(values([`--fail-swap-on=${f}`]), { 'fail-swap-on': false });
  for (const t of ['1', 't', 'T', 'true', 'TRUE', 'True'])
    assert.deepEqual(values([`--runonce=${t}`]), { runonce: true });
  fails(
    ['--fail-swap-on', 'false'],
    'unknown command "false" (nodeagent takes no arguments; a boolean flag takes its value after "=", as in --fail-swap-on=false)',
  );
  fails(
    ['--fail-swap-on=no'],
    /^failed to parse nodeagent flag: invalid argument "no" for "--fail-swap-on" flag: strconv.ParseBool: parsing "no": invalid syntax/,
  );
});

test('positional arguments are rejected, flags are still checked first', () => {
  fails(['run'], 'unknown command "run" (nodeagent takes no arguments, only flags)');
  fails(['--', '--address=x'], /^unknown command "--address=x"/);
  fails(['-'], /^unknown command "-"/);
  fails(['extra', '--bogus'], /unknown flag: --bogus/);
  assert.deepEqual(values(['--']), {});
});

test('unknown flags, with did-you-mean', () => {
  fails(['--foo'], 'failed to parse nodeagent flag: unknown flag: --foo');
  fails(
    ['--adress=1'],
    'failed to parse nodeagent flag: unknown flag: --adress (did you mean --address?)',
  );
  fails(
    ['--max-pod=3'],
    'failed to parse nodeagent flag: unknown flag: --max-pod (did you mean --max-pods?)',
  );
  fails(['--pod-manifest=/x'], /did you mean --pod-manifest-path\?/);
  fails(['--kubeconfig=/x'], /did you mean --platconfig\?/);
  fails(['--kube-api-qps=1'], /did you mean --plat-api-qps\?/);
  fails(['-x'], "failed to parse nodeagent flag: unknown shorthand flag: 'x' in -x");
  fails(['---x'], 'failed to parse nodeagent flag: bad flag syntax: ---x');
  fails(['--=x'], 'failed to parse nodeagent flag: bad flag syntax: --=x');
  fails(['--address'], 'failed to parse nodeagent flag: flag needs an argument: --address');
  fails(['-v'], "failed to parse nodeagent flag: flag needs an argument: 'v' in -v");
  assert.equal(
    suggestFlag(
      'zzzzzzzz',
      FLAGS.map((f) => f.name),
    ),
    undefined,
  );
  assert.equal(editDistance('ab', 'ba'), 1);
  assert.equal(editDistance('kitten', 'sitting'), 3);
});

test('verbosity: -v 3, -v=3, -v3, --v=3, --v 3 and combined shorthands', () => {
  for (const argv of [['-v', '3'], ['-v=3'], ['-v3'], ['--v=3'], ['--v', '3']])
    assert.deepEqual(values(argv), { v: 3 }, argv.join(' '));
  assert.deepEqual(values(['-hv3']), { help: true, v: 3 });
  assert.deepEqual(values(['-h']), { help: true });
  assert.deepEqual(values(['--help']), { help: true });
  fails(['-v', 'x'], /invalid argument "x" for "-v, --v" flag/);
});

test('ints are range-checked', () => {
  assert.deepEqual(
    values(['--max-pods=0x10', '--oom-score-adj=-999', '--max-open-files=5000000000']),
    { 'max-pods': 16, 'oom-score-adj': -999, 'max-open-files': 5000000000 },
  );
  fails(
    ['--max-pods=2147483648'],
    /^failed to parse nodeagent flag: invalid argument "2147483648" for "--max-pods" flag: strconv.ParseInt: parsing "2147483648": value out of range \(accepted: an integer from -2147483648 to 2147483647/,
  );
  fails(['--event-qps=1.5'], /invalid syntax/);
});

test('every value type in its config-file form', () => {
  assert.deepEqual(
    values([
      '--sync-frequency=90s',
      '--log-text-info-buffer-size=1024Ki',
      '--eviction-hard=memory.available<100Mi',
      '--feature-gates=QOSReserved=true',
      '--register-with-taints=a=b:NoSchedule',
      '--reserved-memory=0:memory=1Gi',
      '--vmodule=server=2',
      '--cluster-dns=10.0.0.10',
      '--seccomp-default',
      '--manifest-url-header=Auth:x',
    ]),
    {
      'sync-frequency': '1m30s',
      'log-text-info-buffer-size': '1Mi',
      'eviction-hard': { 'memory.available': '100Mi' },
      'feature-gates': { QOSReserved: true },
      'register-with-taints': [{ key: 'a', value: 'b', effect: 'NoSchedule' }],
      'reserved-memory': [{ numaNode: 0, limits: { memory: '1Gi' } }],
      vmodule: [{ filePattern: 'server', verbosity: 2 }],
      'cluster-dns': ['10.0.0.10'],
      'seccomp-default': true,
      'manifest-url-header': { Auth: ['x'] },
    },
  );
  fails(
    ['--sync-frequency', 'abc'],
    'failed to parse nodeagent flag: invalid argument "abc" for "--sync-frequency" flag: time: invalid duration "abc" (accepted: a Go duration such as 300ms, 1.5h, 2m0s or 1h2m3.5s (units ns, us, µs, ms, s, m, h))',
  );
  fails(
    ['--feature-gates=Nope=true'],
    /^failed to parse nodeagent flag: invalid argument "Nope=true" for "--feature-gates" flag: unrecognized feature gate: Nope \(known gates: AllAlpha, /,
  );
  fails(['--register-with-taints=a=b'], /invalid taint spec: a=b/);
  fails(
    ['--log-text-info-buffer-size=lots'],
    /for "--log-text-info-buffer-size" flag: quantities must match/,
  );
});

test('repeated flags: last wins for scalars, lists and maps accumulate as in pflag', () => {
  assert.deepEqual(values(['--address=a', '--address=b', '--v=1', '-v', '2']), {
    address: 'b',
    v: 2,
  });
  assert.deepEqual(values(['--cluster-dns=a,b', '--cluster-dns=c']), {
    'cluster-dns': ['a', 'b', 'c'],
  });
  assert.deepEqual(values(['--eviction-hard=a=1,b=2', '--eviction-hard=b=3']), {
    'eviction-hard': { a: '1', b: '3' },
  });
  assert.deepEqual(
    values([
      '--feature-gates=QOSReserved=true',
      '--feature-gates=QOSReserved=false,PlatletTracing=false',
    ]),
    { 'feature-gates': { QOSReserved: false, PlatletTracing: false } },
  );
  assert.deepEqual(values(['--manifest-url-header=A:1,B:2', '--manifest-url-header', 'A:3']), {
    'manifest-url-header': { A: ['1', '3'], B: ['2'] },
  });
  assert.deepEqual(
    values(['--register-with-taints=a:NoSchedule', '--register-with-taints=b:NoExecute']),
    { 'register-with-taints': [{ key: 'b', effect: 'NoExecute' }] },
  );
  assert.deepEqual(values(['--reserved-memory=0:memory=1Gi', '--reserved-memory=1:memory=2Gi']), {
    'reserved-memory': [
      { numaNode: 0, limits: { memory: '1Gi' } },
      { numaNode: 1, limits: { memory: '2Gi' } },
    ],
  });
  assert.deepEqual(parseArgs(['--runonce', '--address=x', '--runonce=false']).order, [
    'runonce',
    'address',
  ]);
});

test('--version, --version=raw, --version=vX.Y.Z, --seccomp-default', () => {
  assert.deepEqual(values(['--version']), { version: 'true' });
  assert.deepEqual(values(['--version=raw']), { version: 'raw' });
  assert.deepEqual(values(['--version=false']), { version: 'false' });
  assert.deepEqual(values(['--version=v1.2.3-rc.1+abc']), { version: 'v1.2.3-rc.1+abc' });
  fails(['--version=v1.2'], /version string "v1.2" is not a valid semantic version/);
  fails(['--version=pretty'], /invalid argument "pretty" for "--version" flag/);
  fails(['--version', 'v1.2.3'], /^unknown command "v1.2.3"/);
  assert.deepEqual(values(['--seccomp-default=false']), { 'seccomp-default': false });
});

test('every flag of the table parses a typical value', () => {
  const sample: Record<string, string> = {
    string: 'x',
    strings: 'a,b',
    bool: 'true',
    int32: '7',
    int: '7',
    duration: '1s',
    quantity: '1Mi',
    mapStringString: 'a=b',
    featureGates: 'QOSReserved=true',
    colonMultimap: 'a:b',
    taints: 'k=v:NoSchedule',
    reservedMemory: '0:memory=1Gi',
    vmodule: 'a=1',
    version: 'raw',
    seccompDefault: 'true',
    help: 'true',
  };
  for (const f of FLAGS) {
    const v = sample[f.type];
    assert.ok(v !== undefined, f.type);
    assert.ok(parseArgs([`--${f.name}=${v}`]).values.has(f.name), f.name);
  }
});

test('random argv only ever yields FlagError', () => {
  const names = FLAGS.map((f) => f.name);
  const token = fc.oneof(
    fc.string(),
    fc.constantFrom(
      '--',
      '-',
      '-v',
      '-h',
      '---',
      '--=',
      'false',
      '-hv',
      '-v=',
      '--version=',
      '--version',
    ),
    fc.tuple(fc.constantFrom(...names), fc.string()).map(([n, v]) => `--${n}=${v}`),
    fc.constantFrom(...names).map((n) => `--${n.replace(/-/g, '_')}`),
    fc
      .tuple(
        fc.constantFrom(...names),
        fc.constantFrom(
          '1',
          '0x1f',
          '1.5h',
          '1Gi',
          'a=b,c',
          'k:v',
          'x=y:NoExecute',
          '0:memory=1Gi;1:hugepages-2Mi=2Mi',
          '"a,b"',
          '',
          '-1',
          'v1.0.0',
        ),
      )
      .map(([n, v]) => `--${n}=${v}`),
  );
  fc.assert(
    fc.property(fc.array(token, { maxLength: 12 }), (argv) => {
      try {
        const r = parseArgs(argv);
        assert.equal(r.order.length, r.values.size);
      } catch (e) {
        if (!(e instanceof FlagError)) throw e;
        assert.ok(!e.message.includes('\n    at '), 'no stack trace in the message');
      }
    }),
    { numRuns: 3000 },
  );
});

test('eviction thresholds take the reference key<value form as well as key=value', () => {
  assert.deepEqual(values(['--eviction-hard=memory.available<100Mi, nodefs.available=10%']), {
    'eviction-hard': { 'memory.available': '100Mi', 'nodefs.available': '10%' },
  });
  assert.deepEqual(values(['--eviction-soft=memory.available<1.5Gi']), {
    'eviction-soft': { 'memory.available': '1.5Gi' },
  });
  fails(
    ['--eviction-hard=memory.available'],
    /malformed pair "memory.available", expect string<string/,
  );
  fails(
    ['--eviction-minimum-reclaim=memory.available<1Gi'],
    /malformed pair "memory.available<1Gi", expect string=string/,
  );
});
