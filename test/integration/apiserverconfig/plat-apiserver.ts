// Starts the BUILT plat-apiserver (node bin/plat-apiserver) on a free port for these tests, and
// makes requests as the admin (client certificate) or with a bearer token. Not a test file.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Agent, request } from 'undici';
import { loadConnection } from '../../../src/platconfig/platconfig.js';

const BIN = resolve(import.meta.dirname, '../../../../bin/plat-apiserver');

export interface Response {
  readonly status: number;
  readonly body: Record<string, unknown>;
}

export interface PlatApiserver {
  readonly url: string;
  readonly dir: string;
  readonly dataDir: string;
  readonly output: () => string;
  /** As the admin (system:masters client certificate), or with `token` and no certificate. */
  call(method: string, path: string, opts?: { body?: unknown; token?: string; anonymous?: boolean; headers?: Record<string, string> }): Promise<Response>;
  stop(): Promise<void>;
}

export function tempDir(prefix: string): { dir: string; cleanup(): void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Runs `plat-apiserver --validate-config ...` and returns its exit code and output. */
export function runValidate(args: readonly string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((res) => {
    const p = spawn(process.execPath, [BIN, '--validate-config', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    p.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    p.on('close', (code) => res({ code: code ?? -1, stdout, stderr }));
  });
}

/** Starts plat-apiserver with `args`; `dir` holds certs and data (reuse it to restart on the same data). */
export async function startPlatApiserver(dir: string, args: readonly string[], timeoutMs = 30_000): Promise<PlatApiserver> {
  const certDir = join(dir, 'certs');
  const dataDir = join(dir, 'data');
  const child: ChildProcess = spawn(process.execPath, [BIN, '--secure-port', '0', '--cert-dir', certDir, '--data-dir', dataDir, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (out += d.toString()));
  const url = await new Promise<string>((res, rej) => {
    const t = setTimeout(() => rej(new Error(`plat-apiserver did not start within ${timeoutMs}ms:\n${out}`)), timeoutMs);
    const check = (): void => {
      const m = /listening on (https:\/\/[0-9.]+:\d+)/.exec(out);
      if (m?.[1] !== undefined) {
        clearTimeout(t);
        res(m[1]);
      }
    };
    child.stdout?.on('data', check);
    child.stderr?.on('data', check);
    void exited.then((code) => {
      clearTimeout(t);
      rej(new Error(`plat-apiserver exited with ${String(code)} before listening:\n${out}`));
    });
  });
  const admin = await loadConnection(join(certDir, 'admin.platconfig'));
  const adminAgent = new Agent({ connect: { ca: admin.caPem ?? '', ...(admin.certPem === undefined ? {} : { cert: admin.certPem }), ...(admin.keyPem === undefined ? {} : { key: admin.keyPem }) } });
  const plainAgent = new Agent({ connect: { ca: admin.caPem ?? '' } });
  return {
    url,
    dir,
    dataDir,
    output: () => out,
    async call(method, path, o = {}) {
      const headers: Record<string, string> = { accept: 'application/json', ...(o.headers ?? {}) };
      if (o.body !== undefined) headers['content-type'] = 'application/json';
      if (o.token !== undefined) headers.authorization = `Bearer ${o.token}`;
      const res = await request(`${url}${path}`, {
        method: method as 'GET',
        headers,
        ...(o.body === undefined ? {} : { body: JSON.stringify(o.body) }),
        dispatcher: o.token !== undefined || o.anonymous === true ? plainAgent : adminAgent,
      });
      const text = await res.body.text();
      let body: Record<string, unknown> = {};
      try {
        body = JSON.parse(text) as Record<string, unknown>;
      } catch {
        body = { text };
      }
      return { status: res.statusCode, body };
    },
    async stop() {
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
        await exited;
        clearTimeout(killer);
      }
      await adminAgent.close();
      await plainAgent.close();
    },
  };
}
