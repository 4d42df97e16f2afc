// The pod directories (<root-dir>/pods/<uid>) of pods that are gone: no source asks for them, no
// worker knows them and the runtime has no container of theirs, as an agent stopped without
// tearing its pods down (killed, crashed, a reboot, containers removed by hand) leaves them. At
// each housekeeping pass, as the reference's volume reconstruction and cleanupOrphanedPodDirs do
// between them: the FlexVolume volumes found on disk (a `.<volume>.mounted` marker next to the
// volume) are unmounted by their driver, the tmpfs the agent mounts for memory-backed volumes
// (volumes/<name>, or volumes/<plugin>/<name> as the reference lays them out) are unmounted, and
// once nothing under the pod directory is mounted it is removed without crossing into another
// file system. A mount the agent does not make (another type, or anywhere else in the directory)
// leaves the whole directory untouched. Nothing outside <root-dir>/pods is touched: the paths
// are canonical (mountinfo's and the real pods directory's), a symbolic link is never followed,
// and a name that is not one plain path segment is left alone. Each pod that cannot be cleaned is
// logged once with the path and the reason, and is tried again at the next pass.
import type { Dirent } from 'node:fs';
import { lstat, readdir, realpath, rmdir, unlink } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import type { Logger } from '../../common/log/types.js';
import { userMessage } from '../../common/util/errors.js';
import { errnoCode } from '../../common/util/errno.js';
import { pathSegmentProblem } from '../../common/util/safe-path.js';
import type { MountEntry } from './mounts.js';

/** The mount table and the unmount this clean-up needs. */
export interface OrphanMounts {
  /** Every mount at or under `dir` with its file system type, deepest first. */
  entriesUnder(dir: string): Promise<MountEntry[]>;
  unmount(dir: string): Promise<void>;
}

/** The FlexVolume drivers' unmount of a volume directory whose pod spec is gone. */
export interface OrphanFlex {
  unmountOrphan(volumeDir: string): Promise<void>;
}

export interface OrphanedPodDirsOptions {
  rootDir: string;
  mounts: OrphanMounts;
  flex?: OrphanFlex;
  logger: Logger;
}

/** Why an orphaned pod directory was left in place this pass. */
class LeftInPlace extends Error {}

function isInside(dir: string, path: string): boolean {
  const rel = relative(dir, path);
  return rel !== '' && rel !== '..' && !rel.startsWith(`..${sep}`) && !rel.startsWith(sep);
}

/** A directory itself (lstat: not a symbolic link to one), or undefined when absent. */
async function realDirectory(path: string): Promise<boolean | undefined> {
  try {
    return (await lstat(path)).isDirectory();
  } catch (err) {
    if (errnoCode(err) === 'ENOENT') return undefined;
    throw err;
  }
}

async function entriesOf(dir: string): Promise<Dirent[]> {
  try {
    return await readdir(dir, { withFileTypes: true });
  } catch (err) {
    if (errnoCode(err) === 'ENOENT') return [];
    throw err;
  }
}

/**
 * rm -r of `path` that never follows a link and refuses to enter another file system; what is
 * already gone (the process:// runtime removes a pod's directory itself) is not an error.
 */
async function removeOneFilesystem(path: string, dev: number): Promise<void> {
  const st = await lstat(path).catch((err: unknown) => {
    if (errnoCode(err) === 'ENOENT') return undefined;
    throw err;
  });
  if (st === undefined) return;
  if (!st.isDirectory()) {
    await unlink(path);
    return;
  }
  if (st.dev !== dev) throw new LeftInPlace(`${path} is on another file system (a mount)`);
  for (const name of await readdir(path)) await removeOneFilesystem(join(path, name), dev);
  await rmdir(path);
}

/**
 * The tmpfs mounts of an orphaned pod the agent made and may unmount (volumes/<name> or
 * volumes/<plugin>/<name>); those of its FlexVolume volumes are their drivers'. Throws
 * LeftInPlace naming the first other mount.
 */
function agentMounts(
  podDir: string,
  entries: readonly MountEntry[],
  flexDirs: readonly string[],
): string[] {
  const out: string[] = [];
  for (const m of entries) {
    if (flexDirs.some((d) => m.mountPoint === d || isInside(d, m.mountPoint))) continue;
    const parts = relative(podDir, m.mountPoint).split(sep);
    const volume = parts[0] === 'volumes' && (parts.length === 2 || parts.length === 3);
    if (!volume || m.fsType !== 'tmpfs')
      throw new LeftInPlace(
        `${m.mountPoint} is mounted (${m.fsType}) and is not a volume mount this agent makes`,
      );
    out.push(m.mountPoint);
  }
  return out;
}

export class OrphanedPodDirs {
  /** Pods (and the pods directory itself, as '') whose failure was logged. */
  private readonly said = new Set<string>();

  constructor(private readonly o: OrphanedPodDirsOptions) {}

