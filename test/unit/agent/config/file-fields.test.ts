// The reference's configuration-file fields without a flag: each has the
// reference's default (pkg/kubelet/apis/config/v1beta1/defaults.go, 1.32), is validated with the
// reference's message (validation.go), appears in --print-config and the JSON Schema, and a
// wrong type is an error naming the field instead of being dropped as unknown.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { FLAGS } from '../../../../src/agent/cli/flags.js';
import { parseArgs } from '../../../../src/agent/cli/parser.js';
import { defaultConfiguration } from '../../../../src/agent/config/defaults.js';
import { buildConfiguration, flagLookup } from '../../../../src/agent/config/effective.js';
import { renderPrintConfig } from '../../../../src/agent/config/print.js';
import type { NodeAgentConfiguration } from '../../../../src/agent/config/schema.js';
import { validateConfiguration } from '../../../../src/agent/config/validate.js';
import { buildNodeAgentFlags } from '../../../../src/agent/config/flags-type.js';

const flagFor = flagLookup(FLAGS);
const FIELDS = [
  'shutdownGracePeriod',
  'shutdownGracePeriodCriticalPods',
  'shutdownGracePeriodByPodPriority',
  'podLogsDir',
  'imageMaximumGCAge',
  'maxParallelImagePulls',
  'containerLogMaxWorkers',
  'containerLogMonitorInterval',
  'memorySwap',
  'memoryThrottlingFactor',
  'singleProcessOOMKill',
  'crashLoopBackOff',
  'enableProfilingHandler',
  'enableDebugFlagsHandler',
  'enableSystemLogHandler',
  'enableSystemLogQuery',
  'tracing',
  'iptablesMasqueradeBit',
  'iptablesDropBit',
  'configMapAndSecretChangeDetectionStrategy',
  'showHiddenMetricsForVersion',
];

function problemsOf(mutate: (c: NodeAgentConfiguration) => void): string[] {
  const c = defaultConfiguration('file');
  mutate(c);
  return validateConfiguration(c, { flagFor });
}

async function withFile(t: { after(fn: () => unknown): void }, body: string, extra: string[] = []) {
  const d = await mkdtemp(join(tmpdir(), 'file-fields-'));
  t.after(() => rm(d, { recursive: true, force: true }));
  const f = join(d, 'config.yaml');
  await writeFile(
    f,
    `apiVersion: nodeagent.config.platform.io/v1beta1\nkind: NodeAgentConfiguration\n${body}`,
  );
  return buildConfiguration({ specs: FLAGS, parsed: parseArgs([`--config=${f}`, ...extra]) });
}

test("the reference's defaults for the file-only fields", () => {
  const c = defaultConfiguration('file');
  assert.equal(c.shutdownGracePeriod, '0s');
  assert.equal(c.shutdownGracePeriodCriticalPods, '0s');
  assert.deepEqual(c.shutdownGracePeriodByPodPriority, []);
  assert.equal(c.podLogsDir, '/var/log/pods');
  assert.equal(c.imageMaximumGCAge, '0s');
  assert.equal(c.maxParallelImagePulls, null);
  assert.equal(c.containerLogMaxWorkers, 1);
  assert.equal(c.containerLogMonitorInterval, '10s');
  assert.deepEqual(c.memorySwap, { swapBehavior: '' });
  assert.equal(c.memoryThrottlingFactor, 0.9);
  assert.equal(c.singleProcessOOMKill, null);
  assert.deepEqual(c.crashLoopBackOff, { maxContainerRestartPeriod: null });
  assert.equal(c.enableProfilingHandler, true);
  assert.equal(c.enableDebugFlagsHandler, true);
  assert.equal(c.enableSystemLogHandler, true);
  assert.equal(c.enableSystemLogQuery, false);
  assert.equal(c.tracing, null);
  assert.equal(c.iptablesMasqueradeBit, 14);
  assert.equal(c.iptablesDropBit, 15);
  assert.equal(c.configMapAndSecretChangeDetectionStrategy, 'Watch');
  assert.equal(c.showHiddenMetricsForVersion, '');
});

