// Node labels at registration: the defaults ({domain}/hostname, /os, /arch and the legacy
// beta.{domain}/os, /arch) and --node-labels, whose keys in the {domain} namespace are limited to
// the reference's allowed prefixes and set.

import type { Names } from '../../common/names.js';
import { ConfigError } from '../../common/util/errors.js';
import { labelValueErrors, qualifiedNameErrors } from '../../common/util/values/labels.js';
import { allowedNodeLabels, forbiddenNodeLabels } from '../config/validate-flags.js';

/** Node's process.arch names -> the reference's GOARCH names. */
const GO_ARCH: Readonly<Record<string, string>> = {
  x64: 'amd64',
  ia32: '386',
  arm64: 'arm64',
  arm: 'arm',
  ppc64: 'ppc64le',
  s390x: 's390x',
  riscv64: 'riscv64',
};

/** Node's process.arch / platform in the reference's GOARCH / GOOS spelling. */
export function goArch(arch: string = process.arch): string {
  return GO_ARCH[arch] ?? arch;
}

export function goOs(platform: string = process.platform): string {
  return platform === 'win32' ? 'windows' : platform;
}

export function defaultNodeLabels(
  names: Names,
  nodeName: string,
  os = goOs(),
  arch = goArch(),
): Record<string, string> {
  const l = names.labels;
  return { [l.hostname]: nodeName, [l.os]: os, [l.arch]: arch, [l.betaOs]: os, [l.betaArch]: arch };
}

/** Validates --node-labels; throws one ConfigError listing every problem. */
export function validateNodeLabels(labels: Readonly<Record<string, string>>, names: Names): void {
  const problems: string[] = [];
  for (const [k, v] of Object.entries(labels)) {
    for (const e of qualifiedNameErrors(k)) problems.push(`invalid label key "${k}": ${e}`);
    for (const e of labelValueErrors(v))
      problems.push(`invalid label value "${v}" of "${k}": ${e}`);
  }
  const unknown = forbiddenNodeLabels(labels, names);
  if (unknown.length > 0) {
    problems.push(
      `unknown '${names.labelDomain}' labels specified with --node-labels: [` +
        `${unknown.join(' ')}]; allowed are the prefixes ` +
        `${names.nodeSelfLabelNamespaces.map((n) => `${n}/`).join(' and ')} and the labels ` +
        [...allowedNodeLabels(names)].join(', '),
    );
  }
  if (problems.length > 0)
    throw new ConfigError(problems.join('; '), { flag: '--node-labels', problems });
}

/** The labels a node registers with: defaults, overwritten by --node-labels. */
export function registrationLabels(
  names: Names,
  nodeName: string,
  nodeLabels: Readonly<Record<string, string>>,
): Record<string, string> {
  validateNodeLabels(nodeLabels, names);
  return { ...defaultNodeLabels(names, nodeName), ...nodeLabels };
}
