// Starts the BUILT plat-apiserver (`node bin/plat-apiserver`, so `npm run build` first) on
// 127.0.0.1 with a free port and a temporary cert dir, and gives tests what they need to talk to
// it: the URL, admin.platconfig, the CA files, an admin HTTPS client, and stop().
//
//   const api = await startApiServer({ platformDomain: 'k8s.io' });
//   t.after(() => api.stop());
//   const r = await api.request('GET', '/api/v1/namespaces');          // as system:masters admin
//   assert.equal(r.status, 200);
//
// Options: `args` (extra flags, e.g. ['--token-auth-file=/tmp/t.csv']), `platformDomain`
// (default platform.io), `dataDir` (persist in SQLite there; default in memory), `certDir`
// (reuse one, e.g. across a restart; default a fresh temp dir removed by stop()), `env`,
// `startTimeoutMs` (default 30 s), `bin` (another build's launcher), `nodeArgs`. stop() sends SIGTERM (SIGKILL after 5 s) and removes the
// temp dirs it created; kill() sends SIGKILL at once (for crash tests) and keeps the dirs.

import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Agent, request as undiciRequest } from 'undici';
import { parse as parseYaml } from 'yaml';
import { onProcessEnd } from './end-on-signal.js';

export interface StartApiServerOptions {
  readonly args?: readonly string[];
  readonly platformDomain?: string;
  readonly dataDir?: string;
  readonly certDir?: string;
  readonly env?: Readonly<Record<string, string>>;
  readonly startTimeoutMs?: number;
  /** Another build's launcher (e.g. main's bin/plat-apiserver, for benchmarks); default this tree's. */
  readonly bin?: string;
  /** Node options before the launcher (e.g. ['--cpu-prof'], which NODE_OPTIONS refuses). */
  /** false: without TEST_APISERVER_ARGS, for a test of the very flags those would override. */
  readonly suiteArgs?: boolean;
  readonly nodeArgs?: readonly string[];
}

export interface ApiResponse {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly text: string;
  /** The body parsed as JSON (undefined when it is not JSON). */
  readonly json: Record<string, unknown> | undefined;
}

export interface RequestOptions {
  /** An object is sent as JSON; a string as is. */
  readonly body?: unknown;
  readonly contentType?: string;
  readonly headers?: Readonly<Record<string, string>>;
  /** Send no client certificate (anonymous or token requests). */
  readonly anonymous?: boolean;
  readonly token?: string;
}

export interface WatchEvent {
  readonly type: string;
  readonly object: Record<string, unknown>;
}

export interface WatchStream {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  /** The next event; rejects after `timeoutMs` (default 10 s) or when the stream ended first. */
  next(timeoutMs?: number): Promise<WatchEvent>;
  /** Resolves when the server ends the stream. */
  readonly ended: Promise<void>;
  close(): void;
}

export interface StartedApiServer {
  /** `https://127.0.0.1:<port>` */
  readonly url: string;
  readonly port: number;
  readonly certDir: string;
  /** `<certDir>/admin.platconfig`: a system:masters client certificate in kubeconfig layout. */
  readonly adminPlatconfig: string;
  /** The CA that signs the serving certificate (clients trust this). */
  readonly caFile: string;
  /** The cluster signing CA (`<certDir>/ca.crt`): issues CSR certificates, trusted for client auth. */
  readonly clusterCaFile: string;
  readonly dataDir: string | undefined;
  readonly platformDomain: string;
  readonly process: ChildProcess;
  /** Everything the server wrote to stdout and stderr so far. */
  logs(): string;
  /** One HTTPS request as the admin (or anonymous/token with the options). */
  request(method: string, path: string, opts?: RequestOptions): Promise<ApiResponse>;
  /** A TLS agent with the admin client certificate (for undici/fetch-based clients). */
  readonly adminAgent: Agent;
  /** The admin platconfig's PEMs (server CA, client certificate and key), for other clients. */
  readonly adminTls: { readonly ca: string; readonly cert: string; readonly key: string };
  /** Opens a watch stream as the admin; events are parsed line by line. `headers`: e.g. an Accept asking for Tables. */
  watch(path: string, headers?: Readonly<Record<string, string>>): Promise<WatchStream>;
  stop(): Promise<void>;
  /** SIGKILL without cleanup of the dirs (crash tests); resolves when the process is gone. */
  kill(): Promise<void>;
}

/**
 * Writes `file`: a platconfig for `api` that authenticates with a bearer token (a node's from
 * --token-auth-file, or a bootstrap token) as `user`, trusting the server's CA.
 */
