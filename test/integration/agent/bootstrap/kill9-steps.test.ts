// The agent killed (SIGKILL) at each step of bootstrap: no kill leaves a dangling symlink or a
// half-written file, and the next start finishes the job.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import {
  startBootstrapEnv,
  spawnAgent,
  listCsrs,
  opensslFacts,
  type BootstrapEnv,
} from '../../../helpers/bootstrap-env.js';
import { assertConsistent } from '../../../helpers/cert-dir-checks.js';
import { x509lib } from '../../../../src/agent/certificate/csr.js';

test('killed at each step of bootstrap (auto-approval): never a dangling symlink or half-written file', async (t) => {
  const env = await startBootstrapEnv();
  t.after(() => env.stop());
  const points = [
    /No valid private key/,
    /Waiting for client certificate to be issued/,
    /is issued/,
  ];
  for (const [i, point] of points.entries()) {
    const e: BootstrapEnv = {
      ...env,
      certDir: join(env.dir, `pki-${i}`),
      platconfig: join(env.dir, `platconfig-${i}`),
    };
    const first = await spawnAgent(e, [`--root-dir=${join(env.dir, `root-${i}`)}`], `node-${i}`);
    t.after(() => first.stop());
    // The log lines come in order and waitFor reads all output so far, so each point is reached
    // (the agent may have moved past it when the kill lands; the checks below hold either way).
    await first.waitFor(point);
    await first.kill9();
    await assertConsistent(e.certDir, e.platconfig, { afterKill: true });
    const second = await spawnAgent(e, [`--root-dir=${join(env.dir, `root-${i}`)}`], `node-${i}`);
    t.after(() => second.stop());
    await second.waitFor(
      /client certificate issued and platconfig written|Platconfig exists and is valid, skipping bootstrap/,
    );
    await second.stop();
    // strict again: the next start removed any temp file the kill left
    await assertConsistent(e.certDir, e.platconfig);
    assert.match(
      opensslFacts(join(e.certDir, 'nodeagent-client-current.pem'), env.api.clusterCaFile).verify,
      /: OK$/,
    );
  }
  // One CSR per node: the restart after each kill reused the key (and so the CSR) of the first start.
  const { Pkcs10CertificateRequest } = await x509lib();
  const perNode = new Map<string, number>();
  for (const c of await listCsrs(env.api)) {
    const cn =
      /CN=([^,]+)/.exec(
        new Pkcs10CertificateRequest(Buffer.from(c.spec.request, 'base64').toString('utf8'))
          .subject,
      )?.[1] ?? '?';
    perNode.set(cn, (perNode.get(cn) ?? 0) + 1);
  }
  assert.deepEqual(
    Object.fromEntries(perNode),
    Object.fromEntries(points.map((_, i) => [`system:node:node-${i}`, 1])),
  );
});