type Case = { name: string; set: (c: NodeAgentConfiguration) => void; want: string };
const cases: Case[] = [
  {
    name: 'imageMaximumGCAge not above the minimum',
    set: (c) => {
      c.imageMaximumGCAge = '1m0s';
    },
    want: 'invalid configuration: imageMaximumGCAge 1m0s must be greater than imageMinimumGCAge 2m0s',
  },
  {
    name: 'imageMaximumGCAge negative',
    set: (c) => {
      c.imageMaximumGCAge = '-1s';
    },
    want: 'invalid configuration: imageMaximumGCAge -1s must not be negative',
  },
  {
    name: 'imageMaximumGCAge without its gate',
    set: (c) => {
      c.imageMaximumGCAge = '1h0m0s';
      c.featureGates = { ImageMaximumGCAge: false };
    },
    want: 'invalid configuration: ImageMaximumGCAge feature gate is required for Kubelet configuration option imageMaximumGCAge',
  },
  {
    name: 'maxParallelImagePulls zero',
    set: (c) => {
      c.maxParallelImagePulls = 0;
    },
    want: 'invalid configuration: maxParallelImagePulls 0 must be a positive number',
  },
  {
    name: 'maxParallelImagePulls with serialized pulls',
    set: (c) => {
      c.maxParallelImagePulls = 3;
      c.serializeImagePulls = true;
    },
    want: 'invalid configuration: maxParallelImagePulls cannot be larger than 1 unless SerializeImagePulls (--serialize-image-pulls) is set to false',
  },
  {
    name: 'containerLogMaxWorkers zero',
    set: (c) => {
      c.containerLogMaxWorkers = 0;
    },
    want: 'invalid configuration: containerLogMaxWorkers must be greater than or equal to 1',
  },
  {
    name: 'containerLogMonitorInterval below 3s',
    set: (c) => {
      c.containerLogMonitorInterval = '2s';
    },
    want: 'invalid configuration: containerLogMonitorInterval must be a positive time duration greater than or equal to 3s',
  },
  {
    name: 'podLogsDir empty',
    set: (c) => {
      c.podLogsDir = '';
    },
    want: 'invalid configuration: podLogsDir was not specified',
  },
  {
    name: 'podLogsDir relative',
    set: (c) => {
      c.podLogsDir = 'var/log/pods';
    },
    want: 'invalid configuration: pod logs path "var/log/pods" must be absolute path',
  },
  {
    name: 'podLogsDir not normalized',
    set: (c) => {
      c.podLogsDir = '/var/log/../pods';
    },
    want: 'invalid configuration: pod logs path "/var/log/../pods" must be normalized',
  },
  {
    name: 'podLogsDir not ASCII',
    set: (c) => {
      c.podLogsDir = '/var/log/pöds';
    },
    want: 'invalid configuration: pod logs path "/var/log/pöds" mut contains ASCII characters only',
  },
  {
    name: 'critical pods longer than the whole',
    set: (c) => {
      c.shutdownGracePeriod = '10s';
      c.shutdownGracePeriodCriticalPods = '20s';
    },
    want: 'invalid configuration: shutdownGracePeriodCriticalPods 20s must be <= shutdownGracePeriod 10s',
  },
  {
    name: 'shutdownGracePeriod under a second',
    set: (c) => {
      c.shutdownGracePeriod = '500ms';
    },
    want: 'invalid configuration: shutdownGracePeriod 500ms must be either zero or otherwise >= 1 sec',
  },
  {
    name: 'shutdownGracePeriod without its gate',
    set: (c) => {
      c.shutdownGracePeriod = '30s';
      c.featureGates = { GracefulNodeShutdown: false };
    },
    want: 'invalid configuration: specifying shutdownGracePeriod or shutdownGracePeriodCriticalPods requires feature gate GracefulNodeShutdown',
  },
  {
    name: 'by priority and a period together',
    set: (c) => {
      c.shutdownGracePeriod = '30s';
      c.shutdownGracePeriodByPodPriority = [{ priority: 0, shutdownGracePeriodSeconds: 10 }];
    },
    want: 'invalid configuration: Cannot specify both shutdownGracePeriodByPodPriority and shutdownGracePeriod at the same time',
  },
  {
    name: 'by priority without its gate',
    set: (c) => {
      c.shutdownGracePeriodByPodPriority = [{ priority: 0, shutdownGracePeriodSeconds: 10 }];
      c.featureGates = { GracefulNodeShutdownBasedOnPodPriority: false };
    },
    want: 'invalid configuration: Specifying shutdownGracePeriodByPodPriority requires feature gate GracefulNodeShutdownBasedOnPodPriority',
  },
  {
    name: 'swap behavior unknown',
    set: (c) => {
      c.memorySwap.swapBehavior = 'UnlimitedSwap';
    },
    want: 'invalid configuration: memorySwap.swapBehavior "UnlimitedSwap" must be one of: "", "LimitedSwap" or "NoSwap"',
  },
  {
    name: 'swap behavior without NodeSwap',
    set: (c) => {
      c.memorySwap.swapBehavior = 'NoSwap';
      c.featureGates = { NodeSwap: false };
    },
    want: 'invalid configuration: memorySwap.swapBehavior cannot be set when NodeSwap feature flag is disabled',
  },
  {
    name: 'memoryThrottlingFactor above 1',
    set: (c) => {
      c.memoryThrottlingFactor = 1.5;
    },
    want: 'invalid configuration: memoryThrottlingFactor 1.5 must be greater than 0 and less than or equal to 1.0',
  },
  {
    name: 'memoryThrottlingFactor zero',
    set: (c) => {
      c.memoryThrottlingFactor = 0;
    },
    want: 'invalid configuration: memoryThrottlingFactor 0 must be greater than 0 and less than or equal to 1.0',
  },
  {
    name: 'back-off cap without its gate',
    set: (c) => {
      c.crashLoopBackOff.maxContainerRestartPeriod = '1m0s';
    },
    want: 'invalid configuration: FeatureGate KubeletCrashLoopBackOffMax not enabled, CrashLoopBackOff.MaxContainerRestartPeriod must not be set',
  },
  {
    name: 'back-off cap out of range',
    set: (c) => {
      c.crashLoopBackOff.maxContainerRestartPeriod = '10m0s';
      c.featureGates = { PlatletCrashLoopBackOffMax: true };
    },
    want: 'invalid configuration: CrashLoopBackOff.MaxContainerRestartPeriod (got: 600 seconds) must be set between 1s and 300s',
  },
  {
    name: 'system log query without NodeLogQuery',
    set: (c) => {
      c.enableSystemLogQuery = true;
    },
    want: 'invalid configuration: NodeLogQuery feature gate is required for enableSystemLogQuery',
  },
  {
    name: 'system log query without the handler',
    set: (c) => {
      c.enableSystemLogQuery = true;
      c.enableSystemLogHandler = false;
      c.featureGates = { NodeLogQuery: true };
    },
    want: 'invalid configuration: enableSystemLogHandler is required for enableSystemLogQuery',
  },
  {
    name: 'iptablesDropBit out of range',
    set: (c) => {
      c.iptablesDropBit = 32;
    },
    want: 'invalid configuration: iptablesDropBit (--iptables-drop-bit) 32 must be between 0 and 31, inclusive',
  },
  {
    name: 'iptablesMasqueradeBit out of range',
    set: (c) => {
      c.iptablesMasqueradeBit = -1;
    },
    want: 'invalid configuration: iptablesMasqueradeBit (--iptables-masquerade-bit) -1 must be between 0 and 31, inclusive',
  },
  {
    name: 'change detection strategy unknown',
    set: (c) => {
      c.configMapAndSecretChangeDetectionStrategy = 'Poll';
    },
    want: 'invalid configuration: configMapAndSecretChangeDetectionStrategy "Poll" is not supported: must be one of Get, Cache, Watch',
  },
  {
    name: 'hidden metrics of another version',
    set: (c) => {
      c.showHiddenMetricsForVersion = '1.30';
    },
    want: "--show-hidden-metrics-for-version must be omitted or have the value '1.31'. Only the previous minor version is allowed",
  },
  {
    name: 'tracing rate above a million',
    set: (c) => {
      c.tracing = { samplingRatePerMillion: 1_000_001 };
    },
    want: 'tracing.samplingRatePerMillion: Invalid value: 1000001: sampling rate per million must be less than or equal to one million',
  },
  {
    name: 'tracing without its gate',
    set: (c) => {
      c.tracing = { samplingRatePerMillion: 10 };
      c.featureGates = { PlatletTracing: false };
    },
    want: 'invalid configuration: tracing should not be configured if PlatletTracing feature flag is disabled.',
  },
  {
    name: 'tracing endpoint scheme',
    set: (c) => {
      c.tracing = { endpoint: 'http://127.0.0.1:4317' };
    },
    want: 'tracing.endpoint: Invalid value: "http://127.0.0.1:4317": unsupported scheme: http.  Options are none, dns, unix, or unix-abstract.  See https://github.com/grpc/grpc/blob/master/doc/naming.md',
  },
];

