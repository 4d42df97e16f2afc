// A containerd of the test's own: root, state, sockets, runc root, CNI config and IPAM leases under
// a temp dir, a CNI bridge of its own name on a private /24 that no host route uses (nothing
// touches the host's interfaces), busybox:local and a local pause image imported into its k8s.io
// namespace. stop() takes everything down even after a failure: the containers' processes, the
// shims, the mounts, the network namespaces, the bridge and its veths, the runc cgroups, the dir.
//
// The pause image: busybox:local with `sleep 2147483647` as its command (built by `docker build`
// from the local image, tagged uniquely per run and untagged after the import). containerd stops a
// sandbox with SIGKILL, so a sleep that ignores SIGTERM as pid 1 does no harm.
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, mkdir, readFile, readdir, rm, rmdir, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { skipOutsideCi } from './skip-outside-ci.js';
import { stopChild } from './processes.js';

const run = promisify(execFile);
export const CNI_BIN_DIR = '/usr/lib/cni';
export const TEST_IMAGE = 'busybox:local';

export interface Containerd {
  readonly dir: string;
  /** `unix://<dir>/containerd.sock`, the agent's --container-runtime-endpoint. */
  readonly endpoint: string;
  readonly socket: string;
  readonly pauseImage: string;
  readonly bridge: string;
  readonly subnet: string;
  /** `ctr -a <socket> -n k8s.io <args>`. */
  ctr(...args: string[]): Promise<string>;
  /** Stops the daemon alone (SIGTERM): the shims and the containers keep running. */
  stopDaemon(): Promise<void>;
  /** Starts the daemon again on the same root, state and socket. */
  startDaemon(): Promise<void>;
  stop(): Promise<void>;
}

/** undefined when a private containerd can be started here; otherwise why not (an error in CI). */
export async function containerdSkipReason(): Promise<string | undefined> {
  const missing = ['/usr/bin/containerd', '/usr/bin/ctr']
    .concat(['bridge', 'host-local', 'loopback'].map((p) => join(CNI_BIN_DIR, p)))
    .filter((p) => !existsSync(p));
  const runc = await run('runc', ['--version']).then(
    () => undefined,
    () => 'runc',
  );
  if (runc !== undefined) missing.push(runc);
  if (process.getuid?.() !== 0) missing.push('root');
  const docker = await run('docker', ['image', 'inspect', TEST_IMAGE]).then(
    () => undefined,
    () => `${TEST_IMAGE} in a Docker engine (the image source)`,
  );
  if (docker !== undefined) missing.push(docker);
  if (missing.length === 0) return undefined;
  return skipOutsideCi(
    'containerd',
    `missing ${missing.join(', ')} (apt-get install containerd runc containernetworking-plugins)`,
  );
}

async function usedRoutes(): Promise<string> {
  return (await run('ip', ['-4', 'route', 'show', 'table', 'all'])).stdout;
}

/** A /24 in 10.234.0.0/16 that no route of the host names. */
async function privateSubnet(): Promise<string> {
  const routes = await usedRoutes();
  for (let i = 0; i < 50; i++) {
    const third = randomBytes(1)[0] ?? 0;
    const net = `10.234.${third}.`;
    if (!routes.includes(net)) return `${net}0/24`;
  }
  throw new Error('no free /24 in 10.234.0.0/16');
}

function configToml(dir: string, socket: string, pause: string): string {
  const cri = 'plugins."io.containerd.grpc.v1.cri"';
  return `version = 2
root = "${dir}/root"
state = "${dir}/state"
disabled_plugins = ["io.containerd.snapshotter.v1.aufs", "io.containerd.snapshotter.v1.btrfs",
  "io.containerd.snapshotter.v1.devmapper", "io.containerd.snapshotter.v1.zfs"]
[grpc]
  address = "${socket}"
[ttrpc]
  address = "${socket}.ttrpc"
[debug]
  address = ""
[metrics]
  address = ""
[plugins."io.containerd.internal.v1.opt"]
  path = "${dir}/opt"
[${cri}]
  sandbox_image = "${pause}"
  netns_mounts_under_state_dir = true
  restrict_oom_score_adj = true
  stream_server_address = "127.0.0.1"
  stream_server_port = "0"
  [${cri}.containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"
    [${cri}.containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [${cri}.containerd.runtimes.runc.options]
        SystemdCgroup = false
        Root = "${dir}/runc"
  [${cri}.cni]
    bin_dir = "${CNI_BIN_DIR}"
    conf_dir = "${dir}/cni"
`;
}

