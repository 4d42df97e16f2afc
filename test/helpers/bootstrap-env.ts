// Shared set-up for the bootstrap integration tests: a real plat-apiserver with a bootstrap
// token, a bootstrap platconfig for it, the built agent spawned against it, and openssl checks.
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startApiServer, repoRoot, type StartedApiServer } from './apiserver.js';
import { freePort } from './processes.js';
import { NO_CGROUPS_ARGS } from './agent-cgroups.js';
import { testPodLogsArgs } from './agent-pod-logs.js';
import { launcherEnv } from './launcher.js';
export { freePort };

export const BOOTSTRAP_TOKEN = 'abcdef.0123456789abcdef';

export interface BootstrapEnv {
  dir: string;
  api: StartedApiServer;
  bootstrapConf: string;
  platconfig: string;
  certDir: string;
  stop(): Promise<void>;
}

/**
 * `persistent`: `dataDir` and `certDir` (under the env's dir) keep the API server's state across a
 * restart; `'certs'` keeps only its certificates (an in-memory server that restarts empty but
 * with the same CA).
 */
export async function startBootstrapEnv(
  o: { platformDomain?: string; args?: string[]; persistent?: boolean | 'certs' } = {},
): Promise<BootstrapEnv> {
  const dir = await mkdtemp(join(tmpdir(), 'bootstrap-it-'));
  const tokens = join(dir, 'tokens.csv');
  await writeFile(
    tokens,
    `${BOOTSTRAP_TOKEN},system:bootstrap:abcdef,uid-abcdef,"system:bootstrappers"\n`,
  );
  let api: StartedApiServer;
  try {
    const certDir = join(dir, 'certs');
    const keep =
      o.persistent === true
        ? { dataDir: join(dir, 'data'), certDir }
        : o.persistent === 'certs'
          ? { certDir }
          : {};
    if (keep.certDir !== undefined) await mkdir(keep.certDir, { recursive: true });
    api = await startApiServer({
      ...(o.platformDomain ? { platformDomain: o.platformDomain } : {}),
      ...keep,
      args: [`--token-auth-file=${tokens}`, ...(o.args ?? [])],
    });
  } catch (err) {
    await rm(dir, { recursive: true, force: true });
    throw err;
  }
  const bootstrapConf = join(dir, 'bootstrap.conf');
  await writeFile(
    bootstrapConf,
    `apiVersion: v1\nkind: Config\nclusters:\n- name: local\n  cluster:\n    server: ${api.url}\n    certificate-authority: ${api.caFile}\nusers:\n- name: kubelet-bootstrap\n  user:\n    token: ${BOOTSTRAP_TOKEN}\ncontexts:\n- name: bootstrap\n  context: {cluster: local, user: kubelet-bootstrap}\ncurrent-context: bootstrap\n`,
  );
  return {
    dir,
    api,
    bootstrapConf,
    platconfig: join(dir, 'platconfig'),
    certDir: join(dir, 'pki'),
    stop: async () => {
      await api.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

export interface AgentProcess {
  child: ChildProcess;
  output(): string;
  /** Resolves with the exit code (or signal name). */
  exited: Promise<number | string>;
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpExecArray>;
  stop(): Promise<void>;
  kill9(): Promise<void>;
}

/** Another agent executable (the single executable), started in `cwd` with exactly `env`. */
export interface AgentProgram {
  bin: string;
  cwd: string;
  env: NodeJS.ProcessEnv;
}

/** Spawns bin/nodeagent (executed, as a user runs it; or `program`) in bootstrap mode against the env (process runtime, 127.0.0.1 ports). */
export async function spawnAgent(
  env: BootstrapEnv,
  extra: string[] = [],
  nodeName = 'node-1',
  o: { referenceSpellings?: boolean; argv?: string[]; program?: AgentProgram } = {},
): Promise<AgentProcess> {
  const root = repoRoot();
  const program = o.program ?? {
    bin: join(root, 'bin', 'nodeagent'),
    cwd: root,
    env: launcherEnv(),
  };
  // `argv`: exactly these arguments (a kubeadm drop-in's), nothing of the env added.
  if (o.argv !== undefined) return spawnArgs(program, o.argv);
  // The reference's spellings (kubeadm's drop-in), accepted under --platform-profile=kubernetes.
  const kube = o.referenceSpellings === true;
  const args = [
    `--bootstrap-${kube ? 'kubeconfig' : 'platconfig'}=${env.bootstrapConf}`,
    `--${kube ? 'kubeconfig' : 'platconfig'}=${env.platconfig}`,
    `--cert-dir=${env.certDir}`,
    `--root-dir=${join(env.dir, 'root')}`,
    '--container-runtime-endpoint=process://',
    `--hostname-override=${nodeName}`,
    '--fail-cgroupv1=false',
    ...NO_CGROUPS_ARGS,
    '--address=127.0.0.1',
    `--port=${await freePort()}`,
    '--read-only-port=0',
    '--healthz-port=0',
    ...(env.api.platformDomain !== 'platform.io'
      ? [`--platform-domain=${env.api.platformDomain}`]
      : []),
    // podLogsDir under the env's directory (a drop-in of the profile's kind), unless the test brings drop-ins
    ...(extra.some((a) => a.startsWith('--config-dir'))
      ? []
      : testPodLogsArgs(
          env.dir,
          env.api.platformDomain,
          kube || extra.includes('--platform-profile=kubernetes') ? 'kubernetes' : 'platform',
        )),
    ...extra,
  ];
  return spawnArgs(program, args);
}

function spawnArgs(program: AgentProgram, args: string[]): AgentProcess {
  const child = spawn(program.bin, args, {
    cwd: program.cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: program.env,
  });
  let out = '';
  const listeners = new Set<() => void>();
  const onData = (d: string): void => {
    out += d;
    for (const l of listeners) l();
  };
  child.stdout?.setEncoding('utf8').on('data', onData);
  child.stderr?.setEncoding('utf8').on('data', onData);
  // 'close', not 'exit': once it fires the whole output has been read
  const exited = new Promise<number | string>((r) =>
    child.once('close', (code, sig) => {
      for (const l of listeners) l();
      r(code ?? sig ?? -1);
    }),
  );
  const gone = (): boolean => child.exitCode !== null || child.signalCode !== null;
  return {
    child,
    output: () => out,
    exited,
    waitFor: (pattern, timeoutMs = 20_000) =>
      new Promise((resolve, reject) => {
        const check = (): void => {
          const m = pattern.exec(out);
          if (m) {
            done();
            resolve(m);
          } else if (gone()) {
            done();
            reject(new Error(`agent exited before ${String(pattern)}:\n${out}`));
          }
        };
        const timer = setTimeout(() => {
          done();
          reject(new Error(`timed out waiting for ${String(pattern)}:\n${out}`));
        }, timeoutMs);
        const done = (): void => {
          clearTimeout(timer);
          listeners.delete(check);
        };
        listeners.add(check);
        check();
      }),
    stop: async () => {
      if (!gone()) {
        child.kill('SIGTERM');
        const t = setTimeout(() => child.kill('SIGKILL'), 5000);
        await exited;
        clearTimeout(t);
      }
    },
    kill9: async () => {
      if (!gone()) {
        child.kill('SIGKILL');
        await exited;
      }
    },
  };
}

/** openssl facts about a PEM file holding a certificate (first block) and its key. */
export function opensslFacts(
  pemFile: string,
  caFile: string,
): { verify: string; subject: string; extendedKeyUsage: string; keyMatches: boolean } {
  const run = (args: string[]): string =>
    execFileSync('openssl', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  const verify = run(['verify', '-CAfile', caFile, pemFile]).trim();
  const subject = run(['x509', '-in', pemFile, '-noout', '-subject', '-nameopt', 'RFC2253']).trim();
  const text = run(['x509', '-in', pemFile, '-noout', '-ext', 'extendedKeyUsage']);
  const extendedKeyUsage = text.split('\n').slice(1).join(' ').trim();
  const keyMatches =
    run(['pkey', '-in', pemFile, '-pubout']) === run(['x509', '-in', pemFile, '-noout', '-pubkey']);
  return { verify, subject, extendedKeyUsage, keyMatches };
}

/** The CSRs on the server (as the admin). */
export async function listCsrs(api: StartedApiServer): Promise<
  {
    metadata: { name: string };
    spec: { signerName: string; request: string; usages?: string[] };
    status?: { conditions?: { type: string }[] };
  }[]
> {
  const r = await api.request(
    'GET',
    `/apis/certificates.${api.platformDomain}/v1/certificatesigningrequests`,
  );
  return (r.json?.items ?? []) as never[];
}

/** Approves (or denies) a CSR through the approval subresource as the admin. */
export async function decideCsr(
  api: StartedApiServer,
  name: string,
  type: 'Approved' | 'Denied',
  reason: string,
  message: string,
): Promise<void> {
  const path = `/apis/certificates.${api.platformDomain}/v1/certificatesigningrequests/${name}`;
  const cur = await api.request('GET', path);
  const obj = cur.json ?? {};
  const status = (obj.status ?? {}) as { conditions?: unknown[] };
  const body = {
    ...obj,
    status: {
      ...status,
      conditions: [...(status.conditions ?? []), { type, status: 'True', reason, message }],
    },
  };
  const r = await api.request('PUT', `${path}/approval`, { body });
  if (r.status !== 200) throw new Error(`approval of ${name} failed: ${r.status} ${r.text}`);
}

export async function readText(p: string): Promise<string> {
  return readFile(p, 'utf8');
}
