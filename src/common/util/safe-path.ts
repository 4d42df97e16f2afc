// Paths built from identifiers (pod UIDs, names, container and volume names, record ids) under a
// directory the program owns, such as the agent's --root-dir. Every place that writes or deletes
// under such a directory builds its path here, so that no identifier (from a manifest, a URL, the
// API server or a state file) can lead a write or a recursive delete outside it:
// - each segment is one plain name: not empty, `.` or `..`, no `/` or `\`, no NUL or other control
//   character, no `%` (a percent-encoded `..` or `/` is refused rather than decoded), at most 255
//   bytes (NAME_MAX);
// - the joined path is checked to stay inside the root;
// - before a write or a delete, the real path (symbolic links resolved) of what already exists on
//   the way is checked to stay inside the real root: for a write the target itself when it exists,
//   for a delete its parent (removing a symbolic link removes the link, not what it points to).
// What a process with write access inside the root does between the check and the use is out of
// reach of any check; the root is the program's own directory.
import { lstat, mkdir, realpath, rm } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { UnsafePathError } from './errors.js';
import { errnoCode } from './errno.js';

const MAX_SEGMENT_BYTES = 255;
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;

/** Why `segment` cannot be one name in a path, or undefined when it can. */
export function pathSegmentProblem(segment: string): string | undefined {
  if (segment === '') return 'is empty';
  if (segment === '.' || segment === '..') return `is "${segment}"`;
  if (segment.includes('\0')) return 'contains a NUL byte';
  if (segment.includes('/') || segment.includes('\\'))
    return "contains a path separator ('/' or '\\')";
  if (segment.includes('%')) return "contains '%' (percent-encoded names are not accepted)";
  if (CONTROL.test(segment)) return 'contains a control character';
  if (Buffer.byteLength(segment, 'utf8') > MAX_SEGMENT_BYTES)
    return `is longer than ${MAX_SEGMENT_BYTES} bytes`;
  return undefined;
}

function rootOf(root: string): string {
  if (root === '' || root.includes('\0'))
    throw new UnsafePathError(`invalid root directory ${JSON.stringify(root)}`, { root });
  return resolve(root);
}

/** True when `path` is `root` itself or inside it (lexically, both absolute and normalised). */
function inside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

/** `root/segments...`, each segment one plain name; throws UnsafePathError otherwise. No I/O. */
export function joinUnder(root: string, ...segments: string[]): string {
  const base = rootOf(root);
  for (const s of segments) {
    const problem = pathSegmentProblem(s);
    if (problem !== undefined) {
      throw new UnsafePathError(
        `refusing path under ${base}: name ${JSON.stringify(s)} ${problem}`,
        { root: base },
      );
    }
  }
  const out = join(base, ...segments);
  if (!inside(base, out))
    throw new UnsafePathError(`refusing path ${out}: outside ${base}`, { root: base });
  return out;
}

/** Checks a path built elsewhere (e.g. read back from a state file) is inside `root`. No I/O. */
export function assertUnder(root: string, path: string): string {
  const base = rootOf(root);
  if (path.includes('\0') || !isAbsolute(path)) {
    throw new UnsafePathError(
      `refusing path ${JSON.stringify(path)}: not an absolute path under ${base}`,
      { root: base },
    );
  }
  const out = resolve(path);
  if (out !== path.replace(/\/+$/, '') || !inside(base, out)) {
    throw new UnsafePathError(
      `refusing path ${JSON.stringify(path)}: not a normalised path under ${base}`,
      { root: base },
    );
  }
  return out;
}

async function realOrUndefined(p: string): Promise<string | undefined> {
  try {
    return await realpath(p);
  } catch (err) {
    const code = errnoCode(err);
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw err;
  }
}

/**
 * The real paths of the roots seen, kept: a root is the program's own directory, resolved once
 * instead of at every write under it (a pod start writes under the root a dozen times). A path
 * found outside the kept one has the root resolved again before it is refused, so a root moved
 * while the program runs refuses nothing inside its new place.
 */
const realRoots = new Map<string, string>();
const MAX_REAL_ROOTS = 64;

async function realRootOf(base: string, fresh = false): Promise<string | undefined> {
  const known = fresh ? undefined : realRoots.get(base);
  if (known !== undefined) return known;
  const real = await realOrUndefined(base);
  if (realRoots.size >= MAX_REAL_ROOTS) realRoots.clear();
  if (real === undefined) realRoots.delete(base);
  else realRoots.set(base, real);
  return real;
}

/**
 * Undefined when `real` is inside the root; otherwise the root's real path, resolved again
 * before saying no (the one a refusal names).
 */
async function outsideRealRoot(
  base: string,
  realRoot: string,
  real: string,
): Promise<string | undefined> {
  if (inside(realRoot, real)) return undefined;
  const again = (await realRootOf(base, true)) ?? realRoot;
  return inside(again, real) ? undefined : again;
}

/**
 * Resolves symbolic links on the way from `root` to `path` (the deepest part that exists) and
 * throws UnsafePathError when that leads outside the real root.
 */
async function assertNoLinkEscape(base: string, path: string): Promise<void> {
  const realRoot = await realRootOf(base);
  if (realRoot === undefined) return; // nothing under a missing root can be a link yet
  let cur = path;
  for (;;) {
    const real = await realOrUndefined(cur);
    if (real !== undefined) {
      const outside = await outsideRealRoot(base, realRoot, real);
      if (outside !== undefined) {
        throw new UnsafePathError(
          `refusing path ${path}: ${cur} resolves to ${real}, outside ${outside} (a ` +
            `symbolic link leads out)`,
          { root: base },
        );
      }
      return;
    }
    // a link whose target does not exist yet: writing through it would create the target
    if ((await lstat(cur).catch(() => undefined))?.isSymbolicLink()) {
      throw new UnsafePathError(`refusing path ${path}: ${cur} is a dangling symbolic link`, {
        root: base,
      });
    }
    if (cur === base) return;
    cur = dirname(cur);
  }
}

/** joinUnder, then: nothing on the way, the target included when it exists, links out of root. */
export async function pathForWrite(root: string, ...segments: string[]): Promise<string> {
  const p = joinUnder(root, ...segments);
  await assertNoLinkEscape(rootOf(root), p);
  return p;
}

/** joinUnder, then: nothing on the way to the target's parent links out of root. */
export async function pathForRemoval(root: string, ...segments: string[]): Promise<string> {
  const p = joinUnder(root, ...segments);
  if (segments.length === 0)
    throw new UnsafePathError(`refusing to remove the root ${p} itself`, { root: rootOf(root) });
  await assertNoLinkEscape(rootOf(root), dirname(p));
  return p;
}

/** mkdir -p of `root/segments...` after the checks of pathForWrite. */
export async function mkdirUnder(
  root: string,
  segments: readonly string[],
  mode?: number,
): Promise<string> {
  const p = await pathForWrite(root, ...segments);
  await mkdir(p, { recursive: true, ...(mode !== undefined ? { mode } : {}) });
  return p;
}

/**
 * rm -rf of `root/segments...` after the checks of pathForRemoval (a link is removed, not
 * followed).
 */
export async function rmUnder(root: string, segments: readonly string[]): Promise<void> {
  const p = await pathForRemoval(root, ...segments);
  await rm(p, { recursive: true, force: true });
}

/** For a path built elsewhere: assertUnder, then the link checks of pathForWrite. */
export async function checkWritableUnder(root: string, path: string): Promise<string> {
  const p = assertUnder(root, path);
  await assertNoLinkEscape(rootOf(root), p);
  return p;
}
