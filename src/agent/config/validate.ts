// Validation of the merged configuration against every rule the spec states. Nothing stops at the
// first problem: every rule runs and every problem is returned, each naming its field and flag.
import { isIP } from 'node:net';
import { featureGateProblems, resolveFeatureGates } from '../cli/feature-gates.js';
import {
  DEFAULT_PLATFORM_DOMAIN,
  isPlatformProfile,
  PLATFORM_PROFILES,
} from '../../common/names.js';
import type { NodeAgentConfiguration } from './schema.js';
import { isTlsCipherSuite, TLS_VERSIONS } from './tls-ciphers.js';
import { Problems, type ValidationOptions } from './validate-context.js';
import { validateResources } from './validate-resources.js';
import { validateFileOnlyFields } from './validate-file-fields.js';
import { tryDurationMs, tryQuantity } from './values.js';

export type { ValidationOptions } from './validate-context.js';

const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const SYSCTL_PATTERN =
  /^([a-z0-9]([-_a-z0-9]*[a-z0-9])?[./])*[a-z0-9]([-_a-z0-9]*[a-z0-9])?(\*|[./]\*)?$/;
const CPUSET = /^\d+(-\d+)?(,\d+(-\d+)?)*$/;

type Cfg = NodeAgentConfiguration;

function oneOf(p: Problems, path: string, value: string, allowed: readonly string[]): void {
  if (!allowed.includes(value))
    p.add(path, value, `is not supported: must be one of ${allowed.join(', ')}`);
}

function nonNegative(p: Problems, path: string, value: number): void {
  if (value < 0) p.add(path, value, 'must not be a negative number');
}

function between(p: Problems, path: string, value: number, min: number, max: number): void {
  if (value < min || value > max)
    p.add(path, value, `must be between ${min} and ${max}, inclusive`);
}

/**
 * `min` is 'positive' (> 0), 'nonNegative' (>= 0) or 'any'. Returns the milliseconds when valid.
 */
function duration(
  p: Problems,
  path: string,
  value: string,
  min: 'positive' | 'nonNegative' | 'any',
): number | undefined {
  const ms = tryDurationMs(value);
  if (ms === undefined) {
    p.add(path, value, 'is not a duration: use Go syntax such as 300ms, 20s, 2m0s or 1.5h');
    return undefined;
  }
  if (min === 'positive' && ms <= 0) p.add(path, value, 'must be greater than 0');
  else if (min === 'nonNegative' && ms < 0) p.add(path, value, 'must not be a negative duration');
  return ms;
}

function gate(
  p: Problems,
  path: string,
  value: unknown,
  on: (n: string) => boolean,
  name: string,
): void {
  if (!on(name)) p.add(path, value, `requires feature gate ${name}`);
}

function validateServer(c: Cfg, p: Problems): void {
  if (isIP(c.address) === 0) p.add('address', c.address, 'is not a valid IP address');
  if (isIP(c.healthzBindAddress) === 0)
    p.add('healthzBindAddress', c.healthzBindAddress, 'is not a valid IP address');
  if (c.enableServer) between(p, 'port', c.port, 1, 65535);
  between(p, 'readOnlyPort', c.readOnlyPort, 0, 65535);
  between(p, 'healthzPort', c.healthzPort, 0, 65535);
  if ((c.tlsCertFile === '') !== (c.tlsPrivateKeyFile === '')) {
    p.raw(`${p.field('tlsCertFile')} and ${p.field('tlsPrivateKeyFile')} must be given together`);
  }
  if (c.tlsMinVersion !== '') oneOf(p, 'tlsMinVersion', c.tlsMinVersion, TLS_VERSIONS);
  const badSuites = c.tlsCipherSuites.filter((s) => !isTlsCipherSuite(s));
  if (badSuites.length > 0)
    p.add(
      'tlsCipherSuites',
      badSuites,
      'are not supported cipher suites: see --help for the accepted names',
    );
  if (c.tlsMinVersion === 'VersionTLS13' && c.tlsCipherSuites.length > 0) {
    p.raw(
      `${p.field('tlsCipherSuites')} cannot be set when ${p.field('tlsMinVersion')} is ` +
        `VersionTLS13 (TLS 1.3 suites are not configurable)`,
    );
  }
  oneOf(p, 'authorization.mode', c.authorization.mode, ['AlwaysAllow', 'Webhook']);
  duration(p, 'authentication.webhook.cacheTTL', c.authentication.webhook.cacheTTL, 'nonNegative');
  duration(
    p,
    'authorization.webhook.cacheAuthorizedTTL',
    c.authorization.webhook.cacheAuthorizedTTL,
    'nonNegative',
  );
  duration(
    p,
    'authorization.webhook.cacheUnauthorizedTTL',
    c.authorization.webhook.cacheUnauthorizedTTL,
    'nonNegative',
  );
  duration(p, 'streamingConnectionIdleTimeout', c.streamingConnectionIdleTimeout, 'nonNegative');
  if (c.runOnce && c.enableServer) {
    p.raw(
      `${p.field('runOnce')} true is exclusive with ${p.field('enableServer')} true: ` +
        `set enableServer to false (--enable-server=false) to run once`,
    );
  }
}

