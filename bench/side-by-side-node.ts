// The two node programs of the side-by-side benchmark, started the same way: the same argv (the
// reference kubelet's flags, as run.sh's NC_NODE=kubelet mode gives them), the same
// KubeletConfiguration file, the same bootstrap kubeconfig, containerd and node address; only the
// binary differs. Each run has a directory of its own (certificates, root, pod logs, log file).
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { openSync, closeSync, readdirSync, readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { repoRoot } from '../test/helpers/apiserver.js';
import { launcherEnv } from '../test/helpers/launcher.js';
import { freePort, stopChild } from '../test/helpers/processes.js';
import type { Containerd } from '../test/helpers/containerd.js';
import { recordOf, listOf } from '../src/common/util/json-shape.js';
import type { Kube } from './side-by-side-kube.js';

const run = promisify(execFile);
export const ANCHORS = '/opt/anchors';
export const KUBELET_BIN = `${ANCHORS}/bin/kubelet`;
export const PROGRAMS = ['kubelet', 'nodeagent'] as const;
export type Program = (typeof PROGRAMS)[number];
/** The taint both register with; the benchmark's pods tolerate it, nobody else's land here. */
export const TAINT = 'bench.nodeagent.io/side-by-side=true:NoSchedule';

export interface NodeHost {
  readonly dir: string;
  readonly ctd: Containerd;
  readonly nodeIp: string;
  readonly kube: Kube;
}

export interface RunningNode {
  readonly program: Program;
  readonly name: string;
  readonly pid: number;
  readonly dir: string;
  readonly log: string;
  /** Spawn to the client certificate's `*-client-current.pem` on disk. */
  readonly bootstrapMs: number;
  stop(): Promise<void>;
}

/** The first IPv4 address of the default route's interface (the kubelet refuses a loopback one). */
export async function defaultIp(): Promise<string | undefined> {
  const routes = (await run('ip', ['-4', 'route', 'show', 'default'])).stdout;
  const dev = /\bdev (\S+)/.exec(routes)?.[1];
  if (dev === undefined) return undefined;
  const addr = (await run('ip', ['-4', '-o', 'addr', 'show', 'dev', dev])).stdout;
  return /\binet (\d+\.\d+\.\d+\.\d+)\//.exec(addr)?.[1];
}

function configYaml(dir: string): string {
  return `apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
podLogsDir: ${dir}/pod-logs
failCgroupV1: false
readOnlyPort: 0
healthzPort: 0
authentication:
  anonymous: {enabled: false}
  webhook: {enabled: true}
  x509: {clientCAFile: ${ANCHORS}/pki/ca.crt}
authorization:
  mode: Webhook
`;
}

function argv(host: NodeHost, dir: string, name: string, port: number): string[] {
  return [
    `--config=${dir}/config.yaml`,
    `--bootstrap-kubeconfig=${ANCHORS}/bootstrap.kubeconfig`,
    `--kubeconfig=${dir}/node.conf`,
    `--cert-dir=${dir}/pki`,
    `--root-dir=${dir}/root`,
    `--container-runtime-endpoint=${host.ctd.endpoint}`,
    `--hostname-override=${name}`,
    `--node-ip=${host.nodeIp}`,
    `--address=${host.nodeIp}`,
    `--port=${port}`,
    '--fail-swap-on=false',
    '--cgroup-driver=cgroupfs',
    '--cgroups-per-qos=false',
    '--enforce-node-allocatable=',
    '--cluster-dns=10.96.0.10',
    '--cluster-domain=cluster.local',
    '--pod-manifest-path=',
    `--register-with-taints=${TAINT}`,
  ];
}

/**
 * bin/nodeagent's #! line (scripts/launch-settings.mjs reads it): its node flags and environment,
 * kept when node is run with more flags of its own (executed, the line itself applies them).
 */
const LAUNCH = (
  (await import(pathToFileURL(join(repoRoot(), 'scripts', 'launch-settings.mjs')).href)) as {
    launchSettings(): { env: Record<string, string>; nodeArgs: string[] };
  }
).launchSettings();

/**
 * The environment a systemd unit gives a service (its PATH, the system's locale), not the shell's
 * this benchmark runs in: a developer's or CI's variables would not reach a node program started
 * by kubeadm's unit. One of them costs node alone: NODE_EXTRA_CA_CERTS (set to the system's CA
 * bundle on some build machines) makes node read and parse every certificate in it before any of
 * the program runs, 40-50 ms of each start on this machine.
 */
export function unitEnv(): NodeJS.ProcessEnv {
  const lang = process.env['LANG'];
  return launcherEnv({
    PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
    ...(lang === undefined ? {} : { LANG: lang }),
  });
}

function spawnProgram(program: Program, args: string[], log: string): ChildProcess {
  const fd = openSync(log, 'a', 0o600);
  try {
    if (program === 'kubelet')
      return spawn(KUBELET_BIN, args, { stdio: ['ignore', fd, fd], cwd: '/', env: unitEnv() });
    const env = unitEnv();
    const nodeOptions = process.env['BENCH_SBS_AGENT_NODE_OPTIONS'];
    if (nodeOptions !== undefined) env['NODE_OPTIONS'] = nodeOptions;
    const extra = (process.env['BENCH_SBS_AGENT_ARGS'] ?? '').split(' ').filter((a) => a !== '');
    // Node refuses --cpu-prof, --trace-gc and others in NODE_OPTIONS: these go on node's own argv
    const nodeArgs = (process.env['BENCH_SBS_AGENT_NODE_ARGS'] ?? '').split(' ').filter(Boolean);
    if (nodeArgs.length > 0) Object.assign(env, LAUNCH.env);
    const node = nodeArgs.length === 0 ? [] : [process.execPath, ...LAUNCH.nodeArgs, ...nodeArgs];
    const bin = join(repoRoot(), 'bin', 'nodeagent');
    const [cmd, ...pre] = [...node, bin];
    return spawn(cmd ?? bin, [...pre, ...args, ...extra], {
      stdio: ['ignore', fd, fd],
      cwd: repoRoot(),
      env,
    });
  } finally {
    closeSync(fd);
  }
}

/** The last lines of a node program's log, for an error that says why it failed. */
export function tail(log: string): string {
  try {
    return readFileSync(log, 'utf8').split('\n').slice(-25).join('\n');
  } catch {
    return '';
  }
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

async function untilCertificate(child: ChildProcess, pki: string, log: string): Promise<void> {
  const t0 = performance.now();
  for (;;) {
    let names: string[] = [];
    try {
      names = readdirSync(pki);
    } catch {
      // not made yet
    }
    if (names.some((n) => n.endsWith('-client-current.pem'))) return;
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`exited before its certificate:\n${tail(log)}`);
    if (performance.now() - t0 > 120_000) throw new Error(`no certificate in 120 s:\n${tail(log)}`);
    await sleep(2);
  }
}

/** Starts `program` as node `name`; resolves once its client certificate is on disk. */
export async function launchNode(
  host: NodeHost,
  program: Program,
  name: string,
): Promise<RunningNode> {
  const dir = join(host.dir, name);
  await mkdir(join(dir, 'pod-logs'), { recursive: true });
  await writeFile(join(dir, 'config.yaml'), configYaml(dir), { mode: 0o600 });
  const log = join(dir, `${program}.log`);
  const args = argv(host, dir, name, await freePort());
  const t0 = performance.now();
  const child = spawnProgram(program, args, log);
  const stop = async (): Promise<void> => {
    await stopChild(child, 30_000);
    await host.kube.call('DELETE', `/api/v1/nodes/${name}`).catch(() => undefined);
  };
  try {
    await untilCertificate(child, join(dir, 'pki'), log);
  } catch (err) {
    await stop();
    throw new Error(`${program} ${name}: ${err instanceof Error ? err.message : String(err)}`);
  }
  const bootstrapMs = performance.now() - t0;
  return { program, name, pid: child.pid ?? 0, dir, log, bootstrapMs, stop };
}

/** Waits for the Node to be Ready as the API server shows it. */
export async function waitReady(kube: Kube, node: RunningNode, timeoutMs = 180_000): Promise<void> {
  const t0 = performance.now();
  while (performance.now() - t0 < timeoutMs) {
    const a = await kube.call('GET', `/api/v1/nodes/${node.name}`).catch(() => undefined);
    const conditions = listOf(recordOf(recordOf(a?.body)['status'])['conditions']);
    const ready = conditions.map(recordOf).find((c) => c['type'] === 'Ready');
    if (ready?.['status'] === 'True') return;
    await sleep(500);
  }
  throw new Error(`node ${node.name} not Ready in ${timeoutMs / 1000} s:\n${tail(node.log)}`);
}