export async function writeTokenPlatconfig(
  file: string,
  api: Pick<StartedApiServer, 'url' | 'caFile'>,
  token: string,
  user = 'node',
): Promise<string> {
  await writeFile(
    file,
    `apiVersion: v1\nkind: Config\nclusters:\n- name: local\n  cluster:\n    server: ${api.url}\n` +
      `    certificate-authority: ${api.caFile}\nusers:\n- name: ${user}\n  user:\n` +
      `    token: ${token}\ncontexts:\n- name: ${user}\n  context: {cluster: local, user: ${user}}\n` +
      `current-context: ${user}\n`,
  );
  return file;
}

/** The repository root (where package.json and bin/ are), from src or dist. */
export function repoRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    if (existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'bin', 'plat-apiserver')))
      return dir;
    dir = resolve(dir, '..');
  }
  throw new Error('cannot find the repository root (package.json with bin/plat-apiserver)');
}

function waitExit(child: ChildProcess, ms: number): Promise<boolean> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(true);
  return new Promise((resolveWait) => {
    const t = setTimeout(() => resolveWait(false), ms);
    child.once('exit', () => {
      clearTimeout(t);
      resolveWait(true);
    });
  });
}

export async function startApiServer(opts: StartApiServerOptions = {}): Promise<StartedApiServer> {
  const root = repoRoot();
  const bin = opts.bin ?? join(root, 'bin', 'plat-apiserver');
  // bin/plat-apiserver runs the bundle, so the tests run what ships.
  const bundle = join(dirname(bin), '..', 'dist', 'bundle', 'plat-apiserver', 'plat-apiserver.mjs');
  if (!existsSync(bundle)) throw new Error(`${bundle} is missing: run "npm run build" first`);
  const ownCertDir = opts.certDir === undefined;
  const certDir = opts.certDir ?? mkdtempSync(join(tmpdir(), 'plat-apiserver-'));
  const platformDomain = opts.platformDomain ?? 'platform.io';
  const args = [
    '--secure-port=0',
    '--bind-address=127.0.0.1',
    `--cert-dir=${certDir}`,
    `--platform-domain=${platformDomain}`,
  ];
  if (opts.dataDir !== undefined) args.push(`--data-dir=${opts.dataDir}`);
  args.push(...(opts.args ?? []));
  // TEST_APISERVER_ARGS (space-separated) runs every test's server with these flags too: the
  // whole suite once through the TLS front processes, say (`--tls-processes=2`).
  if (opts.suiteArgs !== false)
    args.push(...(process.env['TEST_APISERVER_ARGS'] ?? '').split(' ').filter((a) => a !== ''));
  const child = spawn(process.execPath, [...(opts.nodeArgs ?? []), bin, ...args], {
    cwd: root,
    env: { ...process.env, ...opts.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const cleanup = (): void => {
    if (ownCertDir) rmSync(certDir, { recursive: true, force: true });
  };
  // A test process that ends without calling stop(), or is killed, must not leave the server
  // running, nor its certificate directory behind.
  const forgetOnEnd = onProcessEnd(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    cleanup();
  });
  let output = '';
  child.stdout?.setEncoding('utf8').on('data', (d: string) => (output += d));
  child.stderr?.setEncoding('utf8').on('data', (d: string) => (output += d));
  const deadline = Date.now() + (opts.startTimeoutMs ?? 30_000);
  let url: string | undefined;
  try {
    while (url === undefined) {
      const m = /listening on (https:\/\/[^\s;]+)/.exec(output);
      if (m !== null) url = m[1];
      else if (child.exitCode !== null || child.signalCode !== null) {
        throw new Error(
          `plat-apiserver exited (${child.exitCode ?? child.signalCode}) before listening:\n${output}`,
        );
      } else if (Date.now() > deadline)
        throw new Error(`plat-apiserver did not start within the timeout:\n${output}`);
      else await new Promise((r) => setTimeout(r, 20));
    }
  } catch (err) {
    child.kill('SIGKILL');
    await waitExit(child, 5000);
    cleanup();
    forgetOnEnd();
    throw err;
  }
  const adminPlatconfig = join(certDir, 'admin.platconfig');
  const cfg = parseYaml(readFileSync(adminPlatconfig, 'utf8')) as {
    clusters: { cluster: { 'certificate-authority-data': string } }[];
    users: { user: { 'client-certificate-data': string; 'client-key-data': string } }[];
  };
  const ca = Buffer.from(
    cfg.clusters[0]?.cluster['certificate-authority-data'] ?? '',
    'base64',
  ).toString();
  const cert = Buffer.from(
    cfg.users[0]?.user['client-certificate-data'] ?? '',
    'base64',
  ).toString();
  const key = Buffer.from(cfg.users[0]?.user['client-key-data'] ?? '', 'base64').toString();
  const adminAgent = new Agent({ connect: { ca, cert, key }, pipelining: 0 });
  const plainAgent = new Agent({ connect: { ca }, pipelining: 0 });
  const port = Number(new URL(url).port);
  const caFile = existsSync(join(certDir, 'apiserver-ca.crt'))
    ? join(certDir, 'apiserver-ca.crt')
    : join(certDir, 'apiserver.crt');
  let stopped = false;
  const closeAgents = async (): Promise<void> => {
    await Promise.allSettled([adminAgent.close(), plainAgent.close()]);
  };
  const server: StartedApiServer = {
    url,
    port,
    certDir,
    adminPlatconfig,
    caFile,
    clusterCaFile: join(certDir, 'ca.crt'),
    dataDir: opts.dataDir,
    platformDomain,
    process: child,
    adminAgent,
    adminTls: { ca, cert, key },
    logs: () => output,
    request: async (method, path, ro = {}) => {
      const headers: Record<string, string> = { ...ro.headers };
      let body: string | undefined;
      if (ro.body !== undefined) {
        body = typeof ro.body === 'string' ? ro.body : JSON.stringify(ro.body);
        headers['content-type'] = ro.contentType ?? 'application/json';
      } else if (ro.contentType !== undefined) headers['content-type'] = ro.contentType;
      if (ro.token !== undefined) headers['authorization'] = `Bearer ${ro.token}`;
      const res = await undiciRequest(`${url}${path}`, {
        method: method as 'GET',
        headers,
        ...(body !== undefined ? { body } : {}),
        dispatcher: ro.anonymous === true || ro.token !== undefined ? plainAgent : adminAgent,
      });
      const text = await res.body.text();
      let json: Record<string, unknown> | undefined;
      try {
        const parsed: unknown = JSON.parse(text);
        if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed))
          json = parsed as Record<string, unknown>;
      } catch {
        json = undefined;
      }
      return { status: res.statusCode, headers: res.headers, text, json };
    },
    watch: async (path, headers = {}) => {
      const ac = new AbortController();
      const res = await undiciRequest(`${url}${path}`, {
        method: 'GET',
        headers,
        dispatcher: adminAgent,
        signal: ac.signal,
      });
      const queue: WatchEvent[] = [];
      const waiters: (() => void)[] = [];
      let done = false;
      let buf = '';
      const notify = (): void => {
        for (const w of waiters.splice(0)) w();
      };
      const ended = (async () => {
        try {
          for await (const chunk of res.body) {
            buf += (chunk as Buffer).toString('utf8');
            let i: number;
            while ((i = buf.indexOf('\n')) >= 0) {
              const line = buf.slice(0, i).trim();
              buf = buf.slice(i + 1);
              if (line !== '') queue.push(JSON.parse(line) as WatchEvent);
            }
            notify();
          }
        } catch {
          // aborted by close()
        } finally {
          done = true;
          notify();
        }
      })();
      return {
        status: res.statusCode,
        headers: res.headers,
        ended,
        close: () => ac.abort(),
        next: async (timeoutMs = 10_000) => {
          const deadline = Date.now() + timeoutMs;
          while (queue.length === 0) {
            if (done) throw new Error('watch stream ended');
            const left = deadline - Date.now();
            if (left <= 0) throw new Error(`no watch event within ${timeoutMs} ms`);
            await new Promise<void>((r) => {
              const t = setTimeout(r, left);
              waiters.push(() => {
                clearTimeout(t);
                r();
              });
            });
          }
          const ev = queue.shift();
          if (ev === undefined) throw new Error('watch stream ended');
          return ev;
        },
      };
    },
    stop: async () => {
      if (stopped) return;
      stopped = true;
      await closeAgents();
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        if (!(await waitExit(child, 5000))) {
          child.kill('SIGKILL');
          await waitExit(child, 5000);
        }
      }
      cleanup();
      forgetOnEnd();
    },
    kill: async () => {
      stopped = true;
      await closeAgents();
      child.kill('SIGKILL');
      await waitExit(child, 5000);
    },
  };
  return server;
}
