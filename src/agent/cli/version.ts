// `--version`: `nodeagent vX.Y.Z`; `--version=raw`: the full version record; `--version=vX.Y.Z`:
// report that version instead of the package's. The package version is read from package.json
// (found upward from this module, so it works from src/ and from dist/); the commit, tree state
// and build date from dist/build-info.json, stamped by `npm run build`. Only when asked for:
// nothing here runs at import time.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ParsedFlags } from './flag-spec.js';
import { buildInfo as fixedBuildInfo } from '../build-info.js';

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

function packageRoot(): { root: string; version: string } | undefined {
  // The single executable has no package.json beside it: its version was fixed in at build time.
  const fixed = fixedBuildInfo();
  if (fixed !== undefined) return { root: '', version: fixed.version };
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
        name?: unknown;
        version?: unknown;
      };
      if (pkg.name === 'nodeagent' && typeof pkg.version === 'string')
        return { root: dir, version: pkg.version };
    } catch {
      // not here: keep walking up
    }
    dir = dirname(dir);
  }
  return undefined;
}

interface BuildInfo {
  gitCommit: string;
  gitTreeState: string;
  buildDate: string;
}

const UNSTAMPED: BuildInfo = {
  gitCommit: 'unknown',
  gitTreeState: 'unknown',
  buildDate: 'unknown',
};

/** The facts `npm run build` stamped into dist/build-info.json (scripts/stamp-build.mjs). */
function buildInfo(root: string): BuildInfo {
  const fixed = fixedBuildInfo();
  if (fixed !== undefined)
    return {
      gitCommit: fixed.gitCommit,
      gitTreeState: fixed.gitTreeState,
      buildDate: fixed.buildDate,
    };
  try {
    const b = JSON.parse(readFileSync(join(root, 'dist', 'build-info.json'), 'utf8')) as Partial<
      Record<keyof BuildInfo, unknown>
    >;
    const str = (v: unknown): string => (typeof v === 'string' && v !== '' ? v : 'unknown');
    return {
      gitCommit: str(b.gitCommit),
      gitTreeState: str(b.gitTreeState),
      buildDate: str(b.buildDate),
    };
  } catch {
    return UNSTAMPED;
  }
}

/** The package version as `vX.Y.Z` (or `v0.0.0-unknown` when package.json cannot be found). */
export function packageVersion(): string {
  const p = packageRoot();
  return p === undefined ? 'v0.0.0-unknown' : `v${p.version}`;
}

/** The full version record; `override` (from --version=vX.Y.Z) replaces the reported version. */
export function versionInfo(override?: string): VersionInfo {
  const p = packageRoot();
  const gitVersion = override ?? (p === undefined ? 'v0.0.0-unknown' : `v${p.version}`);
  const m = /^v(\d+)\.(\d+)/.exec(gitVersion);
  const b = p === undefined ? UNSTAMPED : buildInfo(p.root);
  return {
    major: m?.[1] ?? '0',
    minor: m?.[2] ?? '0',
    gitVersion,
    gitCommit: b.gitCommit,
    gitTreeState: b.gitTreeState,
    buildDate: b.buildDate,
    nodeVersion: process.version,
    compiler: 'tsc',
    platform: `${process.platform}/${process.arch === 'x64' ? 'amd64' : process.arch}`,
  };
}

/** The version override set with --version=vX.Y.Z, if any. */
export function versionOverride(parsed: ParsedFlags): string | undefined {
  const v = parsed.values.get('version');
  return typeof v === 'string' && v.startsWith('v') ? v : undefined;
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
