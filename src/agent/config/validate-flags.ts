// Rules about flag-only settings (NodeAgentFlags), worded as the reference words its flag checks.
import { isIP } from 'node:net';
import { labelValueErrors, qualifiedNameErrors } from '../../common/util/values/index.js';
import { inLabelNamespace, type Names } from '../../common/names.js';
import type { NodeAgentFlags } from './flags-type.js';

/** The well-known labels in the platform namespace an agent may set on its own node. */
export function allowedNodeLabels(names: Names): Set<string> {
  return new Set(Object.values(names.labels));
}

/** Keys of `labels` in the platform namespace that an agent may not set, sorted. */
export function forbiddenNodeLabels(
  labels: Readonly<Record<string, string>>,
  names: Names,
): string[] {
  const allowed = allowedNodeLabels(names);
  const bad: string[] = [];
  for (const key of Object.keys(labels)) {
    if (!inLabelNamespace(key, names.labelDomain)) continue;
    if (names.nodeSelfLabelNamespaces.some((ns) => inLabelNamespace(key, ns))) continue;
    if (allowed.has(key)) continue;
    bad.push(key);
  }
  return bad.sort();
}

export function validateFlagOnly(flags: NodeAgentFlags, names: Names): string[] {
  const problems: string[] = [];
  const labels = flags.nodeLabels;
  for (const [k, v] of Object.entries(labels)) {
    const errs = [
      ...qualifiedNameErrors(k),
      ...labelValueErrors(v).map((e) => `value ${JSON.stringify(v)}: ${e}`),
    ];
    if (errs.length > 0)
      problems.push(`invalid node labels: ${k}=${v}: ${errs.join('; ')} (--node-labels)`);
  }
  const bad = forbiddenNodeLabels(labels, names);
  if (bad.length > 0)
    problems.push(
      `unknown '${names.labelDomain}' labels specified with --node-labels: [${bad.join(' ')}]`,
    );
  if (flags.nodeIP !== '') {
    const ips = flags.nodeIP.split(',');
    const fams = ips.map((ip) => isIP(ip.trim()));
    if (ips.length > 2 || fams.includes(0)) {
      problems.push(
        `invalid value ${JSON.stringify(flags.nodeIP)} for --node-ip: expected an IP ` +
          `address or a comma-separated IPv4,IPv6 pair`,
      );
    } else if (ips.length === 2 && fams[0] === fams[1]) {
      problems.push(
        `invalid value ${JSON.stringify(flags.nodeIP)} for --node-ip: a dual-stack pair ` +
          `needs one IPv4 and one IPv6 address`,
      );
    }
  }
  if (flags.cloudProvider !== '' && flags.cloudProvider !== 'external') {
    problems.push(
      `invalid value ${JSON.stringify(flags.cloudProvider)} for --cloud-provider: only ` +
        `"" (none) and "external" are supported`,
    );
  }
  const host = flags.hostnameOverride.trim().toLowerCase();
  if (
    host !== '' &&
    (host.length > 253 ||
      !/^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/.test(host))
  ) {
    problems.push(
      `invalid value ${JSON.stringify(flags.hostnameOverride)} for --hostname-override: ` +
        `a node name must be a DNS subdomain (lowercase letters, digits, '-' and '.')`,
    );
  }
  if (flags.runtimeCgroups !== '' && !flags.runtimeCgroups.startsWith('/')) {
    problems.push(
      `invalid value ${JSON.stringify(flags.runtimeCgroups)} for --runtime-cgroups: ` +
        `must be an absolute cgroup name starting with /`,
    );
  }
  if (flags.rootDir === '') problems.push('--root-dir must not be empty');
  if (flags.certDir === '') problems.push('--cert-dir must not be empty');
  if (flags.exitOnLockContention && flags.lockFile === '')
    problems.push('--exit-on-lock-contention needs --lock-file');
  return problems;
}