function cniConf(dir: string, bridge: string, subnet: string): string {
  return JSON.stringify({
    cniVersion: '1.0.0',
    name: bridge,
    plugins: [
      {
        type: 'bridge',
        bridge,
        isGateway: true,
        ipMasq: false,
        hairpinMode: true,
        ipam: {
          type: 'host-local',
          ranges: [[{ subnet }]],
          routes: [{ dst: '0.0.0.0/0' }],
          dataDir: `${dir}/ipam`,
        },
      },
      { type: 'portmap', capabilities: { portMappings: true } },
    ],
  });
}

async function waitAnswering(socket: string, child: ChildProcess, log: () => string) {
  for (let i = 0; i < 120; i++) {
    if (child.exitCode !== null) throw new Error(`containerd exited: ${log()}`);
    const ok = await run('ctr', ['-a', socket, 'version']).then(
      () => true,
      () => false,
    );
    if (ok) return;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`containerd not answering on ${socket}: ${log()}`);
}

/** busybox:local with a sleeping command, under a tag of this run; untagged after the import. */
async function buildPause(tag: string): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const b = spawn('docker', ['build', '-q', '-t', tag, '-'], {
      env: { ...process.env, DOCKER_BUILDKIT: '0' },
      stdio: ['pipe', 'ignore', 'pipe'],
    });
    let err = '';
    b.stderr.on('data', (d: Buffer) => (err += d.toString()));
    b.on('error', reject);
    b.on('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`docker build of ${tag}: ${err}`)),
    );
    b.stdin.end(`FROM ${TEST_IMAGE}\nCMD ["sleep", "2147483647"]\n`);
  });
}

async function importImages(socket: string, images: string[]): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const save = spawn('docker', ['save', ...images], { stdio: ['ignore', 'pipe', 'inherit'] });
    const imp = spawn('ctr', ['-a', socket, '-n', 'k8s.io', 'images', 'import', '-'], {
      stdio: ['pipe', 'ignore', 'pipe'],
    });
    let err = '';
    imp.stderr.on('data', (d: Buffer) => (err += d.toString()));
    save.stdout.pipe(imp.stdin);
    imp.on('error', reject);
    imp.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`ctr import: ${err}`))));
  });
}

/** busybox:local and a pause image built from it for this run, untagged in Docker after. */
async function importBuiltPause(socket: string, pauseImage: string): Promise<void> {
  await buildPause(pauseImage);
  try {
    await importImages(socket, [TEST_IMAGE, pauseImage]);
  } finally {
    await run('docker', ['rmi', pauseImage]).catch(() => undefined);
  }
}

export interface ContainerdOptions {
  /** Where its socket goes (kubeadm's path under a test's root); default <dir>/containerd.sock. */
  socketPath?: string;
  /**
   * Images of the local Docker engine to import as they are, the first being containerd's sandbox
   * image (e.g. registry.k8s.io/pause:3.10); default: busybox:local and a pause built from it.
   */
  images?: readonly [string, ...string[]];
}

export async function startContainerd(o: ContainerdOptions = {}): Promise<Containerd> {
  const dir = await mkdtemp(join(tmpdir(), 'na-ctd-'));
  const suffix = randomBytes(3).toString('hex');
  const bridge = `nacri${suffix}`;
  const socket = o.socketPath ?? join(dir, 'containerd.sock');
  const pauseImage = o.images?.[0] ?? `nodeagent-test/pause:${suffix}`;
  let child: ChildProcess | undefined;
  let out = '';
  // a daemon that dies under a test says so (a CI log is then enough to see why the test failed)
  let stopping = false;
  const startDaemon = async (): Promise<void> => {
    stopping = false;
    const daemon = spawn(
      'containerd',
      ['--config', join(dir, 'config.toml'), '--log-level', 'warn'],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    child = daemon;
    const keep = (d: Buffer) => (out = (out + d.toString()).slice(-8192));
    daemon.stdout.on('data', keep);
    daemon.stderr.on('data', keep);
    daemon.once('exit', (code, signal) => {
      if (!stopping)
        process.stderr.write(
          `test containerd (${socket}) exited unexpectedly: code ${String(code)}, signal ` +
            `${String(signal)}; its last output:\n${out.slice(-2048)}\n`,
        );
    });
    await waitAnswering(socket, daemon, () => out);
  };
  const stopDaemon = (): Promise<void> => {
    stopping = true;
    return stopChild(child, 10_000);
  };
  const ctd: Containerd = {
    dir,
    socket,
    endpoint: `unix://${socket}`,
    pauseImage,
    bridge,
    subnet: '',
    ctr: async (...args) => (await run('ctr', ['-a', socket, '-n', 'k8s.io', ...args])).stdout,
    stopDaemon,
    startDaemon,
    stop: () => {
      stopping = true;
      return stopAll(ctd, child);
    },
  };
  try {
    const subnet = await privateSubnet();
    Object.assign(ctd, { subnet });
    for (const d of ['root', 'state', 'cni', 'ipam', 'runc', 'opt']) await mkdir(join(dir, d));
    await mkdir(dirname(socket), { recursive: true });
    await writeFile(join(dir, 'config.toml'), configToml(dir, socket, pauseImage));
    await writeFile(join(dir, 'cni', '10-nodeagent-test.conflist'), cniConf(dir, bridge, subnet));
    await startDaemon();
    if (o.images !== undefined) await importImages(socket, [...o.images]);
    else await importBuiltPause(socket, pauseImage);
    return ctd;
  } catch (err) {
    await ctd.stop();
    throw err;
  }
}

async function lines(cmd: Promise<string>): Promise<string[]> {
  return (await cmd.catch(() => ''))
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '');
}

