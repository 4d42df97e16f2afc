// Creates, updates and removes cgroups in the cgroup file system, v1 (one hierarchy per
// controller under <mount>/<controller>) and v2 (one unified hierarchy under <mount>), as the
// reference's cgroup manager does through runc's fs drivers. The mount point is injected so unit
// tests work on a fake tree. Control files are kernel interfaces: they are written in place (an
// atomic rename cannot replace them), never created, except on a fake tree.
import { access, mkdir, readdir, readFile, realpath, rm, rmdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { errnoCode } from '../../common/util/errno.js';
import { cpuSharesToWeight, type ResourceConfig } from './resources.js';

export type CgroupVersionKind = 'v1' | 'v2';

/** The v1 controllers whose hierarchies hold our cgroups (the reference's existence check). */
export const V1_CONTROLLERS = [
  'cpu',
  'cpuacct',
  'cpuset',
  'memory',
  'pids',
  'hugetlb',
  'systemd',
] as const;
/** The v2 controllers enabled for our subtrees. */
export const V2_CONTROLLERS = ['cpu', 'cpuset', 'memory', 'pids', 'hugetlb'] as const;

export interface CgroupFsOptions {
  /** Where cgroups are mounted: /sys/fs/cgroup. */
  mount: string;
  version: CgroupVersionKind;
}

async function exists(p: string): Promise<boolean> {
  return access(p).then(
    () => true,
    () => false,
  );
}

/**
 * A cgroup path's segments; `.`, `..` and NUL never reach the file system (nothing outside the
 * mount).
 */
function pathOf(dirPath: string): string[] {
  const segs = dirPath.split('/').filter((s) => s !== '');
  const bad = segs.find((s) => s === '.' || s === '..' || s.includes('\0'));
  if (bad !== undefined)
    throw new Error(
      `invalid cgroup path ${JSON.stringify(dirPath)}: the segment ` +
        `${JSON.stringify(bad)} is not allowed`,
    );
  return segs;
}

export class CgroupFs {
  readonly version: CgroupVersionKind;
  readonly mount: string;
  private controllers: string[] | undefined;
  private v2Available: string[] | undefined;

  constructor(opts: CgroupFsOptions) {
    this.mount = opts.mount;
    this.version = opts.version;
  }

  /** The v1 controller hierarchies mounted on this host (cached), or [''] for v2. */
  async hierarchies(): Promise<string[]> {
    if (this.version === 'v2') return [''];
    if (this.controllers === undefined) {
      const found: string[] = [];
      for (const c of V1_CONTROLLERS) if (await exists(join(this.mount, c))) found.push(c);
      this.controllers = found;
    }
    return this.controllers;
  }

  /** The directories of a cgroup path (`/a/b`), one per hierarchy. */
  async dirs(path: string): Promise<string[]> {
    return (await this.hierarchies()).map((h) => join(this.mount, h, ...pathOf(path)));
  }

  /** The directories of the cgroup that do not exist (the reference's Validate). */
  async missing(path: string): Promise<string[]> {
    const out: string[] = [];
    for (const d of await this.dirs(path)) if (!(await exists(d))) out.push(d);
    return out;
  }

  async exists(path: string): Promise<boolean> {
    return (await this.missing(path)).length === 0;
  }

  /** Creates the cgroup (and its parents) in every hierarchy, then sets its limits. */
  async create(path: string, rc: ResourceConfig): Promise<void> {
    if (this.version === 'v2') await this.enableV2Controllers(path);
    for (const h of await this.hierarchies()) {
      const segs = pathOf(path);
      for (let i = 1; i <= segs.length; i += 1) {
        const d = join(this.mount, h, ...segs.slice(0, i));
        if (!(await exists(d))) await mkdir(d);
        // an existing ancestor made by someone else may be empty too (runc's cpusetEnsureParent)
        if (h === 'cpuset')
          await this.inheritCpuset(d, join(this.mount, h, ...segs.slice(0, i - 1)));
      }
    }
    await this.update(path, rc);
  }

  /** A new v1 cpuset cgroup takes no task until its cpus and mems are set: copy the parent's. */
  private async inheritCpuset(dir: string, parent: string): Promise<void> {
    for (const f of ['cpuset.cpus', 'cpuset.mems']) {
      const mine = await readFile(join(dir, f), 'utf8').catch(() => undefined);
      if (mine !== undefined && mine.trim() !== '') continue;
      const v = await readFile(join(parent, f), 'utf8').catch(() => undefined);
      if (v !== undefined && v.trim() !== '') await writeFile(join(dir, f), v.trim());
    }
  }

  /** v2: the controllers the host offers (cgroup.controllers at the mount), read once. */
  private async v2Controllers(): Promise<string[]> {
    this.v2Available ??= (
      await readFile(join(this.mount, 'cgroup.controllers'), 'utf8').catch(() => '')
    )
      .split(/\s+/)
      .filter((c) => c !== '');
    return this.v2Available;
  }

  /** v2: enables our controllers in every ancestor's cgroup.subtree_control. */
  private async enableV2Controllers(path: string): Promise<void> {
    const segs = pathOf(path);
    const available = await this.v2Controllers();
    const want = V2_CONTROLLERS.filter((c) => available.includes(c))
      .map((c) => `+${c}`)
      .join(' ');
    if (want === '') return;
    for (let i = 0; i < segs.length; i += 1) {
      const d = join(this.mount, ...segs.slice(0, i));
      if (i > 0 && !(await exists(d))) await mkdir(d);
      await writeFile(join(d, 'cgroup.subtree_control'), want);
    }
  }

  /** Writes the limits of `rc` that are set; leaves the others as they are. */
  async update(path: string, rc: ResourceConfig): Promise<void> {
    const base = pathOf(path);
    const v2 = this.version === 'v2' ? await this.v2Controllers() : [];
    // a controller the host lacks is skipped (said at start by setup.ts), not a failed pod start
    const write = async (controller: string, file: string, value: string): Promise<void> => {
      if (this.version === 'v2') {
        if (!v2.includes(controller)) return;
        await writeFile(join(this.mount, ...base, file), value);
        return;
      }
      if (!(await exists(join(this.mount, controller)))) return;
      await writeFile(join(this.mount, controller, ...base, file), value);
    };
    if (this.version === 'v1') {
      if (rc.cpuShares !== undefined) await write('cpu', 'cpu.shares', String(rc.cpuShares));
      if (rc.cpuPeriod !== undefined) await write('cpu', 'cpu.cfs_period_us', String(rc.cpuPeriod));
      if (rc.cpuQuota !== undefined) await write('cpu', 'cpu.cfs_quota_us', String(rc.cpuQuota));
      if (rc.memory !== undefined)
        await write('memory', 'memory.limit_in_bytes', rc.memory > 0 ? String(rc.memory) : '-1');
    } else {
      if (rc.cpuShares !== undefined)
        await write('cpu', 'cpu.weight', String(cpuSharesToWeight(rc.cpuShares)));
      if (rc.cpuQuota !== undefined || rc.cpuPeriod !== undefined) {
        const quota = rc.cpuQuota === undefined || rc.cpuQuota <= 0 ? 'max' : String(rc.cpuQuota);
        await write('cpu', 'cpu.max', `${quota} ${rc.cpuPeriod ?? 100_000}`);
      }
      if (rc.memory !== undefined)
        await write('memory', 'memory.max', rc.memory > 0 ? String(rc.memory) : 'max');
    }
    if (rc.pidsLimit !== undefined)
      await write('pids', 'pids.max', rc.pidsLimit > 0 ? String(rc.pidsLimit) : 'max');
  }

  /** Moves a process (all its threads) into the cgroup in every hierarchy. */
  async addProcess(path: string, pid: number): Promise<void> {
    for (const d of await this.dirs(path)) await writeFile(join(d, 'cgroup.procs'), String(pid));
  }

  /** The processes in the cgroup and the cgroups below it. */
  async pids(path: string): Promise<number[]> {
    const seen = new Set<number>();
    const walk = async (d: string): Promise<void> => {
      const text = await readFile(join(d, 'cgroup.procs'), 'utf8').catch(() => '');
      for (const l of text.split('\n')) if (/^\d+$/.test(l.trim())) seen.add(Number(l.trim()));
      const entries = await readdir(d, { withFileTypes: true }).catch(() => []);
      for (const e of entries) if (e.isDirectory()) await walk(join(d, e.name));
    };
    // the container cgroups the runtime made below the pod's hold the processes
    for (const d of await this.dirs(path)) await walk(d);
    return [...seen];
  }

  /** The child cgroups' directory names (from the first hierarchy). */
  async children(path: string): Promise<string[]> {
    const [first] = await this.dirs(path);
    if (first === undefined) return [];
    const entries = await readdir(first, { withFileTypes: true }).catch(() => []);
    return entries.filter((e) => e.isDirectory()).map((e) => e.name);
  }

  /**
   * Every mounted v1 hierarchy (blkio, devices, freezer, the hybrid `unified` too): the runtime
   * makes a container's cgroup in all of them under the pod's, so removal covers all of them, as
   * runc's cgroupfs manager does. Symbolic links (cpu -> cpu,cpuacct) count once.
   */
  private async allDirs(path: string): Promise<string[]> {
    if (this.version === 'v2') return this.dirs(path);
    const entries = await readdir(this.mount, { withFileTypes: true }).catch(() => []);
    const seen = new Set<string>();
    const out: string[] = [];
    for (const e of entries) {
      if (!e.isDirectory() && !e.isSymbolicLink()) continue;
      const real = await realpath(join(this.mount, e.name)).catch(() => undefined);
      if (real === undefined || seen.has(real)) continue;
      seen.add(real);
      out.push(join(real, ...pathOf(path)));
    }
    return out;
  }

  /** Removes the cgroup from every hierarchy (children first); a missing one is fine. */
  async destroy(path: string): Promise<void> {
    for (const d of await this.allDirs(path)) await removeTree(d);
  }
}

/**
 * rmdir of a cgroup directory and its child cgroups, deepest first (cgroupfs has no recursive
 * rmdir).
 */
async function removeTree(dir: string): Promise<void> {
  const entries = await readdir(dir, { withFileTypes: true }).catch((err: unknown) => {
    if (errnoCode(err) === 'ENOENT') return undefined;
    throw err;
  });
  if (entries === undefined) return;
  for (const e of entries) if (e.isDirectory()) await removeTree(join(dir, e.name));
  await rmdir(dir).catch(async (err: unknown) => {
    if (errnoCode(err) === 'ENOENT') return;
    // a fake tree holds plain files where the kernel shows control files
    if (errnoCode(err) === 'ENOTEMPTY' && entries.every((e) => e.isFile())) {
      await rm(dir, { recursive: true, force: true });
      return;
    }
    throw err;
  });
}
