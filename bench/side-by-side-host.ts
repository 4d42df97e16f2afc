// What the side-by-side benchmark sets up on the host and takes down again, even after a failure:
// a containerd of its own (test/helpers/containerd.ts: own root, state, socket, CNI bridge and /24)
// with the reference's pause and busybox images imported, a namespace of its own on the control
// plane, and the kernel tunables the kubelet changes (vm.overcommit_memory, kernel.panic,
// kernel.panic_on_oops, ...) and the bridge plugin's net.ipv4.ip_forward, saved before and put back
// after every node program's run and at the end, as run.sh's node-stop does.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, readlink, rm, unlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { existsSync } from 'node:fs';
import { repoRoot } from '../test/helpers/apiserver.js';
import { containerdSkipReason, startContainerd } from '../test/helpers/containerd.js';
import { listOf, recordOf } from '../src/common/util/json-shape.js';
import { expectStatus, type Kube } from './side-by-side-kube.js';
import { POD_IMAGE } from './side-by-side-pods.js';
import { ANCHORS, KUBELET_BIN, type NodeHost } from './side-by-side-node.js';

const run = promisify(execFile);
const SYSCTLS = [
  'vm.overcommit_memory',
  'vm.panic_on_oom',
  'kernel.panic',
  'kernel.panic_on_oops',
  'kernel.keys.root_maxkeys',
  'kernel.keys.root_maxbytes',
  'net.ipv4.ip_forward',
];
export const PAUSE_IMAGE = 'registry.k8s.io/pause:3.10';

export interface Host extends NodeHost {
  readonly ns: string;
  /** The tunables as they were before the benchmark. */
  restoreSysctls(): Promise<void>;
  stop(): Promise<void>;
}

async function saveSysctls(): Promise<Map<string, string>> {
  const saved = new Map<string, string>();
  for (const k of SYSCTLS) {
    const v = await run('sysctl', ['-n', k]).then(
      (r) => r.stdout.trim(),
      () => undefined,
    );
    if (v !== undefined) saved.set(k, v);
  }
  return saved;
}

async function restoreSysctls(saved: Map<string, string>): Promise<void> {
  for (const [k, v] of saved) {
    const now = await run('sysctl', ['-n', k]).then((r) => r.stdout.trim(), String);
    if (now !== v) await run('sysctl', ['-q', '-w', `${k}=${v}`]).catch(() => undefined);
  }
}

async function createNamespace(kube: Kube, ns: string): Promise<void> {
  const body = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } };
  expectStatus(await kube.call('POST', '/api/v1/namespaces', body), `create ${ns}`, 201);
  // with the default admission, a pod's create needs the namespace's default ServiceAccount
  for (let i = 0; i < 120; i++) {
    const sa = await kube.call('GET', `/api/v1/namespaces/${ns}/serviceaccounts/default`);
    if (sa.status === 200) return;
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`no ServiceAccount default in ${ns} after 60 s`);
}

/** The mounts a node program left under `dir` (pod volumes), deepest first. */
async function unmountUnder(dir: string): Promise<void> {
  const { stdout } = await run('findmnt', ['-rn', '-o', 'TARGET']);
  const targets = stdout.split('\n').filter((t) => t.startsWith(`${dir}/`));
  for (const t of targets.sort().reverse())
    await run('umount', [t]).catch(() => run('umount', ['-l', t]).catch(() => undefined));
}

/** The kubelet's /var/log/containers symlinks into the benchmark's pod log dirs. */
async function removeLogLinks(dir: string): Promise<void> {
  const names = await readdir('/var/log/containers').catch(() => [] as string[]);
  for (const n of names) {
    const p = join('/var/log/containers', n);
    const target = await readlink(p).catch(() => '');
    if (target.startsWith(`${dir}/`)) await unlink(p).catch(() => undefined);
  }
}

/** Each run's state under `dir` goes; its node program's log (`<run>/<program>.log`) stays. */
async function removeAllButLogs(dir: string): Promise<void> {
  for (const runDir of await readdir(dir).catch(() => [] as string[]))
    for (const name of await readdir(join(dir, runDir)).catch(() => [] as string[]))
      if (!name.endsWith('.log'))
        await rm(join(dir, runDir, name), { recursive: true, force: true }).catch(() => undefined);
}

