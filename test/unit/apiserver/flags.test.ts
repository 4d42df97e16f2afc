// plat-apiserver flags: defaults, pflag habits, and one clear FlagError per bad value.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  parseFlags,
  resolveControllers,
  type ApiServerFlags,
} from '../../../src/apiserver/flags.js';
import { renderApiServerHelp } from '../../../src/apiserver/help.js';
import { FlagError } from '../../../src/common/util/errors.js';

function run(argv: string[]): ApiServerFlags {
  const r = parseFlags(argv);
  assert.equal(r.kind, 'run');
  return (r as { flags: ApiServerFlags }).flags;
}

test('defaults as the reference names them', () => {
  const f = run([]);
  assert.equal(f.securePort, 6443);
  assert.equal(f.bindAddress, '127.0.0.1');
  assert.equal(f.anonymousAuth, false);
  // kubeadm's setting, the reference default for a cluster: the Node authorizer, then RBAC.
  assert.deepEqual(f.authorizationMode, ['Node', 'RBAC']);
  assert.equal(f.platformDomain, 'platform.io');
  assert.equal(f.clusterSigningDurationMs, 8760 * 3600 * 1000);
  assert.deepEqual(f.controllers, [
    'csrapproving',
    'csrsigning',
    'tokencleaner',
    'nodelifecycle',
    'serviceaccount',
    'root-ca-cert-publisher',
    'scheduler',
  ]);
  assert.equal(f.enableBootstrapTokenAuth, false);
  assert.equal(f.platformProfile, 'platform');
  assert.equal(f.nodeMonitorGracePeriodMs, 40_000);
  assert.equal(f.minRequestTimeoutSeconds, 1800);
  assert.equal(f.etcdCompactionIntervalMs, 5 * 60 * 1000);
  assert.equal(f.featureGates['ShardedListAndWatch'], false);
  assert.equal(f.dataDir, undefined);
  // TLS ends in the main process unless asked otherwise
  assert.equal(f.tlsProcesses, 0);
  assert.equal(run(['--tls-processes=-1']).tlsProcesses, -1);
  assert.equal(run(['--tls-processes=3']).tlsProcesses, 3);
  // Bodies and encryption at rest on the main thread unless asked otherwise
  assert.equal(f.workerThreads, 0);
  assert.equal(run(['--worker-threads=-1']).workerThreads, -1);
  assert.equal(run(['--worker-threads=4']).workerThreads, 4);
});

test('--x=v, --x v, underscores, bare booleans, -v=N', () => {
  const f = run([
    '--secure-port=0',
    '--cert-dir',
    '/tmp/c',
    '--anonymous_auth',
    '--feature-gates=ShardedListAndWatch=true',
    '-v=4',
    '--cluster-signing-duration=1h30m',
  ]);
  assert.equal(f.securePort, 0);
  assert.equal(f.certDir, '/tmp/c');
  assert.equal(f.anonymousAuth, true);
  assert.equal(f.anonymousAuthSet, true);
  assert.equal(f.featureGates['ShardedListAndWatch'], true);
  assert.equal(f.verbosity, 4);
  assert.equal(f.clusterSigningDurationMs, 90 * 60 * 1000);
  assert.equal(run(['--anonymous-auth=false']).anonymousAuth, false);
});

test('bad values are FlagErrors naming the flag and what is accepted', () => {
  const cases: [string[], RegExp][] = [
    [
      ['--authorization-mode=ABAC'],
      /--authorization-mode: supported modes are AlwaysAllow, AlwaysDeny, Node, RBAC, Webhook/,
    ],
    [
      ['--authorization-mode=RBAC,Node,RBAC'],
      /authorization-mode "RBAC" has mode specified more than once/,
    ],
    [['--feature-gates=Nope=true'], /unrecognized feature gate: Nope; known: ShardedListAndWatch/],
    [['--secure-port=70000'], /--secure-port: must be between 0 and 65535/],
    [
      ['--tls-processes=-2'],
      /^invalid value "-2" for flag --tls-processes: must be -1 \(one per CPU beyond the first\), 0 \(TLS in the main process\) or a count up to 64$/,
    ],
    [['--tls-processes=65'], /^invalid value "65" for flag --tls-processes: must be -1 /],
    [['--tls-processes=two'], /--tls-processes/],
    [
      ['--worker-threads=-3'],
      /^invalid value "-3" for flag --worker-threads: must be -1 \(one per CPU beyond the first\), 0 \(all on the main thread\) or a count up to 64$/,
    ],
    [['--worker-threads=65'], /^invalid value "65" for flag --worker-threads: must be -1 /],
    [['--cluster-signing-duration=forever'], /cluster-signing-duration/],
    [['--tls-cert-file=/a'], /--tls-cert-file and --tls-private-key-file must be given together/],
    [['--controllers=csrapproving,bogus'], /unknown controller "bogus"/],
    [
      ['--platform-profile=k8s'],
      /^invalid value "k8s" for flag --platform-profile: the accepted values are platform, kubernetes$/,
    ],
    // pflag's words, as kube-apiserver prints them ("Error: unknown flag: --no-such-flag")
    [['--no-such-flag'], /^unknown flag: --no-such-flag; see plat-apiserver --help$/],
    [['--secure-port'], /^flag needs an argument: --secure-port; see plat-apiserver --help$/],
    [['---secure-port=1'], /^bad flag syntax: ---secure-port=1; see plat-apiserver --help$/],
    [['-q'], /^unknown shorthand flag: 'q' in -q; see plat-apiserver --help$/],
    // kube-apiserver's cobra Args check, with Go's %q of the arguments
    [
      ['--anonymous-auth', 'false'],
      /^"plat-apiserver" does not take any arguments, got \["false"\]$/,
    ],
    [['serve', 'now'], /^"plat-apiserver" does not take any arguments, got \["serve" "now"\]$/],
    [['--anonymous-auth=maybe'], /anonymous-auth/],
  ];
  for (const [argv, re] of cases) {
    assert.throws(
      () => parseFlags(argv),
      (err: unknown) => err instanceof FlagError && re.test(err.message),
      argv.join(' '),
    );
  }
});