/** Kills every task, then containerd and the shims started for its socket. */
async function stopProcesses(ctd: Containerd, child: ChildProcess | undefined): Promise<string[]> {
  // every container the daemon knows, and every task a shim runs (the daemon may be stopped)
  const tasks = await readdir(
    join(ctd.dir, 'state', 'io.containerd.runtime.v2.task', 'k8s.io'),
  ).catch(() => [] as string[]);
  const ids = [...new Set([...(await lines(ctd.ctr('containers', 'ls', '-q'))), ...tasks])];
  for (const id of await lines(ctd.ctr('tasks', 'ls', '-q')))
    await ctd.ctr('tasks', 'kill', '-s', 'SIGKILL', id).catch(() => undefined);
  await stopChild(child, 10_000);
  const ps = (await run('ps', ['-eo', 'pid=,args='])).stdout.split('\n');
  for (const l of ps) {
    const args = l.trim().split(/\s+/);
    const at = args.indexOf('-address');
    if ((args[1] ?? '').includes('containerd-shim') && at > 0 && args[at + 1] === ctd.socket)
      process.kill(Number(args[0]), 'SIGKILL');
  }
  return ids;
}

async function unmountUnder(dir: string): Promise<void> {
  const { stdout } = await run('findmnt', ['-rn', '-o', 'TARGET']);
  const targets = stdout
    .split('\n')
    .filter((t) => t.startsWith(`${dir}/`))
    .sort()
    .reverse();
  for (const t of targets)
    await run('umount', [t]).catch(() => run('umount', ['-l', t]).catch(() => undefined));
}

async function removeBridge(bridge: string): Promise<void> {
  const { stdout } = await run('ip', ['-o', 'link', 'show', 'master', bridge]).catch(() => ({
    stdout: '',
  }));
  for (const l of stdout.split('\n')) {
    const name = l.split(': ')[1]?.split('@')[0];
    if (name !== undefined && name !== '')
      await run('ip', ['link', 'del', name]).catch(() => undefined);
  }
  await run('ip', ['link', 'del', bridge]).catch(() => undefined);
}

/** runc's cgroups of our containers: /k8s.io/<id> in each v1 hierarchy (only ours, by id). */
async function removeCgroups(ids: readonly string[]): Promise<void> {
  const hierarchies = await readdir('/sys/fs/cgroup').catch(() => [] as string[]);
  // processes a killed shim left behind (the daemon was stopped): found by their cgroup
  for (const h of hierarchies)
    for (const id of ids) {
      const procs = await readFile(
        join('/sys/fs/cgroup', h, 'k8s.io', id, 'cgroup.procs'),
        'utf8',
      ).catch(() => '');
      for (const pid of procs.split('\n').filter((l) => /^\d+$/.test(l)))
        try {
          process.kill(Number(pid), 'SIGKILL');
        } catch {
          // gone
        }
    }
  await new Promise((r) => setTimeout(r, 200));
  for (const h of hierarchies)
    for (const id of ids)
      await rmdir(join('/sys/fs/cgroup', h, 'k8s.io', id)).catch(() => undefined);
}

async function stopAll(ctd: Containerd, child: ChildProcess | undefined): Promise<void> {
  const ids = await stopProcesses(ctd, child).catch(() => [] as string[]);
  await removeCgroups(ids);
  await unmountUnder(ctd.dir);
  await removeBridge(ctd.bridge);
  await rm(ctd.dir, { recursive: true, force: true }).catch(() => undefined);
}
