// What both programs' `--version` needs: the package version (read from package.json, found
// upward from this module so it works from src/ and from dist/), the build stamp (commit, tree
// state, build date from dist/build-info.json, written by `npm run build`), the platform in Go's
// GOOS/GOARCH form, and the flag's value syntax as the reference's verflag reads it: `true`,
// `false`, `raw`, or `vX.Y.Z...` to set the reported version. Nothing here runs at import time.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildInfo as fixedBuildInfo } from './build-info.js';
import { parseBool } from './util/values/bool.js';
import { invalidValue } from './util/values/error.js';
import { recordOf } from './util/json-shape.js';

export interface BuildStamp {
  readonly gitCommit: string;
  readonly gitTreeState: string;
  readonly buildDate: string;
}

const UNSTAMPED: BuildStamp = {
  gitCommit: 'unknown',
  gitTreeState: 'unknown',
  buildDate: 'unknown',
};

function packageRoot(): { root: string; version: string } | undefined {
  // The single executable has no package.json beside it: its version was fixed in at build time.
  const fixed = fixedBuildInfo();
  if (fixed !== undefined) return { root: '', version: fixed.version };
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    try {
      const pkg = recordOf(JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')));
      const version = pkg['version'];
      if (pkg['name'] === 'nodeagent' && typeof version === 'string') return { root: dir, version };
    } catch {
      // not here: keep walking up
    }
    dir = dirname(dir);
  }
  return undefined;
}

/** The package version as `vX.Y.Z` (or `v0.0.0-unknown` when package.json cannot be found). */
export function packageVersion(): string {
  const p = packageRoot();
  return p === undefined ? 'v0.0.0-unknown' : `v${p.version}`;
}

/** The facts `npm run build` stamped (scripts/stamp-build.mjs), `unknown` where there are none. */
export function buildStamp(): BuildStamp {
  const fixed = fixedBuildInfo();
  if (fixed !== undefined)
    return {
      gitCommit: fixed.gitCommit,
      gitTreeState: fixed.gitTreeState,
      buildDate: fixed.buildDate,
    };
  const p = packageRoot();
  if (p === undefined) return UNSTAMPED;
  try {
    const b = recordOf(JSON.parse(readFileSync(join(p.root, 'dist', 'build-info.json'), 'utf8')));
    const str = (v: unknown): string => (typeof v === 'string' && v !== '' ? v : 'unknown');
    return {
      gitCommit: str(b['gitCommit']),
      gitTreeState: str(b['gitTreeState']),
      buildDate: str(b['buildDate']),
    };
  } catch {
    return UNSTAMPED;
  }
}

/** `linux/amd64`: the platform as the reference's version record names it. */
export function platformName(): string {
  return `${process.platform}/${process.arch === 'x64' ? 'amd64' : process.arch}`;
}

/** Major and minor of a `vX.Y...` version, `0` for what does not parse. */
export function majorMinor(version: string): { major: string; minor: string } {
  const m = /^v(\d+)\.(\d+)/.exec(version);
  return { major: m?.[1] ?? '0', minor: m?.[2] ?? '0' };
}

const SEMVER =
  /^v(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$/;
export const VERSION_ACCEPTED = 'true, false, raw, or a version vX.Y.Z[-pre][+build] to report';

/**
 * One `--version` value as the reference's verflag reads it: `raw`, a `v`-prefixed semantic
 * version (the version to report), else a boolean (`true`/`false`). Throws FlagError.
 */
export function parseVersionValue(raw: string, flag: string): string {
  if (raw === 'raw') return 'raw';
  if (raw.startsWith('v')) {
    if (!SEMVER.test(raw))
      throw invalidValue(
        raw,
        flag,
        `version string ${JSON.stringify(raw)} is not a valid semantic version`,
        VERSION_ACCEPTED,
      );
    return raw;
  }
  try {
    return parseBool(raw, flag) ? 'true' : 'false';
  } catch {
    throw invalidValue(
      raw,
      flag,
      `strconv.ParseBool: parsing ${JSON.stringify(raw)}: invalid syntax`,
      VERSION_ACCEPTED,
    );
  }
}

/** The version to report set by `--version=vX.Y.Z`, or undefined for true/false/raw/absent. */
export function versionOverrideOf(value: string | undefined): string | undefined {
  return value?.startsWith('v') === true ? value : undefined;
}
