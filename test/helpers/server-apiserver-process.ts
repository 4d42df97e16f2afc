// Starts the BUILT plat-apiserver (node bin/plat-apiserver) on 127.0.0.1 with a free port for the
// agent-server integration tests, and waits for its admin platconfig. Used until the shared
// test/helpers/apiserver.ts is available; same result shape.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';

export interface ApiServerProcess {
  url: string;
  certDir: string;
  adminPlatconfig: string;
  caFile: string;
  /** The cluster signing CA (client certificates it issued authenticate). */
  clusterCaFile: string;
  stderr: () => string;
  stop(): Promise<void>;
}

export async function startApiServerProcess(extraArgs: readonly string[] = [], timeoutMs = 30_000): Promise<ApiServerProcess> {
  const certDir = await mkdtemp(join(tmpdir(), 'nodeagent-apiserver-'));
  const child: ChildProcess = spawn(process.execPath, ['bin/plat-apiserver', '--secure-port=0', '--bind-address=127.0.0.1', `--cert-dir=${certDir}`, ...extraArgs], {
    cwd: process.cwd(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let err = '';
  child.stderr?.on('data', (d: Buffer) => {
    err += d.toString();
  });
  child.stdout?.on('data', () => undefined);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const t = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(t);
    }
    await rm(certDir, { recursive: true, force: true });
  };
  const adminPlatconfig = join(certDir, 'admin.platconfig');
  const deadline = Date.now() + timeoutMs;
  try {
    while (!existsSync(adminPlatconfig)) {
      if (child.exitCode !== null) throw new Error(`plat-apiserver exited with ${child.exitCode}: ${err}`);
      if (Date.now() > deadline) throw new Error(`plat-apiserver did not write ${adminPlatconfig} in time: ${err}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    let url: string | undefined;
    while (url === undefined) {
      try {
        const doc = parse(await readFile(adminPlatconfig, 'utf8')) as { clusters?: { cluster?: { server?: string } }[] };
        url = doc.clusters?.[0]?.cluster?.server;
      } catch {
        // written atomically, but retry a torn read anyway
      }
      if (url === undefined) await new Promise((r) => setTimeout(r, 50));
    }
    const caFile = existsSync(join(certDir, 'apiserver-ca.crt')) ? join(certDir, 'apiserver-ca.crt') : join(certDir, 'ca.crt');
    return { url, certDir, adminPlatconfig, caFile, clusterCaFile: join(certDir, 'ca.crt'), stderr: () => err, stop };
  } catch (e) {
    await stop();
    throw e;
  }
}
