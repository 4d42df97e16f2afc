// A fake sysfs tree in a temp dir: NUMA nodes with CPUs and memory, sockets, cores and threads,
// as /sys/devices/system/{cpu,node} lay them out, for the CPU, memory and topology managers.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface FakeCpu {
  id: number;
  socket: number;
  core: number;
  numa: number;
}

export interface FakeSysfsLayout {
  cpus: FakeCpu[];
  /** bytes of memory per NUMA node id; an empty object makes a host without node<N> dirs */
  memory: Record<number, number>;
  /** hugepage size in kB → pages, per node */
  hugepages?: Record<number, Record<number, number>>;
  /** one row per node, in node order */
  distances?: number[][];
}

/** `nodes` NUMA nodes (one socket each) of `coresPerNode` cores with `threads` threads; CPUs numbered node by node. */
export function gridLayout(
  nodes: number,
  coresPerNode: number,
  threads: number,
  memPerNode: number,
): FakeSysfsLayout {
  const cpus: FakeCpu[] = [];
  let id = 0;
  for (let n = 0; n < nodes; n++)
    for (let c = 0; c < coresPerNode; c++)
      for (let t = 0; t < threads; t++) cpus.push({ id: id++, socket: n, core: c, numa: n });
  return {
    cpus,
    memory: Object.fromEntries(Array.from({ length: nodes }, (_, n) => [n, memPerNode])),
  };
}

function ranges(ids: number[]): string {
  return ids.sort((a, b) => a - b).join(',');
}

export async function fakeSysfs(
  layout: FakeSysfsLayout,
): Promise<{ root: string; cleanup: () => Promise<void> }> {
  const root = await mkdtemp(join(tmpdir(), 'na-sysfs-'));
  const cpuDir = join(root, 'devices/system/cpu');
  await mkdir(cpuDir, { recursive: true });
  await writeFile(join(cpuDir, 'online'), `${ranges(layout.cpus.map((c) => c.id))}\n`);
  for (const c of layout.cpus) {
    const topo = join(cpuDir, `cpu${c.id}/topology`);
    await mkdir(topo, { recursive: true });
    await writeFile(join(topo, 'core_id'), `${c.core}\n`);
    await writeFile(join(topo, 'physical_package_id'), `${c.socket}\n`);
  }
  const nodeIds = Object.keys(layout.memory).map(Number);
  for (const [i, n] of nodeIds.entries()) {
    const dir = join(root, `devices/system/node/node${n}`);
    await mkdir(dir, { recursive: true });
    await writeFile(
      join(dir, 'cpulist'),
      `${ranges(layout.cpus.filter((c) => c.numa === n).map((c) => c.id))}\n`,
    );
    await writeFile(
      join(dir, 'meminfo'),
      `Node ${n} MemTotal:       ${Math.floor((layout.memory[n] ?? 0) / 1024)} kB\nNode ${n} MemFree:        1024 kB\n`,
    );
    const row = layout.distances?.[i] ?? nodeIds.map((m) => (m === n ? 10 : 20));
    await writeFile(join(dir, 'distance'), `${row.join(' ')}\n`);
    for (const [kb, pages] of Object.entries(layout.hugepages?.[n] ?? {})) {
      await mkdir(join(dir, `hugepages/hugepages-${kb}kB`), { recursive: true });
      await writeFile(join(dir, `hugepages/hugepages-${kb}kB/nr_hugepages`), `${pages}\n`);
    }
  }
  return { root, cleanup: () => rm(root, { recursive: true, force: true }) };
}
