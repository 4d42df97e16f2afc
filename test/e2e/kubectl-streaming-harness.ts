// The scene of the kubectl streaming suites: the BUILT plat-apiserver (k8s.io paths, agents
// reached at their InternalIP) and the BUILT agent with the process:// runtime joined to it, and
// kubectl runs against them (the admin's platconfig) with stdin, its exit code, its output, and
// a way to wait for a line while it keeps running (logs -f, port-forward).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { readdirSync, readlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startApiServer, type StartedApiServer } from '../helpers/apiserver.js';
import { freePort, stopChild } from '../helpers/processes.js';
import { fetchText, waitFor } from '../helpers/server-https-request.js';
import { killProcessPods } from '../integration/agent/pods/runtimes.js';

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
  agentOutput(): string;
  kubectl(args: readonly string[], o?: { input?: string; env?: Record<string, string>; timeoutMs?: number }): Promise<KubectlResult>;
  /** kubectl left running; `waitOut` resolves once its stdout matches. */
  kubectlRunning(args: readonly string[], env?: Record<string, string>): RunningKubectl;
  stop(): Promise<void>;
}

export interface RunningKubectl {
  child: ChildProcess;
  out(): string;
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

export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export async function startScene(node: string, apiArgs: readonly string[] = []): Promise<Scene> {
  const dir = await mkdtemp(join(tmpdir(), 'na-kubectl-stream-'));
  const api = await startApiServer({ platformDomain: 'k8s.io', args: ['--kubelet-preferred-address-types=InternalIP,Hostname', ...apiArgs] });
  const agentPort = await freePort();
  await mkdir(join(dir, 'root'));
  const agent = spawn(
    process.execPath,
    [
      'bin/nodeagent',
      `--platconfig=${api.adminPlatconfig}`,
      '--platform-domain=k8s.io',
      '--container-runtime-endpoint=process://',
      `--root-dir=${join(dir, 'root')}`,
      `--cert-dir=${join(dir, 'pki')}`,
      `--hostname-override=${node}`,
      '--node-ip=127.0.0.1',
      '--address=127.0.0.1',
      `--port=${agentPort}`,
      '--read-only-port=0',
      `--healthz-port=${await freePort()}`,
      '--anonymous-auth=false',
      '--authentication-token-webhook',
      '--authorization-mode=Webhook',
      `--client-ca-file=${api.clusterCaFile}`,
      '--node-status-update-frequency=1s',
      '--fail-cgroupv1=false',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
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
    agentOutput: () => agentOut,
    kubectl: (args, o = {}) =>
      new Promise((resolve) => {
        const child = spawn('kubectl', ['--kubeconfig', api.adminPlatconfig, ...args], { env: { ...process.env, ...o.env }, stdio: ['pipe', 'pipe', 'pipe'] });
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
      const child = spawn('kubectl', ['--kubeconfig', api.adminPlatconfig, ...args], { env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
      running.push(child);
      let out = '';
      let err = '';
      child.stdout?.on('data', (b: Buffer) => (out += b.toString()));
      child.stderr?.on('data', (b: Buffer) => (err += b.toString()));
      return {
        child,
        out: () => out,
        waitOut: async (re, what, timeoutMs = 20_000) => {
          await waitFor(() => re.test(out), `${what} (kubectl stdout: ${out.slice(-500)}; stderr: ${err.slice(-500)})`, timeoutMs, 50);
          return re.exec(out)!;
        },
      };
    },
    stop: async () => {
      for (const c of running) await stopChild(c, 2000);
      await stopChild(agent);
      await api.stop();
      await killProcessPods(join(dir, 'root'));
      await rm(dir, { recursive: true, force: true });
    },
  };
  try {
    await waitFor(async () => (await fetchText(`https://127.0.0.1:${agentPort}/healthz`).catch(() => ({ status: 0 }))).status !== 0, 'the agent server', 30_000, 100);
    await waitFor(async () => (await api.request('GET', `/api/v1/nodes/${node}`)).status === 200, 'the node registered', 30_000, 100);
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
      const st = (r.json?.['status'] ?? {}) as { phase?: string; containerStatuses?: { state?: { running?: unknown } }[] };
      return st.phase === 'Running' && (st.containerStatuses ?? []).length > 0 && (st.containerStatuses ?? []).every((c) => c.state?.running !== undefined);
    },
    `pod ${name} running (agent output: ${s.agentOutput().slice(-1500)})`,
    30_000,
    100,
  );
}