test('the tokenizer both programs share: shorthands, a value that starts with "-", repeated lists add up, "--" ends the flags', () => {
  assert.equal(run(['-v3']).verbosity, 3);
  assert.equal(run(['-v', '5']).verbosity, 5);
  assert.equal(run(['--cert-dir', '--odd-dir']).certDir, '--odd-dir');
  assert.deepEqual(run(['--api-audiences=a', '--api-audiences=b,c']).apiAudiences, ['a', 'b', 'c']);
  assert.deepEqual(
    run(['--authorization-mode=Node', '--authorization-mode=RBAC']).authorizationMode,
    ['Node', 'RBAC'],
  );
  assert.equal(
    run(['--secure-port=1', '--secure-port=2']).securePort,
    2,
    'a scalar: the last one wins',
  );
  assert.throws(
    () => parseFlags(['--', '--secure-port=1']),
    /does not take any arguments, got \["--secure-port=1"\]/,
  );
  assert.equal(parseFlags(['-h']).kind, 'help');
  assert.equal(parseFlags(['--secure-port=1', '--help']).kind, 'help');
  assert.equal(run(['--help=false']).securePort, 6443);
});

test('--help prints every flag; --controllers understands * and -name', () => {
  const h = parseFlags(['--help']);
  assert.equal(h.kind, 'help');
  const text = renderApiServerHelp();
  for (const f of [
    '--secure-port',
    '--cert-dir',
    '--token-auth-file',
    '--etcd-compaction-interval',
    '--default-watch-cache-size',
    '--min-request-timeout',
  ])
    assert.ok(text.includes(f), f);
  assert.deepEqual(resolveControllers(['*', '-csrsigning']), [
    'csrapproving',
    'tokencleaner',
    'nodelifecycle',
    'serviceaccount',
    'root-ca-cert-publisher',
    'scheduler',
  ]);
  assert.deepEqual(resolveControllers(['csrsigning']), ['csrsigning']);
});

test("the kubelet client flags: kubeadm's address-type default, cert and key together, known types only", () => {
  const f = run([]);
  // kubeadm's --kubelet-preferred-address-types (kube-apiserver's own default puts Hostname first).
  assert.deepEqual(f.kubeletPreferredAddressTypes, ['InternalIP', 'ExternalIP', 'Hostname']);
  assert.deepEqual(
    [f.kubeletClientCertificate, f.kubeletClientKey, f.kubeletCertificateAuthority],
    [undefined, undefined, undefined],
  );
  const g = run([
    '--kubelet-client-certificate=/c',
    '--kubelet-client-key=/k',
    '--kubelet-certificate-authority=/ca',
    '--kubelet-preferred-address-types=InternalIP,Hostname',
  ]);
  assert.deepEqual(
    [
      g.kubeletClientCertificate,
      g.kubeletClientKey,
      g.kubeletCertificateAuthority,
      g.kubeletPreferredAddressTypes,
    ],
    ['/c', '/k', '/ca', ['InternalIP', 'Hostname']],
  );
  const cases: [string[], string][] = [
    [
      ['--kubelet-client-key=/k'],
      'flags --kubelet-client-certificate and --kubelet-client-key must be given together',
    ],
    [
      ['--kubelet-preferred-address-types=InternalIP,LegacyHostIP'],
      'invalid value "InternalIP,LegacyHostIP" for flag --kubelet-preferred-address-types: unknown address type "LegacyHostIP"; accepted: Hostname, InternalDNS, InternalIP, ExternalDNS, ExternalIP',
    ],
    [
      ['--kubelet-preferred-address-types=InternalIP,InternalIP'],
      'invalid value "InternalIP,InternalIP" for flag --kubelet-preferred-address-types: address type "InternalIP" given more than once',
    ],
  ];
  for (const [argv, msg] of cases)
    assert.throws(
      () => parseFlags(argv),
      (err: unknown) => err instanceof FlagError && err.message === msg,
      argv.join(' '),
    );
});