  /** One pass: every pod directory whose UID `keep` refuses is cleaned, or logged once. */
  async cleanup(keep: (uid: string) => boolean): Promise<void> {
    const pods = await this.podsDir();
    if (pods === undefined) return;
    const present = new Set<string>();
    for (const e of await entriesOf(pods)) {
      present.add(e.name);
      if (keep(e.name)) continue;
      const podDir = join(pods, e.name);
      try {
        const unmounted = await this.cleanPod(podDir, e, () => keep(e.name));
        if (unmounted === undefined) continue;
        this.said.delete(e.name);
        this.o.logger.info(
          { podUID: e.name, path: podDir, unmounted },
          `orphaned pod "${e.name}" found; its volumes unmounted and its directory removed`,
        );
      } catch (err) {
        // removed meanwhile by someone else (the process:// runtime's sandbox removal)
        if (errnoCode(err) === 'ENOENT' && (await realDirectory(podDir)) === undefined) continue;
        this.sayOnce(e.name, podDir, err);
      }
    }
    for (const uid of this.said) if (uid !== '' && !present.has(uid)) this.said.delete(uid);
  }

  /** The real <root-dir>/pods, or undefined when there is none (or it leads out of the root). */
  private async podsDir(): Promise<string | undefined> {
    let root: string;
    let pods: string;
    try {
      root = await realpath(this.o.rootDir);
      pods = await realpath(join(root, 'pods'));
    } catch (err) {
      if (errnoCode(err) === 'ENOENT') return undefined;
      throw err;
    }
    if (isInside(root, pods)) return pods;
    this.sayOnce('', pods, new LeftInPlace(`${join(root, 'pods')} leads out of ${root}`));
    return undefined;
  }

  private sayOnce(uid: string, path: string, err: unknown): void {
    if (this.said.has(uid)) return;
    this.said.add(uid);
    const what = uid === '' ? 'pods directory' : `pod "${uid}"`;
    this.o.logger.warn(
      { podUID: uid, path },
      `orphaned ${what} found, but it was left in place (tried again at every housekeeping ` +
        `pass): ${userMessage(err)}`,
    );
  }

  /**
   * Unmounts the pod's volumes and removes its directory; answers the volumes it unmounted, or
   * undefined when the pod came back meanwhile. Throws (LeftInPlace or an I/O error) otherwise.
   */
  private async cleanPod(
    podDir: string,
    e: Dirent,
    wanted: () => boolean,
  ): Promise<string[] | undefined> {
    const problem = pathSegmentProblem(e.name);
    if (problem !== undefined) throw new LeftInPlace(`the name ${problem}`);
    if (!e.isDirectory()) throw new LeftInPlace('not a directory (a symbolic link or a file)');
    const flex = await flexVolumeDirs(podDir);
    const own = agentMounts(podDir, await this.o.mounts.entriesUnder(podDir), flex);
    for (const dir of flex) await this.unmountFlex(dir);
    for (const m of own) await this.unmountOwn(podDir, m);
    const left = await this.o.mounts.entriesUnder(podDir);
    if (left[0] !== undefined)
      throw new LeftInPlace(`${left[0].mountPoint} is still mounted after its unmount`);
    if (wanted()) return undefined;
    await removeOneFilesystem(podDir, (await lstat(podDir)).dev);
    return [...flex, ...own];
  }

  /** A tmpfs of the agent's: unmounted only where no link leads elsewhere on the way. */
  private async unmountOwn(podDir: string, mountPoint: string): Promise<void> {
    const real = await realpath(mountPoint);
    if (real !== mountPoint || !isInside(podDir, real))
      throw new LeftInPlace(`${mountPoint} resolves to ${real}: a symbolic link on the way`);
    try {
      await this.o.mounts.unmount(mountPoint);
    } catch (err) {
      throw new Error(`failed to unmount volume at path ${mountPoint}: ${userMessage(err)}`, {
        cause: err,
      });
    }
  }

  private async unmountFlex(volumeDir: string): Promise<void> {
    if (this.o.flex === undefined)
      throw new LeftInPlace(`FlexVolume volume ${volumeDir}: no FlexVolume plugins to unmount it`);
    try {
      await this.o.flex.unmountOrphan(volumeDir);
    } catch (err) {
      throw new Error(`failed to unmount volume at path ${volumeDir}: ${userMessage(err)}`, {
        cause: err,
      });
    }
  }
}

/**
 * The FlexVolume volumes on disk: each volumes/<driver>/<volume> directory with a
 * `.<volume>.mounted` marker next to it (a marker without its volume directory is left to the
 * removal). Throws LeftInPlace when the volume is not a directory itself.
 */
async function flexVolumeDirs(podDir: string): Promise<string[]> {
  const volumes = join(podDir, 'volumes');
  if ((await realDirectory(volumes)) !== true) return [];
  const out: string[] = [];
  for (const d of await entriesOf(volumes)) {
    if (!d.isDirectory()) continue;
    const driverDir = join(volumes, d.name);
    for (const marker of await entriesOf(driverDir)) {
      const name = /^\.(.+)\.mounted$/.exec(marker.name)?.[1];
      if (name === undefined || !marker.isDirectory()) continue;
      const volumeDir = join(driverDir, name);
      const isDir = await realDirectory(volumeDir);
      if (isDir === false)
        throw new LeftInPlace(`FlexVolume volume ${volumeDir} is not a directory`);
      if (isDir === true) out.push(volumeDir);
    }
  }
  return out;
}