function validateSources(c: Cfg, p: Problems): void {
  duration(p, 'fileCheckFrequency', c.fileCheckFrequency, 'positive');
  duration(p, 'httpCheckFrequency', c.httpCheckFrequency, 'positive');
  duration(p, 'syncFrequency', c.syncFrequency, 'positive');
  if (c.staticPodURL !== '' && !/^https?:\/\//i.test(c.staticPodURL))
    p.add('staticPodURL', c.staticPodURL, 'must be an http:// or https:// URL');
  if (Object.keys(c.staticPodURLHeader).length > 0 && c.staticPodURL === '') {
    p.raw(`${p.field('staticPodURLHeader')} is set but ${p.field('staticPodURL')} is empty`);
  }
  for (const name of Object.keys(c.staticPodURLHeader)) {
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name))
      p.add('staticPodURLHeader', name, 'is not a valid HTTP header name');
  }
}

function validateApi(c: Cfg, p: Problems): void {
  nonNegative(p, 'eventRecordQPS', c.eventRecordQPS);
  nonNegative(p, 'eventBurst', c.eventBurst);
  nonNegative(p, 'platAPIQPS', c.platAPIQPS);
  nonNegative(p, 'platAPIBurst', c.platAPIBurst);
  nonNegative(p, 'registryPullQPS', c.registryPullQPS);
  nonNegative(p, 'registryBurst', c.registryBurst);
  if (c.nodeStatusMaxImages < -1)
    p.add('nodeStatusMaxImages', c.nodeStatusMaxImages, 'must be -1 or greater');
  duration(p, 'nodeStatusUpdateFrequency', c.nodeStatusUpdateFrequency, 'positive');
  duration(p, 'nodeStatusReportFrequency', c.nodeStatusReportFrequency, 'positive');
  if (c.nodeLeaseDurationSeconds <= 0)
    p.add('nodeLeaseDurationSeconds', c.nodeLeaseDurationSeconds, 'must be greater than 0');
  if (c.platAPIContentType === '')
    p.add('platAPIContentType', c.platAPIContentType, 'must not be empty');
}

function validateRuntime(c: Cfg, p: Problems, on: (n: string) => boolean): void {
  if (c.containerRuntimeEndpoint === '')
    p.add('containerRuntimeEndpoint', c.containerRuntimeEndpoint, 'must not be empty');
  duration(p, 'runtimeRequestTimeout', c.runtimeRequestTimeout, 'positive');
  duration(p, 'imageMinimumGCAge', c.imageMinimumGCAge, 'nonNegative');
  between(p, 'imageGCHighThresholdPercent', c.imageGCHighThresholdPercent, 0, 100);
  between(p, 'imageGCLowThresholdPercent', c.imageGCLowThresholdPercent, 0, 100);
  if (c.imageGCLowThresholdPercent >= c.imageGCHighThresholdPercent) {
    p.raw(
      `${p.field('imageGCLowThresholdPercent')} ${c.imageGCLowThresholdPercent} must be ` +
        `less than ${p.field('imageGCHighThresholdPercent')} ` +
        `${c.imageGCHighThresholdPercent}`,
    );
  }
  if (c.containerLogMaxFiles < 2)
    p.add('containerLogMaxFiles', c.containerLogMaxFiles, 'must be equal to or greater than 2');
  const size = tryQuantity(c.containerLogMaxSize);
  if (size === undefined)
    p.add(
      'containerLogMaxSize',
      c.containerLogMaxSize,
      'is not a quantity: use a size such as 10Mi or 100M',
    );
  else if (size <= 0) p.add('containerLogMaxSize', c.containerLogMaxSize, 'must be greater than 0');
  const period = duration(p, 'cpuCFSQuotaPeriod', c.cpuCFSQuotaPeriod, 'positive');
  if (period !== undefined && period !== 100) {
    gate(p, 'cpuCFSQuotaPeriod', c.cpuCFSQuotaPeriod, on, 'CustomCPUCFSQuotaPeriod');
    if (period < 1 || period > 1000)
      p.add('cpuCFSQuotaPeriod', c.cpuCFSQuotaPeriod, 'must be between 1ms and 1s, inclusive');
  }
  if (c.serverTLSBootstrap)
    gate(p, 'serverTLSBootstrap', c.serverTLSBootstrap, on, 'RotatePlatletServerCertificate');
}

