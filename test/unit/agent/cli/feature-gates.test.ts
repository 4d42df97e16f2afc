import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FlagError } from '../../../../src/common/util/errors.js';
import {
  describeFeatureGates,
  featureGateInfo,
  featureGateProblems,
  KNOWN_FEATURE_GATES,
  parseFeatureGates,
  resolveFeatureGates,
} from '../../../../src/agent/cli/feature-gates.js';

test('the gates the spec names are known with their reference stage and default', () => {
  const want: [string, 'alpha' | 'beta' | 'ga' | 'deprecated', boolean][] = [
    ['RotatePlatletServerCertificate', 'beta', true],
    ['LoggingAlphaOptions', 'alpha', false],
    ['LoggingBetaOptions', 'beta', true],
    ['CustomCPUCFSQuotaPeriod', 'alpha', false],
    ['QOSReserved', 'alpha', false],
    ['CPUManagerPolicyOptions', 'beta', true],
    ['CPUManagerPolicyAlphaOptions', 'alpha', false],
    ['CPUManagerPolicyBetaOptions', 'beta', true],
    ['TopologyManagerPolicyOptions', 'ga', true],
    ['TopologyManagerPolicyAlphaOptions', 'alpha', false],
    ['TopologyManagerPolicyBetaOptions', 'beta', true],
    ['MemoryManager', 'ga', true],
    ['GracefulNodeShutdown', 'beta', true],
    ['PlatletTracing', 'beta', true],
    ['AllAlpha', 'alpha', false],
    ['AllBeta', 'beta', false],
  ];
  for (const [name, stage, def] of want) {
    const g = featureGateInfo(name);
    assert.ok(g, name);
    assert.equal(g.stage, stage, name);
    assert.equal(g.default, def, name);
  }
  // the reference's spelling (a kubeadm KubeletConfiguration's featureGates) is one of ours
  assert.equal(featureGateInfo('KubeletTracing')?.name, 'PlatletTracing');
  assert.equal(
    featureGateInfo('AllowInsecureKubeletCertificateSigningRequests')?.name,
    'AllowInsecurePlatletCertificateSigningRequests',
  );
  assert.equal(featureGateInfo('KubeletNoSuchGate'), undefined);
  const names = KNOWN_FEATURE_GATES.map((g) => g.name);
  assert.deepEqual(names, [...names].sort());
  assert.ok(describeFeatureGates().includes('QOSReserved=true|false (ALPHA - default=false)'));
});

test('parseFeatureGates: Go bool forms, unknown gates listed, locked gates refused', () => {
  assert.deepEqual(
    parseFeatureGates('QOSReserved=true,PlatletTracing=false, LoggingAlphaOptions=T'),
    {
      QOSReserved: true,
      PlatletTracing: false,
      LoggingAlphaOptions: true,
    },
  );
  assert.throws(
    () => parseFeatureGates('Bogus=true', 'feature-gates'),
    (e: unknown) => {
      assert.ok(e instanceof FlagError);
      assert.match(
        e.message,
        /^invalid argument "Bogus=true" for "--feature-gates" flag: unrecognized feature gate: Bogus \(known gates: AllAlpha, AllBeta, /,
      );
      assert.match(e.message, /RotatePlatletServerCertificate/);
      return true;
    },
  );
  assert.throws(
    () => parseFeatureGates('MemoryManager=false'),
    /cannot set feature gate MemoryManager to false, feature is locked to true/,
  );
  assert.throws(
    () => parseFeatureGates('QOSReserved=maybe'),
    /invalid value of QOSReserved: maybe/,
  );
  assert.deepEqual(featureGateProblems({ QOSReserved: true }), []);
});

test('resolveFeatureGates: defaults, AllAlpha/AllBeta, explicit settings win', () => {
  const d = resolveFeatureGates();
  assert.equal(d.enabled('RotatePlatletServerCertificate'), true);
  assert.equal(d.enabled('QOSReserved'), false);
  const all = resolveFeatureGates({ AllAlpha: true, AllBeta: false, QOSReserved: false });
  assert.equal(all.enabled('LoggingAlphaOptions'), true);
  assert.equal(all.enabled('QOSReserved'), false);
  assert.equal(all.enabled('PlatletTracing'), false);
  assert.equal(all.enabled('MemoryManager'), true);
  assert.throws(() => d.enabled('Nope'), /not known/);
});

test('a GA gate that is not locked may still be switched off', () => {
  assert.deepEqual(parseFeatureGates('TopologyManagerPolicyOptions=false'), {
    TopologyManagerPolicyOptions: false,
  });
});

test("the reference's gate names are read as ours; one gate under both names is refused", () => {
  assert.deepEqual(
    featureGateProblems({ KubeletTracing: false, KubeletCgroupDriverFromCRI: true }),
    [],
  );
  const g = resolveFeatureGates({ KubeletTracing: false });
  assert.equal(g.enabled('PlatletTracing'), false);
  assert.deepEqual(parseFeatureGates('KubeletTracing=false', '--feature-gates'), {
    KubeletTracing: false,
  });
  assert.deepEqual(featureGateProblems({ PlatletTracing: true, KubeletTracing: false }), [
    "feature gate KubeletTracing is PlatletTracing under another name (the reference's and " +
      "nodeagent's): set it once",
  ]);
  assert.match(
    featureGateProblems({ KubeletNoSuchGate: true })[0] ?? '',
    /^unrecognized feature gate: KubeletNoSuchGate \(known gates: /,
  );
});
