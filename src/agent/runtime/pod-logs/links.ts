// podLogsDir: each container's log file also appears where the reference puts it,
// <podLogsDir>/<namespace>_<name>_<uid>/<container>/<restartCount>.log (BuildPodLogsDirectory,
// BuildContainerLogsDirectory), as a symbolic link to the file the runtime writes: the Docker
// engine's json-file log (as dockershim linked it) or the process:// log under --root-dir/pods.
// The pod's directory goes when the pod is removed, and at housekeeping the directories of pods
// the agent no longer knows go too (the reference's evictPodLogsDirectories); only names of the
// pod directory form are touched. Tools that read /var/log/pods (log shippers) find every
// container there.
import { randomBytes } from 'node:crypto';
import { readdir, rename, symlink, unlink } from 'node:fs/promises';
import type { Logger } from '../../../common/log/types.js';
import { userMessage } from '../../../common/util/errors.js';
import { joinUnder, mkdirUnder, pathForWrite, rmUnder } from '../../../common/util/safe-path.js';

export interface PodRef {
  namespace: string;
  name: string;
  uid: string;
}

/** The reference's pod log directory name. */
export function podLogsDirName(pod: PodRef): string {
  return `${pod.namespace}_${pod.name}_${pod.uid}`;
}

const UID = /[0-9a-f]{32}|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/.source;
/** <namespace>_<name>_<uid>: DNS names and a UID (a UUID or the 32-hex static pod hash). */
const POD_DIR = new RegExp(
  `^[a-z0-9]([-a-z0-9]*[a-z0-9])?_[a-z0-9]([-.a-z0-9]*[a-z0-9])?_(${UID})$`,
);

export class PodLogLinks {
  private warned = false;

  constructor(private readonly o: { dir: string; logger: Logger }) {}

  /**
   * Links <pod dir>/<container>/<attempt>.log to `target`; a failure is logged once, never thrown.
   */
  async link(
    pod: PodRef,
    container: string,
    attempt: number,
    target: string | undefined,
  ): Promise<void> {
    if (target === undefined || target === '') return;
    try {
      const dir = await mkdirUnder(this.o.dir, [podLogsDirName(pod), container], 0o755);
      await pathForWrite(this.o.dir, podLogsDirName(pod), container);
      const path = joinUnder(dir, `${attempt}.log`);
      const tmp = joinUnder(dir, `.${attempt}.log.${randomBytes(6).toString('hex')}.tmp`);
      await symlink(target, tmp);
      // rename replaces a link of an earlier agent in place and never follows it
      await rename(tmp, path).catch(async (err: unknown) => {
        await unlink(tmp).catch(() => undefined);
        throw err;
      });
    } catch (err) {
      if (this.warned) return;
      this.warned = true;
      this.o.logger.warn(
        { field: 'podLogsDir', dir: this.o.dir, err: userMessage(err) },
        `cannot link container logs under podLogsDir ${this.o.dir}: ${userMessage(err)}` +
          `; the logs stay where the runtime writes them (said once)`,
      );
    }
  }

  /** Removes the directories of pods for which `keep` is false (names of the pod form only). */
  async removeStale(keep: (uid: string) => boolean): Promise<void> {
    const names = await readdir(this.o.dir).catch(() => [] as string[]);
    for (const n of names) {
      const m = POD_DIR.exec(n);
      if (m?.[3] === undefined || keep(m[3])) continue;
      await rmUnder(this.o.dir, [n]).catch((err: unknown) =>
        this.o.logger.warn({ dir: n, err: userMessage(err) }, 'cannot remove a pod log directory'),
      );
    }
  }

  /** Removes the pod's directory (every directory of this UID). */
  async removePod(uid: string): Promise<void> {
    let names: string[];
    try {
      names = await readdir(this.o.dir);
    } catch {
      return;
    }
    for (const n of names.filter((x) => x.endsWith(`_${uid}`))) {
      await rmUnder(this.o.dir, [n]).catch((err: unknown) =>
        this.o.logger.warn({ dir: n, err: userMessage(err) }, 'cannot remove a pod log directory'),
      );
    }
  }
}
