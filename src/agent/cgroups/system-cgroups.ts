// --system-cgroups: the reference's ensureSystemCgroups moves every process of the root cgroup
// that is not a kernel thread (and not pid 1) into the system cgroup, retrying a few rounds as
// processes fork meanwhile.
import { readFile, readlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { CgroupFs } from './cgroup-fs.js';

export interface ProcessProbe {
  /** The pids in the root cgroup. */
  rootPids(): Promise<number[]>;
  /** Kernel threads have no executable (/proc/<pid>/exe does not resolve). */
  isKernelPid(pid: number): Promise<boolean>;
}

export function procProbe(mount: string, version: 'v1' | 'v2', proc = '/proc'): ProcessProbe {
  return {
    rootPids: async () => {
      const file =
        version === 'v2' ? join(mount, 'cgroup.procs') : join(mount, 'cpu', 'cgroup.procs');
      const text = await readFile(file, 'utf8').catch(() => '');
      return text
        .split('\n')
        .filter((l) => /^\d+$/.test(l.trim()))
        .map(Number);
    },
    isKernelPid: async (pid) =>
      readlink(join(proc, String(pid), 'exe')).then(
        () => false,
        () => true,
      ),
  };
}

export interface MoveOptions {
  fs: CgroupFs;
  to: string;
  /** The cgroup as given, for the message. */
  container: string;
  probe?: ProcessProbe;
}

export async function moveHostProcesses(o: MoveOptions): Promise<void> {
  const probe = o.probe ?? procProbe(o.fs.mount, o.fs.version);
  let finalErr: Error | undefined;
  for (let i = 0; i <= 10; i += 1) {
    const pids: number[] = [];
    for (const pid of await probe.rootPids())
      if (pid !== 1 && !(await probe.isKernelPid(pid))) pids.push(pid);
    if (pids.length === 0) return;
    finalErr = undefined;
    for (const pid of pids) {
      try {
        await o.fs.addProcess(o.to, pid);
      } catch (err) {
        finalErr = new Error(
          `failed to move PID ${pid} into the system container ` +
            `${JSON.stringify(o.container)}: ` +
            (err instanceof Error ? err.message : String(err)),
        );
      }
    }
  }
  if (finalErr !== undefined) throw finalErr;
}