function validatePods(c: Cfg, p: Problems): void {
  nonNegative(p, 'maxPods', c.maxPods);
  nonNegative(p, 'podsPerCore', c.podsPerCore);
  if (c.podPidsLimit < -1)
    p.add('podPidsLimit', c.podPidsLimit, 'must be -1 (node allocatable) or greater');
  if (c.maxOpenFiles < 1) p.add('maxOpenFiles', c.maxOpenFiles, 'must be greater than 0');
  between(p, 'oomScoreAdj', c.oomScoreAdj, -1000, 1000);
  if (!['promiscuous-bridge', 'hairpin-veth', 'none'].includes(c.hairpinMode))
    p.add(
      'hairpinMode',
      c.hairpinMode,
      `is invalid (the reference: Invalid hairpin mode: unknown value: ` +
        `${JSON.stringify(c.hairpinMode)}): accepted are promiscuous-bridge, hairpin-veth, ` +
        `none`,
    );
  c.clusterDNS.forEach((ip) => {
    if (isIP(ip) === 0) p.add('clusterDNS', ip, 'is not a valid IP address');
  });
  if (c.clusterDomain !== '' && !DNS1123_SUBDOMAIN.test(c.clusterDomain.replace(/\.$/, ''))) {
    p.add(
      'clusterDomain',
      c.clusterDomain,
      'must be a lowercase DNS subdomain such as cluster.local',
    );
  }
  if (c.podCIDR !== '') validatePodCIDR(c.podCIDR, p);
  for (const s of c.allowedUnsafeSysctls) {
    if (!SYSCTL_PATTERN.test(s))
      p.add('allowedUnsafeSysctls', s, 'is not a valid sysctl name or pattern ending in *');
  }
  duration(p, 'volumeStatsAggPeriod', c.volumeStatsAggPeriod, 'any');
  if (c.volumePluginDir === '') p.add('volumePluginDir', c.volumePluginDir, 'must not be empty');
}

/** One CIDR, or two of different families separated by a comma (dual-stack), as the reference. */
function validatePodCIDR(value: string, p: Problems): void {
  const parts = value.split(',');
  const families = parts.map((cidr) => {
    const [ip, bits, extra] = cidr.split('/');
    const fam = isIP(ip ?? '');
    const max = fam === 6 ? 128 : 32;
    return fam === 0 ||
      extra !== undefined ||
      bits === undefined ||
      !/^\d+$/.test(bits) ||
      Number(bits) > max
      ? 0
      : fam;
  });
  if (families.includes(0))
    p.add(
      'podCIDR',
      value,
      'is not a valid CIDR such as 10.244.0.0/24 (or an IPv4 and an IPv6 CIDR separated ' +
        'by a comma)',
    );
  else if (parts.length > 2 || (parts.length === 2 && families[0] === families[1]))
    p.add('podCIDR', value, 'may hold at most two CIDRs, one IPv4 and one IPv6');
}

