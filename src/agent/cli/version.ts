// `nodeagent --version`: `nodeagent vX.Y.Z`; `--version=raw`: the full version record;
// `--version=vX.Y.Z`: report that version instead of the package's. The package version, build
// stamp and value syntax are common to both programs (src/common/version.ts).
import type { ParsedFlags } from './flag-spec.js';
import {
  buildStamp,
  majorMinor,
  packageVersion,
  platformName,
  versionOverrideOf,
} from '../../common/version.js';

export { packageVersion } from '../../common/version.js';

export interface VersionInfo {
  readonly major: string;
  readonly minor: string;
  readonly gitVersion: string;
  readonly gitCommit: string;
  readonly gitTreeState: string;
  readonly buildDate: string;
  readonly nodeVersion: string;
  readonly compiler: string;
  readonly platform: string;
}

/** The full version record; `override` (from --version=vX.Y.Z) replaces the reported version. */
export function versionInfo(override?: string): VersionInfo {
  const gitVersion = override ?? packageVersion();
  return {
    ...majorMinor(gitVersion),
    gitVersion,
    ...buildStamp(),
    nodeVersion: process.version,
    compiler: 'tsc',
    platform: platformName(),
  };
}

/** The version override set with --version=vX.Y.Z, if any. */
export function versionOverride(parsed: ParsedFlags): string | undefined {
  const v = parsed.values.get('version');
  return versionOverrideOf(typeof v === 'string' ? v : undefined);
}

/** The version the agent reports (node status, user agent): the override or the package's. */
export function reportedVersion(parsed: ParsedFlags): string {
  return versionOverride(parsed) ?? packageVersion();
}

/**
 * What `--version` asks to print before exiting 0, or undefined when the agent should go on
 * (no --version, --version=false, or --version=vX.Y.Z which only sets the reported version).
 */
export function versionOutput(parsed: ParsedFlags): string | undefined {
  const v = parsed.values.get('version');
  if (v === 'true') return `nodeagent ${packageVersion()}\n`;
  if (v === 'raw') return `${JSON.stringify(versionInfo(), null, 2)}\n`;
  return undefined;
}
