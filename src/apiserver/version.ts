// plat-apiserver's version, as kube-apiserver reports its own: the record GET /version serves
// (major, minor, gitVersion of the Kubernetes API level it speaks, so kubectl's version skew check
// compares it with 1.32; the build stamp; the runtime), `--version` printing the program and its
// package version, and `--version=raw` printing the record /version serves. `--version=vX.Y.Z`
// replaces the gitVersion served, and must keep the default's major, minor and patch, as the
// reference's SetDynamicVersion demands.
import { FlagError } from '../common/util/errors.js';
import {
  buildStamp,
  majorMinor,
  packageVersion,
  platformName,
  versionOverrideOf,
} from '../common/version.js';

/** The API level served: kubectl reads major/minor from it for its version skew warning. */
export const DEFAULT_GIT_VERSION = 'v1.32.0-plat';

/** The version record of GET /version (io.k8s.apimachinery.pkg.version.Info). */
export interface ServedVersion {
  readonly major: string;
  readonly minor: string;
  readonly gitVersion: string;
  readonly gitCommit: string;
  readonly gitTreeState: string;
  readonly buildDate: string;
  readonly goVersion: string;
  readonly compiler: string;
  readonly platform: string;
}

export function servedVersion(gitVersion: string = DEFAULT_GIT_VERSION): ServedVersion {
  return {
    ...majorMinor(gitVersion),
    gitVersion,
    ...buildStamp(),
    goVersion: `node${process.versions.node}`,
    compiler: 'tsc',
    platform: platformName(),
  };
}

function core(v: string): string {
  return /^v(\d+\.\d+\.\d+)/.exec(v)?.[1] ?? '';
}

/**
 * The gitVersion `--version` (already parsed: true, false, raw or vX.Y.Z) sets, or undefined.
 * Throws the reference's error when the major, minor or patch differs from the default's.
 */
export function reportedGitVersion(value: string): string | undefined {
  const v = versionOverrideOf(value);
  if (v === undefined || v === DEFAULT_GIT_VERSION) return undefined;
  if (core(v) !== core(DEFAULT_GIT_VERSION))
    throw new FlagError(
      `invalid argument "${v}" for "--version" flag: version "${v}" must match ` +
        `major/minor/patch of default version "${DEFAULT_GIT_VERSION}"`,
      { flag: 'version' },
    );
  return v;
}

/** What `--version` prints before exiting 0, or undefined when the server should start. */
export function versionOutput(value: string): string | undefined {
  if (value === 'true') return `plat-apiserver ${packageVersion()}\n`;
  if (value === 'raw') return `${JSON.stringify(servedVersion(), null, 2)}\n`;
  return undefined;
}
