// Validation of the configuration-file fields that have no flag, in the
// reference's words (pkg/kubelet/apis/config/validation/validation.go, Kubernetes 1.32; the
// tracing rules of component-base/tracing/api/v1; metrics.ValidateShowHiddenMetricsVersion).
import { isAbsolute, normalize } from 'node:path';
import type { NodeAgentConfiguration } from './schema.js';
import type { Problems } from './validate-context.js';
import { tryDurationMs } from './values.js';
import { isOneOf } from '../../common/util/json-shape.js';

type Cfg = NodeAgentConfiguration;
type Gate = (name: string) => boolean;

/** The version whose hidden metrics may be shown: the previous minor of the reference (1.32). */
export const SHOW_HIDDEN_METRICS_VERSION = '1.31';

const SWAP_BEHAVIORS = ['NoSwap', 'LimitedSwap'] as const;
const CHANGE_DETECTION = ['Get', 'Cache', 'Watch'] as const;

/** A Go duration in ms; a problem naming the field when it does not parse. */
function ms(p: Problems, path: string, value: string): number | undefined {
  const v = tryDurationMs(value);
  if (v === undefined)
    p.add(path, value, 'is not a duration: use Go syntax such as 300ms, 20s, 2m0s or 1.5h');
  return v;
}

function validateImages(c: Cfg, p: Problems, on: Gate): void {
  const maxAge = ms(p, 'imageMaximumGCAge', c.imageMaximumGCAge);
  const minAge = tryDurationMs(c.imageMinimumGCAge);
  if (maxAge !== undefined) {
    if (maxAge !== 0 && !on('ImageMaximumGCAge'))
      p.raw(
        'ImageMaximumGCAge feature gate is required for Kubelet configuration option ' +
          'imageMaximumGCAge',
      );
    if (maxAge < 0) p.raw(`imageMaximumGCAge ${c.imageMaximumGCAge} must not be negative`);
    if (maxAge > 0 && minAge !== undefined && maxAge <= minAge)
      p.raw(
        `imageMaximumGCAge ${c.imageMaximumGCAge} must be greater than ` +
          `imageMinimumGCAge ${c.imageMinimumGCAge}`,
      );
  }
  const parallel = c.maxParallelImagePulls;
  if (parallel !== null) {
    if (parallel < 1) p.raw(`maxParallelImagePulls ${parallel} must be a positive number`);
    if (c.serializeImagePulls && parallel > 1)
      p.raw(
        'maxParallelImagePulls cannot be larger than 1 unless SerializeImagePulls ' +
          '(--serialize-image-pulls) is set to false',
      );
  }
}

function validateLogs(c: Cfg, p: Problems): void {
  if (c.containerLogMaxWorkers < 1)
    p.raw('containerLogMaxWorkers must be greater than or equal to 1');
  const interval = ms(p, 'containerLogMonitorInterval', c.containerLogMonitorInterval);
  if (interval !== undefined && interval < 3000)
    p.raw(
      'containerLogMonitorInterval must be a positive time duration greater than or equal to 3s',
    );
  const dir = c.podLogsDir;
  if (dir === '') p.raw('podLogsDir was not specified');
  if (!isAbsolute(dir)) p.raw(`pod logs path ${JSON.stringify(dir)} must be absolute path`);
  else if (normalize(dir).replace(/(.)\/$/, '$1') !== dir)
    p.raw(`pod logs path ${JSON.stringify(dir)} must be normalized`);
  // eslint-disable-next-line no-control-regex
  if (/[^\x00-\x7f]/.test(dir))
    p.raw(`pod logs path ${JSON.stringify(dir)} mut contains ASCII characters only`);
}

function validateShutdown(c: Cfg, p: Problems, on: Gate): void {
  const period = ms(p, 'shutdownGracePeriod', c.shutdownGracePeriod);
  const critical = ms(p, 'shutdownGracePeriodCriticalPods', c.shutdownGracePeriodCriticalPods);
  if (period === undefined || critical === undefined) return;
  if (on('GracefulNodeShutdown')) {
    if (critical > period)
      p.raw(
        `shutdownGracePeriodCriticalPods ${c.shutdownGracePeriodCriticalPods} must be ` +
          `<= shutdownGracePeriod ${c.shutdownGracePeriod}`,
      );
    if (period < 0 || (period > 0 && period < 1000))
      p.raw(
        `shutdownGracePeriod ${c.shutdownGracePeriod} must be either zero or otherwise >= 1 sec`,
      );
    if (critical < 0 || (critical > 0 && critical < 1000))
      p.raw(
        `shutdownGracePeriodCriticalPods ${c.shutdownGracePeriodCriticalPods} must be ` +
          `either zero or otherwise >= 1 sec`,
      );
  } else if (period > 0 || critical > 0) {
    p.raw(
      'specifying shutdownGracePeriod or shutdownGracePeriodCriticalPods requires ' +
        'feature gate GracefulNodeShutdown',
    );
  }
  const byPriority = c.shutdownGracePeriodByPodPriority.length > 0;
  if (on('GracefulNodeShutdownBasedOnPodPriority')) {
    if (byPriority && (period > 0 || critical > 0))
      p.raw(
        'Cannot specify both shutdownGracePeriodByPodPriority and shutdownGracePeriod ' +
          'at the same time',
      );
  } else if (byPriority) {
    p.raw(
      'Specifying shutdownGracePeriodByPodPriority requires feature gate ' +
        'GracefulNodeShutdownBasedOnPodPriority',
    );
  }
}

