// One spelling per value in the effective configuration: durations as Go prints them (`1m` ->
// `1m0s`), quantities in canonical form (`1024Ki` -> `1Mi`). Values that do not parse are left as
// they are, for validation to report with their field and flag.
import { formatDurationNs } from '../../common/util/values/index.js';
import type { NodeAgentConfiguration } from './schema.js';
import { tryNormalizeDuration, tryNormalizeQuantity } from './values.js';

const DURATION_FIELDS = [
  'streamingConnectionIdleTimeout',
  'fileCheckFrequency',
  'httpCheckFrequency',
  'syncFrequency',
  'nodeStatusUpdateFrequency',
  'nodeStatusReportFrequency',
  'runtimeRequestTimeout',
  'imageMinimumGCAge',
  'imageMaximumGCAge',
  'containerLogMonitorInterval',
  'shutdownGracePeriod',
  'shutdownGracePeriodCriticalPods',
  'volumeStatsAggPeriod',
  'cpuCFSQuotaPeriod',
  'cpuManagerReconcilePeriod',
  'evictionPressureTransitionPeriod',
] as const;

function quantities(m: Record<string, string | number>): Record<string, string> {
  return Object.fromEntries(Object.entries(m).map(([k, v]) => [k, tryNormalizeQuantity(v)]));
}

/** Normalizes in place and returns `c`. */
export function normalizeConfiguration(c: NodeAgentConfiguration): NodeAgentConfiguration {
  for (const f of DURATION_FIELDS) c[f] = tryNormalizeDuration(c[f]);
  c.authentication.webhook.cacheTTL = tryNormalizeDuration(c.authentication.webhook.cacheTTL);
  c.authorization.webhook.cacheAuthorizedTTL = tryNormalizeDuration(
    c.authorization.webhook.cacheAuthorizedTTL,
  );
  c.authorization.webhook.cacheUnauthorizedTTL = tryNormalizeDuration(
    c.authorization.webhook.cacheUnauthorizedTTL,
  );
  c.evictionSoftGracePeriod = Object.fromEntries(
    Object.entries(c.evictionSoftGracePeriod).map(([k, v]) => [k, tryNormalizeDuration(v)]),
  );
  const flush: unknown = c.logging.flushFrequency;
  // The reference also accepts a plain number of nanoseconds for logging.flushFrequency.
  c.logging.flushFrequency =
    typeof flush === 'number' && Number.isInteger(flush)
      ? formatDurationNs(BigInt(flush))
      : tryNormalizeDuration(String(flush));
  c.logging.options.text.infoBufferSize = tryNormalizeQuantity(
    c.logging.options.text.infoBufferSize,
  );
  c.systemReserved = quantities(c.systemReserved);
  c.platReserved = quantities(c.platReserved);
  c.reservedMemory = c.reservedMemory.map((r) => ({
    numaNode: r.numaNode,
    limits: quantities(r.limits),
  }));
  const restartMax = c.crashLoopBackOff.maxContainerRestartPeriod;
  if (restartMax !== null)
    c.crashLoopBackOff.maxContainerRestartPeriod = tryNormalizeDuration(restartMax);
  const size: unknown = c.containerLogMaxSize;
  c.containerLogMaxSize = tryNormalizeQuantity(typeof size === 'number' ? size : String(size));
  return c;
}