for (const c of cases) {
  test(`file-only field validation (reference message): ${c.name}`, () => {
    const problems = problemsOf(c.set);
    assert.ok(
      problems.includes(c.want),
      `want ${JSON.stringify(c.want)}; got ${JSON.stringify(problems)}`,
    );
  });
}

test('accepted values of the file-only fields give no problem', () => {
  assert.deepEqual(
    problemsOf((c) => {
      c.shutdownGracePeriod = '30s';
      c.shutdownGracePeriodCriticalPods = '10s';
      c.imageMaximumGCAge = '168h0m0s';
      c.serializeImagePulls = false;
      c.maxParallelImagePulls = 4;
      c.memorySwap.swapBehavior = 'LimitedSwap';
      c.memoryThrottlingFactor = 1;
      c.tracing = { endpoint: '127.0.0.1:4317', samplingRatePerMillion: 100 };
      c.showHiddenMetricsForVersion = '1.31';
      c.configMapAndSecretChangeDetectionStrategy = 'Get';
    }),
    [],
  );
});

test('memoryThrottlingFactor: abc is an error naming the field, not a dropped unknown field', async (t) => {
  await assert.rejects(withFile(t, 'memoryThrottlingFactor: abc\n'), (e: Error) => {
    assert.match(e.message, /memoryThrottlingFactor/);
    assert.match(e.message, /line 3/);
    return true;
  });
  await assert.rejects(
    withFile(t, 'crashLoopBackOff: {maxRestart: 1s}\n').then((eff) => {
      if (eff.warnings.length > 0) throw new Error(eff.warnings.join('\n'));
    }),
    /crashLoopBackOff\.maxRestart/,
  );
});

