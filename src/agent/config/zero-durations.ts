// Zero durations as the reference reads them. Its SetDefaults_KubeletConfiguration gives these
// fields their default when they are zero, so `0s` in a config file or drop-in means "unset".
// A flag's zero is accepted too (the reference validates none of them as positive); for the
// periods and timeouts a zero would turn into a loop without pause or a timeout at once, the
// default applies instead, said once as a warning naming the flag.
import { getPath, setPath, type JsonObject } from './merge.js';
import { tryDurationMs } from './values.js';

/** The durations the reference defaults when zero (pkg/kubelet/apis/config/v1beta1/defaults.go). */
const ZERO_IS_UNSET = [
  'syncFrequency',
  'fileCheckFrequency',
  'httpCheckFrequency',
  'authentication.webhook.cacheTTL',
  'authorization.webhook.cacheAuthorizedTTL',
  'authorization.webhook.cacheUnauthorizedTTL',
  'streamingConnectionIdleTimeout',
  'nodeStatusUpdateFrequency',
  'nodeStatusReportFrequency',
  'imageMinimumGCAge',
  'volumeStatsAggPeriod',
  'cpuManagerReconcilePeriod',
  'runtimeRequestTimeout',
  'evictionPressureTransitionPeriod',
] as const;

/** Of those, the periods and timeouts this agent cannot run with at zero. */
const ZERO_CANNOT_RUN = new Set<string>([
  'syncFrequency',
  'fileCheckFrequency',
  'httpCheckFrequency',
  'nodeStatusUpdateFrequency',
  'nodeStatusReportFrequency',
  'cpuManagerReconcilePeriod',
  'runtimeRequestTimeout',
]);

function isZero(v: unknown): boolean {
  return typeof v === 'string' && tryDurationMs(v) === 0;
}

/** A config file's (and its drop-ins') zero durations become their defaults, in place. */
export function defaultZeroFileDurations(merged: JsonObject, defaults: JsonObject): void {
  for (const path of ZERO_IS_UNSET)
    if (isZero(getPath(merged, path))) setPath(merged, path, getPath(defaults, path));
}

/**
 * A flag's zero for a period or timeout that cannot run at zero: the default applies, and the
 * returned warning says so. `flagOf` names a field's flag when the command line set it.
 */
export function defaultZeroFlagDurations(
  merged: JsonObject,
  defaults: JsonObject,
  flagOf: (path: string) => string | undefined,
): string[] {
  const warnings: string[] = [];
  for (const path of ZERO_CANNOT_RUN) {
    const flag = flagOf(path);
    const value = getPath(merged, path);
    if (flag === undefined || !isZero(value)) continue;
    const fallback = getPath(defaults, path);
    setPath(merged, path, fallback);
    warnings.push(
      `--${flag}=${String(value)}: a zero ${path} would run without pause, so its ` +
        `default ${String(fallback)} applies (the reference accepts a zero too)`,
    );
  }
  return warnings;
}