function validateManagers(c: Cfg, p: Problems, on: (n: string) => boolean): void {
  oneOf(p, 'cgroupDriver', c.cgroupDriver, ['cgroupfs', 'systemd']);
  for (const path of [
    'cgroupRoot',
    'nodeagentCgroups',
    'systemCgroups',
    'systemReservedCgroup',
    'platReservedCgroup',
  ] as const) {
    const v = c[path];
    if (v !== '' && !v.startsWith('/'))
      p.add(path, v, 'must be an absolute cgroup name starting with /');
    else if (v.split('/').some((s) => s === '.' || s === '..'))
      p.add(path, v, 'must not contain "." or ".." segments');
  }
  if (c.systemCgroups !== '' && c.cgroupRoot === '') {
    p.raw(
      `${p.field('systemCgroups')} was specified and ${p.field('cgroupRoot')} was not specified`,
    );
  }
  oneOf(p, 'cpuManagerPolicy', c.cpuManagerPolicy, ['none', 'static']);
  if (Object.keys(c.cpuManagerPolicyOptions).length > 0)
    gate(p, 'cpuManagerPolicyOptions', c.cpuManagerPolicyOptions, on, 'CPUManagerPolicyOptions');
  if (Object.keys(c.topologyManagerPolicyOptions).length > 0)
    gate(
      p,
      'topologyManagerPolicyOptions',
      c.topologyManagerPolicyOptions,
      on,
      'TopologyManagerPolicyOptions',
    );
  duration(p, 'cpuManagerReconcilePeriod', c.cpuManagerReconcilePeriod, 'positive');
  oneOf(p, 'memoryManagerPolicy', c.memoryManagerPolicy, ['None', 'Static']);
  oneOf(p, 'topologyManagerPolicy', c.topologyManagerPolicy, [
    'none',
    'best-effort',
    'restricted',
    'single-numa-node',
  ]);
  oneOf(p, 'topologyManagerScope', c.topologyManagerScope, ['container', 'pod']);
  if (c.reservedSystemCPUs !== '') {
    const ok =
      CPUSET.test(c.reservedSystemCPUs) &&
      c.reservedSystemCPUs.split(',').every((r) => {
        const [a, b] = r.split('-').map(Number);
        return b === undefined || (a !== undefined && a <= b);
      });
    if (!ok) p.add('reservedSystemCPUs', c.reservedSystemCPUs, 'is not a CPU list such as 0-3,8');
  }
  if (Object.keys(c.qosReserved).length > 0) {
    gate(p, 'qosReserved', c.qosReserved, on, 'QOSReserved');
    for (const [k, v] of Object.entries(c.qosReserved)) {
      if (k !== 'memory') p.add('qosReserved', k, 'is not supported: only memory may be reserved');
      const m = /^(\d+)%$/.exec(v);
      if (m === null || Number(m[1]) > 100)
        p.add('qosReserved', `${k}=${v}`, 'must be a percentage between 0% and 100%');
    }
  }
}

function validateLogging(c: Cfg, p: Problems, on: (n: string) => boolean): void {
  const l = c.logging;
  if (l.format !== 'text')
    p.add('logging.format', l.format, 'is not supported: the permitted format is text');
  duration(p, 'logging.flushFrequency', l.flushFrequency, 'positive');
  nonNegative(p, 'logging.verbosity', l.verbosity);
  for (const item of l.vmodule) {
    if (item.filePattern === '') p.add('logging.vmodule', item, 'needs a non-empty filePattern');
    if (item.verbosity < 0) p.add('logging.vmodule', item, 'verbosity must not be negative');
  }
  if (l.options.text.splitStream)
    gate(p, 'logging.options.text.splitStream', true, on, 'LoggingAlphaOptions');
  const buf = tryQuantity(l.options.text.infoBufferSize);
  if (buf === undefined)
    p.add(
      'logging.options.text.infoBufferSize',
      l.options.text.infoBufferSize,
      'is not a quantity such as 64Ki',
    );
  else if (buf < 0)
    p.add(
      'logging.options.text.infoBufferSize',
      l.options.text.infoBufferSize,
      'must not be negative',
    );
  else if (buf > 0)
    gate(
      p,
      'logging.options.text.infoBufferSize',
      l.options.text.infoBufferSize,
      on,
      'LoggingAlphaOptions',
    );
}

function validateGates(c: Cfg, p: Problems): void {
  for (const problem of featureGateProblems(c.featureGates))
    p.raw(`${p.field('featureGates')} ${problem}`);
}

/** Gate lookup over the configured overrides and the known defaults; unknown gates read as off. */
export function gateLookup(gates: Readonly<Record<string, boolean>>): (name: string) => boolean {
  const known = Object.fromEntries(
    Object.entries(gates).filter(
      ([k]) => featureGateProblems({ [k]: gates[k] ?? false }).length === 0,
    ),
  );
  const resolved = resolveFeatureGates(known);
  return (name) => resolved.effective[name] ?? false;
}

/** Every problem of the merged configuration; empty when it is valid. */
export function validateConfiguration(
  c: NodeAgentConfiguration,
  opts: ValidationOptions = {},
): string[] {
  const p = new Problems(opts.flagFor);
  const on = opts.gateEnabled ?? gateLookup(c.featureGates);
  if (!isPlatformProfile(c.platformProfile))
    p.add('platformProfile', c.platformProfile, `must be one of ${PLATFORM_PROFILES.join(', ')}`);
  if (!DNS1123_SUBDOMAIN.test(c.platformDomain))
    p.add(
      'platformDomain',
      c.platformDomain,
      `must be a lowercase DNS subdomain such as ${DEFAULT_PLATFORM_DOMAIN}`,
    );
  validateGates(c, p);
  validateServer(c, p);
  validateSources(c, p);
  validateApi(c, p);
  validateRuntime(c, p, on);
  validatePods(c, p);
  validateManagers(c, p, on);
  validateResources(c, p);
  validateLogging(c, p, on);
  validateFileOnlyFields(c, p, on);
  return p.list;
}
