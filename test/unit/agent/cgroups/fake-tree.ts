// A fake cgroup file system in a temp dir: v1 (one directory per controller, with the files the
// kernel shows at the root) or v2 (one unified tree with cgroup.controllers).
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface FakeTree {
  mount: string;
  read(...segments: string[]): Promise<string>;
  exists(...segments: string[]): boolean;
  cleanup(): Promise<void>;
}

export async function fakeCgroupTree(
  version: 'v1' | 'v2',
  controllers: readonly string[] = version === 'v1'
    ? ['cpu', 'cpuacct', 'cpuset', 'memory', 'pids', 'systemd']
    : ['cpuset', 'cpu', 'io', 'memory', 'pids'],
): Promise<FakeTree> {
  const mount = await mkdtemp(join(tmpdir(), `na-cgroup-${version}-`));
  if (version === 'v1') {
    for (const c of controllers) {
      await mkdir(join(mount, c));
      await writeFile(join(mount, c, 'cgroup.procs'), '');
    }
    if (controllers.includes('cpuset')) {
      await writeFile(join(mount, 'cpuset', 'cpuset.cpus'), '0-3\n');
      await writeFile(join(mount, 'cpuset', 'cpuset.mems'), '0\n');
    }
  } else {
    await writeFile(join(mount, 'cgroup.controllers'), `${controllers.join(' ')}\n`);
    await writeFile(join(mount, 'cgroup.procs'), '');
  }
  return {
    mount,
    read: async (...s) => (await readFile(join(mount, ...s), 'utf8')).trim(),
    exists: (...s) => existsSync(join(mount, ...s)),
    cleanup: () => rm(mount, { recursive: true, force: true }),
  };
}
