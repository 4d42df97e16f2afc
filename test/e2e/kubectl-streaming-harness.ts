// The scene of the kubectl streaming suites: the BUILT plat-apiserver (k8s.io paths, agents
// reached at their InternalIP) and the BUILT agent with the process:// runtime joined to it, and
// kubectl runs against them (the admin's platconfig) with stdin, its exit code, its output, and
// a way to wait for a line while it keeps running (logs -f, port-forward).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { parse as parseYaml } from 'yaml';
import { makeCa, makeServing } from '../helpers/server-tls-certs.js';
import { readdirSync, readlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startApiServer, type StartedApiServer } from '../helpers/apiserver.js';
import { freePort, stopChild } from '../helpers/processes.js';
import { fetchText, waitFor } from '../helpers/server-https-request.js';
import { killProcessPods } from '../integration/agent/pods/runtimes.js';
import { systemMounter } from '../../src/agent/volume/mounts.js';
import { joinedAgentArgs } from '../helpers/joined-agent-args.js';
import { launcherEnv } from '../helpers/launcher.js';

export interface KubectlResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface Scene {
  api: StartedApiServer;
  dir: string;
  node: string;
  agentPort: number;
  /** The CA of the agent's serving certificate (with `serving`). */
  agentCa: string | undefined;
  agentOutput(): string;
  kubectl(
    args: readonly string[],
    o?: { input?: string; env?: Record<string, string>; timeoutMs?: number },
  ): Promise<KubectlResult>;
  /** kubectl left running; `waitOut` resolves once its stdout matches. */
  kubectlRunning(args: readonly string[], env?: Record<string, string>): RunningKubectl;
  stop(): Promise<void>;
}

export interface RunningKubectl {
  child: ChildProcess;
  out(): string;
  err(): string;
  waitOut(re: RegExp, what: string, timeoutMs?: number): Promise<RegExpMatchArray>;
}

/** Sockets the process holds open (from /proc): what a vanished client must give back. */
export function openSockets(pid: number): number {
  let n = 0;
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      if (readlinkSync(`/proc/${pid}/fd/${fd}`).startsWith('socket:')) n++;
    } catch {
      // closed while we looked
    }
  }
  return n;
}

export interface SceneOptions {
  readonly apiArgs?: readonly string[];
  /**
   * The agent serves a certificate of a test CA; plat-apiserver's --kubelet-certificate-authority
   * is that CA (`matching`) or another one (`mismatched`). Absent: the agent's self-signed
   * certificate, not verified.
   */
  readonly serving?: 'matching' | 'mismatched';
  /** The agent's container runtime endpoint (default process://). */
  readonly runtimeEndpoint?: string;
}

async function servingFlags(
  dir: string,
  serving: SceneOptions['serving'],
): Promise<{ api: string[]; agent: string[]; agentCa?: string }> {
  if (serving === undefined) return { api: [], agent: [] };
  const ca = await makeCa('agent-serving-ca');
  const leaf = await makeServing(ca);
  const trusted = serving === 'matching' ? ca : await makeCa('some-other-ca');
  await writeFile(join(dir, 'serving.crt'), leaf.certPem);
  await writeFile(join(dir, 'serving.key'), leaf.keyPem, { mode: 0o600 });
  await writeFile(join(dir, 'kubelet-ca.crt'), trusted.certPem);
  return {
    api: [`--kubelet-certificate-authority=${join(dir, 'kubelet-ca.crt')}`],
    agent: [
      `--tls-cert-file=${join(dir, 'serving.crt')}`,
      `--tls-private-key-file=${join(dir, 'serving.key')}`,
    ],
    agentCa: ca.certPem,
  };
}

/** The admin's client certificate and the server's CA, as PEM (for raw upgrade clients). */
export async function adminPems(
  api: StartedApiServer,
): Promise<{ ca: string; cert: string; key: string }> {
  const cfg = parseYaml(await readFile(api.adminPlatconfig, 'utf8')) as {
    users: { user: Record<string, string> }[];
  };
  const user = cfg.users[0]!.user;
  const pem = (k: string): string => Buffer.from(user[k] ?? '', 'base64').toString('utf8');
  return {
    ca: await readFile(api.caFile, 'utf8'),
    cert: pem('client-certificate-data'),
    key: pem('client-key-data'),
  };
}

