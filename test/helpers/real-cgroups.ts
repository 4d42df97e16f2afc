// A unique cgroup root on the host's real cgroup v1 tree for one test, made in every controller
// hierarchy and removed afterwards with everything below it (processes killed first), whatever
// the test left. Only where the host allows: root and a writable cgroup v1 mount (CI's hosts).
import { access, constants, mkdir, readdir, readFile, rmdir } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { detectCgroupVersion } from '../../src/agent/cli/host-checks.js';
import { V1_CONTROLLERS } from '../../src/agent/cgroups/cgroup-fs.js';
import { skipOutsideCi } from './skip-outside-ci.js';

export const CGROUP_MOUNT = '/sys/fs/cgroup';

/** undefined when the test may write the real v1 tree; otherwise why not (under CI=true: throws). */
export async function realCgroupV1SkipReason(): Promise<string | undefined> {
  if (process.getuid?.() !== 0)
    return skipOutsideCi('root', "writing the host's cgroup tree needs root");
  if ((await detectCgroupVersion(CGROUP_MOUNT)) !== 'v1')
    return skipOutsideCi('cgroup v1', `${CGROUP_MOUNT} is not a cgroup v1 mount`);
  const ok = await access(join(CGROUP_MOUNT, 'cpu'), constants.W_OK).then(
    () => true,
    () => false,
  );
  return ok
    ? undefined
    : skipOutsideCi('a writable cgroup v1 mount', `${CGROUP_MOUNT}/cpu is not writable`);
}

async function hierarchies(): Promise<string[]> {
  const out: string[] = [];
  for (const c of V1_CONTROLLERS)
    if (
      await access(join(CGROUP_MOUNT, c)).then(
        () => true,
        () => false,
      )
    )
      out.push(c);
  return out;
}

export interface TestCgroupRoot {
  /** `/nodeagent-test-<random>`: the --cgroup-root to give the agent. */
  name: string;
  dir(controller: string, ...segments: string[]): string;
  remove(): Promise<void>;
}

async function killAndRemove(dir: string): Promise<void> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => undefined);
  if (entries === undefined) return;
  for (const e of entries) if (e.isDirectory()) await killAndRemove(join(dir, e.name));
  for (let i = 0; i < 50; i += 1) {
    const pids = (await readFile(join(dir, 'cgroup.procs'), 'utf8').catch(() => ''))
      .split('\n')
      .filter((l) => /^\d+$/.test(l));
    for (const p of pids) {
      try {
        process.kill(Number(p), 'SIGKILL');
      } catch {
        // gone
      }
    }
    const done = await rmdir(dir).then(
      () => true,
      (err: NodeJS.ErrnoException) => err.code === 'ENOENT',
    );
    if (done) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`could not remove the test cgroup ${dir}`);
}

export async function makeTestCgroupRoot(): Promise<TestCgroupRoot> {
  const name = `/nodeagent-test-${randomBytes(4).toString('hex')}`;
  const hs = await hierarchies();
  for (const h of hs) await mkdir(join(CGROUP_MOUNT, h, name));
  return {
    name,
    dir: (controller, ...segments) => join(CGROUP_MOUNT, controller, name, ...segments),
    // every hierarchy, not only ours: the runtime makes its containers' cgroups in all of them
    remove: async () => {
      for (const h of await readdir(CGROUP_MOUNT)) await killAndRemove(join(CGROUP_MOUNT, h, name));
    },
  };
}

/** The cgroup path of a process in one v1 controller, from /proc/<pid>/cgroup. */
export async function processCgroup(pid: number, controller: string): Promise<string | undefined> {
  const text = await readFile(`/proc/${pid}/cgroup`, 'utf8').catch(() => '');
  for (const line of text.split('\n')) {
    const [, ctls, path] = line.split(':');
    if (ctls !== undefined && ctls.split(',').includes(controller)) return path;
  }
  return undefined;
}