test('maxParallelImagePulls of 2 or more turns serializeImagePulls off unless it was set, as the reference defaults', async (t) => {
  const eff = await withFile(t, 'maxParallelImagePulls: 3\n');
  assert.equal(eff.config.serializeImagePulls, false);
  assert.deepEqual(eff.problems, []);
  const set = await withFile(t, 'maxParallelImagePulls: 3\nserializeImagePulls: true\n');
  assert.ok(
    set.problems.includes(
      'invalid configuration: maxParallelImagePulls cannot be larger than 1 unless SerializeImagePulls (--serialize-image-pulls) is set to false',
    ),
  );
  const gated = await withFile(t, 'featureGates: {PlatletCrashLoopBackOffMax: true}\n');
  assert.equal(gated.config.crashLoopBackOff.maxContainerRestartPeriod, '5m0s');
});

test('--print-config shows every file-only field, and the JSON Schema describes each', () => {
  const out = renderPrintConfig(
    defaultConfiguration('file'),
    buildNodeAgentFlags(FLAGS, new Map()),
  );
  const first = out.split('\n---\n')[0] ?? '';
  for (const f of FIELDS)
    assert.match(first, new RegExp(`^${f}:`, 'm'), `--print-config lacks ${f}`);
  const schema = JSON.parse(readFileSync('schema/nodeagent-config.schema.json', 'utf8')) as {
    properties: Record<string, unknown>;
  };
  for (const f of FIELDS) assert.ok(schema.properties[f] !== undefined, `schema lacks ${f}`);
});