export async function startScene(node: string, o: SceneOptions = {}): Promise<Scene> {
  const dir = await mkdtemp(join(tmpdir(), 'na-kubectl-stream-'));
  const tls = await servingFlags(dir, o.serving);
  const api = await startApiServer({
    platformDomain: 'k8s.io',
    // No --kubelet-preferred-address-types: the default (kubeadm's, InternalIP first) must reach
    // an agent whose host name does not resolve.
    // The process:// runtime cannot mount volumes: its pods would be refused the projected
    // service-account token the ServiceAccount plugin adds, so it is off for that runtime.
    args: [
      ...tls.api,
      ...(o.runtimeEndpoint === undefined ? ['--disable-admission-plugins=ServiceAccount'] : []),
      ...(o.apiArgs ?? []),
    ],
  });
  const agentPort = await freePort();
  await mkdir(join(dir, 'root'));
  const agent = spawn(
    'bin/nodeagent',
    [
      ...joinedAgentArgs({
        platconfig: api.adminPlatconfig,
        dir,
        node,
        platformDomain: 'k8s.io',
        ...(o.runtimeEndpoint !== undefined ? { runtimeEndpoint: o.runtimeEndpoint } : {}),
      }),
      '--address=127.0.0.1',
      `--port=${agentPort}`,
      '--read-only-port=0',
      `--healthz-port=${await freePort()}`,
      '--anonymous-auth=false',
      '--authentication-token-webhook',
      '--authorization-mode=Webhook',
      `--client-ca-file=${api.clusterCaFile}`,
      '--node-status-update-frequency=1s',
      ...tls.agent,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'], env: launcherEnv() },
  );
  let agentOut = '';
  agent.stdout?.on('data', (b: Buffer) => (agentOut += b.toString()));
  agent.stderr?.on('data', (b: Buffer) => (agentOut += b.toString()));
  const running: ChildProcess[] = [];
  const scene: Scene = {
    api,
    dir,
    node,
    agentPort,
    agentCa: tls.agentCa,
    agentOutput: () => agentOut,
    kubectl: (args, o = {}) =>
      new Promise((resolve) => {
        const child = spawn('kubectl', ['--kubeconfig', api.adminPlatconfig, ...args], {
          env: { ...process.env, ...o.env },
          stdio: ['pipe', 'pipe', 'pipe'],
        });
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (b: Buffer) => (stdout += b.toString()));
        child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
        const timer = setTimeout(() => child.kill('SIGKILL'), o.timeoutMs ?? 30_000);
        child.once('close', (code) => {
          clearTimeout(timer);
          resolve({ code, stdout, stderr });
        });
        child.stdin.end(o.input ?? '');
      }),
    kubectlRunning: (args, env = {}) => {
      const child = spawn('kubectl', ['--kubeconfig', api.adminPlatconfig, ...args], {
        env: { ...process.env, ...env },
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      running.push(child);
      let out = '';
      let err = '';
      child.stdout?.on('data', (b: Buffer) => (out += b.toString()));
      child.stderr?.on('data', (b: Buffer) => (err += b.toString()));
      return {
        child,
        out: () => out,
        err: () => err,
        waitOut: async (re, what, timeoutMs = 20_000) => {
          await waitFor(
            () => re.test(out),
            `${what} (kubectl stdout: ${out.slice(-500)}; stderr: ${err.slice(-500)})`,
            timeoutMs,
            50,
          );
          return re.exec(out)!;
        },
      };
    },
    stop: async () => {
      for (const c of running) await stopChild(c, 2000);
      await stopChild(agent);
      await api.stop();
      await killProcessPods(join(dir, 'root'));
      // the service-account token volumes a container runtime's agent mounted (tmpfs)
      const m = systemMounter();
      for (const p of await m.mountsUnder(dir)) await m.unmount(p).catch(() => undefined);
      await rm(dir, { recursive: true, force: true });
    },
  };
  try {
    await waitFor(
      async () =>
        (await fetchText(`https://127.0.0.1:${agentPort}/healthz`).catch(() => ({ status: 0 })))
          .status !== 0,
      'the agent server',
      // a start takes ~2 s; 60 s leaves room for a machine many times over-subscribed
      60_000,
      100,
    );
    await waitFor(
      async () => (await api.request('GET', `/api/v1/nodes/${node}`)).status === 200,
      'the node registered',
      30_000,
      100,
    );
  } catch (err) {
    await scene.stop();
    throw new Error(`${(err as Error).message}\n--- agent output ---\n${agentOut.slice(-3000)}`);
  }
  return scene;
}

/** Waits until the pod's containers run (the agent reports them ready in the pod's status). */
export async function podRunning(s: Scene, name: string): Promise<void> {
  await waitFor(
    async () => {
      const r = await s.api.request('GET', `/api/v1/namespaces/default/pods/${name}`);
      const st = (r.json?.['status'] ?? {}) as {
        phase?: string;
        containerStatuses?: { state?: { running?: unknown } }[];
      };
      return (
        st.phase === 'Running' &&
        (st.containerStatuses ?? []).length > 0 &&
        (st.containerStatuses ?? []).every((c) => c.state?.running !== undefined)
      );
    },
    `pod ${name} running (agent output: ${s.agentOutput().slice(-1500)})`,
    30_000,
    100,
  );
}
