// `--version`: `nodeagent vX.Y.Z`; `--version=raw`: the full version record; `--version=vX.Y.Z`:
// report that version instead of the package's. The package version is read from package.json
// at runtime (found upward from this module, so it works from src/ and from dist/), and only
// when asked for: nothing here runs at import time.
import { readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ParsedFlags } from './flag-spec.js';

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
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: unknown; version?: unknown };
      if (pkg.name === 'nodeagent' && typeof pkg.version === 'string') return { root: dir, version: pkg.version };
    } catch {
      // not here: keep walking up
    }
    dir = dirname(dir);
  }
  return undefined;
}

function gitCommit(root: string): string {
  try {
    const head = readFileSync(join(root, '.git', 'HEAD'), 'utf8').trim();
    if (!head.startsWith('ref: ')) return head;
    const ref = head.slice(5);
    try {
      return readFileSync(join(root, '.git', ref), 'utf8').trim();
    } catch {
      const packed = readFileSync(join(root, '.git', 'packed-refs'), 'utf8');
      return packed.split('\n').find((l) => l.endsWith(` ${ref}`))?.split(' ')[0] ?? 'unknown';
    }
  } catch {
    return 'unknown';
  }
}

function buildDate(): string {
  try {
    return `${statSync(fileURLToPath(import.meta.url)).mtime.toISOString().slice(0, 19)}Z`;
  } catch {
    return '1970-01-01T00:00:00Z';
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
  return {
    major: m?.[1] ?? '0',
    minor: m?.[2] ?? '0',
    gitVersion,
    gitCommit: p === undefined ? 'unknown' : gitCommit(p.root),
    gitTreeState: 'unknown',
    buildDate: buildDate(),
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