function validateMemory(c: Cfg, p: Problems, on: Gate): void {
  const swap = c.memorySwap.swapBehavior;
  if (on('NodeSwap')) {
    if (swap !== '' && !isOneOf(SWAP_BEHAVIORS, swap))
      p.raw(
        `memorySwap.swapBehavior ${JSON.stringify(swap)} must be one of: "", ` +
          `"LimitedSwap" or "NoSwap"`,
      );
  } else if (swap !== '') {
    p.raw('memorySwap.swapBehavior cannot be set when NodeSwap feature flag is disabled');
  }
  const f = c.memoryThrottlingFactor;
  if (!Number.isFinite(f) || f <= 0 || f > 1)
    p.raw(`memoryThrottlingFactor ${f} must be greater than 0 and less than or equal to 1.0`);
}

function validateBackOff(c: Cfg, p: Problems, on: Gate): void {
  const max = c.crashLoopBackOff.maxContainerRestartPeriod;
  if (!on('PlatletCrashLoopBackOffMax')) {
    if (max !== null)
      p.raw(
        'FeatureGate KubeletCrashLoopBackOffMax not enabled, ' +
          'CrashLoopBackOff.MaxContainerRestartPeriod must not be set',
      );
    return;
  }
  if (max === null) {
    p.raw(
      'FeatureGate KubeletCrashLoopBackOffMax is enabled, ' +
        'CrashLoopBackOff.MaxContainerRestartPeriod must be set',
    );
    return;
  }
  const v = ms(p, 'crashLoopBackOff.maxContainerRestartPeriod', max);
  if (v !== undefined && (v < 1000 || v > 300_000))
    p.raw(
      `CrashLoopBackOff.MaxContainerRestartPeriod (got: ${v / 1000} seconds) must be ` +
        `set between 1s and 300s`,
    );
}

function validateTracing(c: Cfg, p: Problems, on: Gate): void {
  const t = c.tracing;
  if (t === null) return;
  if (!on('PlatletTracing')) {
    p.raw('tracing should not be configured if PlatletTracing feature flag is disabled.');
    return;
  }
  const rate = t.samplingRatePerMillion;
  if (rate !== undefined && rate < 0)
    p.plain(
      `tracing.samplingRatePerMillion: Invalid value: ${rate}: sampling rate must be positive`,
    );
  if (rate !== undefined && rate > 1_000_000)
    p.plain(
      `tracing.samplingRatePerMillion: Invalid value: ${rate}: sampling rate per ` +
        `million must be less than or equal to one million`,
    );
  if (t.endpoint === undefined) return;
  const endpoint = t.endpoint.includes('//') ? t.endpoint : `dns://${t.endpoint}`;
  let scheme: string;
  try {
    scheme = new URL(endpoint).protocol.replace(/:$/, '');
  } catch {
    p.plain(`tracing.endpoint: Invalid value: ${JSON.stringify(endpoint)}: is not a URL`);
    return;
  }
  if (!['dns', 'unix', 'unix-abstract'].includes(scheme)) {
    p.plain(
      `tracing.endpoint: Invalid value: ${JSON.stringify(endpoint)}: unsupported ` +
        `scheme: ${scheme}.  Options are none, dns, unix, or unix-abstract.  See ` +
        `https://github.com/grpc/grpc/blob/master/doc/naming.md`,
    );
  }
}

function validateHandlersAndMisc(c: Cfg, p: Problems, on: Gate): void {
  if (c.enableSystemLogQuery && !on('NodeLogQuery'))
    p.raw('NodeLogQuery feature gate is required for enableSystemLogQuery');
  if (c.enableSystemLogQuery && !c.enableSystemLogHandler)
    p.raw('enableSystemLogHandler is required for enableSystemLogQuery');
  for (const [path, v] of [
    ['iptablesDropBit', c.iptablesDropBit],
    ['iptablesMasqueradeBit', c.iptablesMasqueradeBit],
  ] as const) {
    const flag = path === 'iptablesDropBit' ? '--iptables-drop-bit' : '--iptables-masquerade-bit';
    if (v < 0 || v > 31) p.raw(`${path} (${flag}) ${v} must be between 0 and 31, inclusive`);
  }
  if (!isOneOf(CHANGE_DETECTION, c.configMapAndSecretChangeDetectionStrategy)) {
    p.add(
      'configMapAndSecretChangeDetectionStrategy',
      c.configMapAndSecretChangeDetectionStrategy,
      `is not supported: must be one of ${CHANGE_DETECTION.join(', ')}`,
    );
  }
  const hidden = c.showHiddenMetricsForVersion;
  if (hidden !== '' && hidden !== SHOW_HIDDEN_METRICS_VERSION) {
    p.plain(
      `--show-hidden-metrics-for-version must be omitted or have the value '` +
        `${SHOW_HIDDEN_METRICS_VERSION}'. Only the previous minor version is allowed`,
    );
  }
  for (const row of c.shutdownGracePeriodByPodPriority) {
    if (row.shutdownGracePeriodSeconds < 0)
      p.add(
        'shutdownGracePeriodByPodPriority',
        row,
        'shutdownGracePeriodSeconds must not be negative',
      );
  }
}

/** Every problem of the file-only fields, added to `p`. */
export function validateFileOnlyFields(c: Cfg, p: Problems, on: Gate): void {
  validateImages(c, p, on);
  validateLogs(c, p);
  validateShutdown(c, p, on);
  validateMemory(c, p, on);
  validateBackOff(c, p, on);
  validateTracing(c, p, on);
  validateHandlersAndMisc(c, p, on);
}
