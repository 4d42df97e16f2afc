// The agent trusts the host's CA store as OpenSSL reads it (bin/nodeagent runs node with
// --use-openssl-ca: SSL_CERT_FILE and SSL_CERT_DIR, else OpenSSL's own default file and
// directory), as the reference kubelet trusts the system's roots, not the list built into node:
// an https:// manifest URL whose server a private CA signed is read when that CA is in the file
// SSL_CERT_FILE names, and refused, with the reason logged, when it is not.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NO_CGROUPS_ARGS } from '../../../helpers/agent-cgroups.js';
import { testPodLogsArgs } from '../../../helpers/agent-pod-logs.js';
import { launcherEnv } from '../../../helpers/launcher.js';
import { stopChild } from '../../../helpers/processes.js';
import { repoRoot } from '../../../helpers/apiserver.js';
import { TestCa } from '../../../helpers/test-ca.js';

interface Served {
  server: Server;
  url: string;
  /** GETs that reached the handler (a TLS handshake the agent accepted). */
  gets: () => number;
}

async function manifestServer(dir: string): Promise<Served & { caFile: string }> {
  const ca = await TestCa.create();
  const { key, cert } = await ca.localServerPair();
  const caFile = join(dir, 'private-ca.pem');
  writeFileSync(caFile, ca.certPem);
  let gets = 0;
  const server = createServer({ key: key.pem, cert }, (_req, res) => {
    gets++;
    res.end('');
  });
  // a refused handshake is the client's doing: nothing to report here
  server.on('tlsClientError', () => undefined);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  return { server, url: `https://127.0.0.1:${port}/pods.yaml`, gets: () => gets, caFile };
}

/** Runs a standalone agent reading `url` until `done(output)`; its output. */
async function runAgent(
  dir: string,
  url: string,
  env: NodeJS.ProcessEnv,
  done: (output: string) => boolean,
): Promise<string> {
  mkdirSync(dir, { recursive: true });
  const child = spawn(
    join(repoRoot(), 'bin', 'nodeagent'),
    [
      '--container-runtime-endpoint=process://',
      `--root-dir=${join(dir, 'root')}`,
      `--cert-dir=${join(dir, 'pki')}`,
      '--hostname-override=trust-node',
      `--manifest-url=${url}`,
      '--fail-cgroupv1=false',
      ...NO_CGROUPS_ARGS,
      '--enable-server=false',
      '--read-only-port=0',
      '--healthz-port=0',
      ...testPodLogsArgs(dir),
    ],
    { stdio: ['ignore', 'pipe', 'pipe'], env: launcherEnv(env) },
  );
  let out = '';
  child.stdout.on('data', (b: Buffer) => (out += b.toString()));
  child.stderr.on('data', (b: Buffer) => (out += b.toString()));
  try {
    const t0 = Date.now();
    while (!done(out)) {
      if (child.exitCode !== null) throw new Error(`the agent exited:\n${out}`);
      if (Date.now() - t0 > 60_000) throw new Error(`nothing in 60 s:\n${out}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    return out;
  } finally {
    await stopChild(child);
  }
}

test("bin/nodeagent trusts the CAs of SSL_CERT_FILE (OpenSSL's store), and refuses a server no CA there signed", async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'system-trust-'));
  const served = await manifestServer(dir);
  t.after(() => {
    served.server.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const noDir = join(dir, 'no-certs');
  mkdirSync(noDir);
  const base = { PATH: process.env['PATH'] ?? '', SSL_CERT_DIR: noDir };
  // The private CA in the store: the manifest is read.
  await runAgent(
    join(dir, 'trusting'),
    served.url,
    { ...base, SSL_CERT_FILE: served.caFile },
    () => served.gets() > 0,
  );
  // An empty store (neither node's built-in roots nor the private CA): refused, and said.
  const empty = join(dir, 'empty.pem');
  writeFileSync(empty, '');
  const before = served.gets();
  const out = await runAgent(
    join(dir, 'refusing'),
    served.url,
    { ...base, SSL_CERT_FILE: empty },
    (o) => o.includes('http source: could not read pods from the manifest URL'),
  );
  assert.match(
    out,
    /http source: could not read pods from the manifest URL; keeping the current pods .*err="unable to verify the first certificate(;|")/,
  );
  assert.equal(served.gets(), before, 'no GET reached the server through a refused handshake');
});