export async function setUpHost(kube: Kube, nodeIp: string): Promise<Host> {
  const saved = await saveSysctls();
  const dir = await mkdtemp(join(tmpdir(), 'bench-sbs-'));
  const ns = `bench-sbs-${randomBytes(3).toString('hex')}`;
  const ctd = await startContainerd({ images: [PAUSE_IMAGE, POD_IMAGE] }).catch(async (err) => {
    await rm(dir, { recursive: true, force: true });
    throw err;
  });
  const stop = async (): Promise<void> => {
    await kube.call('DELETE', `/api/v1/namespaces/${ns}`).catch(() => undefined);
    await ctd.stop();
    await unmountUnder(dir);
    await removeLogLinks(dir);
    await restoreSysctls(saved);
    await removeAllButLogs(dir);
  };
  try {
    await createNamespace(kube, ns);
  } catch (err) {
    await stop();
    throw err;
  }
  return { dir, ctd, nodeIp, kube, ns, restoreSysctls: () => restoreSysctls(saved), stop };
}

/** The tasks containerd still runs (after a node program stopped: what it left running). */
export async function leftRunning(host: Host): Promise<number> {
  const out = await host.ctd.ctr('tasks', 'ls').catch(() => '');
  return out.split('\n').filter((l) => /\bRUNNING\b/.test(l)).length;
}

/** The events `node` recorded in `ns` so far, summed (each event's count) by reason. */
export async function eventCounts(kube: Kube, ns: string, node: string): Promise<string> {
  const a = await kube.call('GET', `/api/v1/namespaces/${ns}/events`);
  const byReason = new Map<string, number>();
  for (const e of listOf(recordOf(a.body)['items']).map(recordOf)) {
    if (recordOf(e['source'])['host'] !== node) continue;
    const reason = String(e['reason']);
    byReason.set(reason, (byReason.get(reason) ?? 0) + Number(e['count'] ?? 1));
  }
  return [...byReason].map(([r, n]) => `${r} ${n}`).join(', ');
}

/** Whether the control plane answers /readyz with the admin credentials. */
export async function controlPlaneReady(kube: Kube): Promise<string | undefined> {
  const a = await kube.call('GET', '/readyz').catch((err: unknown) => ({
    status: 0,
    body: err instanceof Error ? err.message : String(err),
  }));
  return a.status === 200 ? undefined : `${kube.server}/readyz: ${a.status} ${String(a.body)}`;
}

/** Whether the API server runs its ServiceAccount admission (pods get the token volume). */
export async function serviceAccountAdmission(kube: Kube, ns: string): Promise<boolean> {
  const a = await kube.call('POST', `/api/v1/namespaces/${ns}/pods?dryRun=All`, {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'probe' },
    spec: { containers: [{ name: 'c', image: POD_IMAGE }] },
  });
  const volumes = recordOf(recordOf(a.body)['spec'])['volumes'];
  return Array.isArray(volumes) && volumes.length > 0;
}

/**
 * Why this host cannot run the kubelet beside the agent, or undefined: the reference kubelet, the
 * reference control plane of /opt/anchors, the built agent, what a private containerd needs, and
 * the two images it imports from Docker (no registry can be reached).
 */
export async function sideBySideSkipReason(): Promise<string | undefined> {
  if (!existsSync(KUBELET_BIN)) return `no reference kubelet at ${KUBELET_BIN}`;
  for (const f of ['admin.kubeconfig', 'bootstrap.kubeconfig', 'pki/ca.crt'])
    if (!existsSync(join(ANCHORS, f))) return `no ${ANCHORS}/${f} (the reference control plane)`;
  if (!existsSync(join(repoRoot(), 'bin', 'nodeagent'))) return 'no bin/nodeagent: npm run build';
  return (
    (await containerdSkipReason().catch((err: unknown) => String(err))) ?? (await imagesMissing())
  );
}

async function imagesMissing(): Promise<string | undefined> {
  const missing: string[] = [];
  for (const image of [PAUSE_IMAGE, POD_IMAGE])
    if (
      !(await run('docker', ['image', 'inspect', image]).then(
        () => true,
        () => false,
      ))
    )
      missing.push(image);
  if (missing.length === 0) return undefined;
  return (
    `Docker has no ${missing.join(', ')}: tag busybox:local as ${POD_IMAGE}, and build ` +
    `${PAUSE_IMAGE} FROM busybox:local with CMD ["sleep", "2147483647"]`
  );
}
