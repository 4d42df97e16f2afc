// The agent killed (SIGKILL) at each step of bootstrap: no kill leaves a dangling symlink or a
// half-written file, and the next start finishes the job.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { startBootstrapEnv, spawnAgent, listCsrs, opensslFacts, type BootstrapEnv } from '../../../helpers/bootstrap-env.js';
import { assertConsistent } from '../../../helpers/cert-dir-checks.js';

test('killed at each step of bootstrap (auto-approval): never a dangling symlink or half-written file', async (t) => {
  const env = await startBootstrapEnv();
  t.after(() => env.stop());
  const points = [/No valid private key/, /Waiting for client certificate to be issued/, /is issued/];
  for (const [i, point] of points.entries()) {
    const e: BootstrapEnv = { ...env, certDir: join(env.dir, `pki-${i}`), platconfig: join(env.dir, `platconfig-${i}`) };
    const first = await spawnAgent(e, [`--root-dir=${join(env.dir, `root-${i}`)}`], `node-${i}`);
    t.after(() => first.stop());
    await first.waitFor(point).catch(() => undefined); // the agent may finish first; that is fine too
    await first.kill9();
    await assertConsistent(e.certDir, e.platconfig);
    const second = await spawnAgent(e, [`--root-dir=${join(env.dir, `root-${i}`)}`], `node-${i}`);
    t.after(() => second.stop());
    await second.waitFor(/client certificate issued and platconfig written|Platconfig exists and is valid, skipping bootstrap/);
    await second.stop();
    await assertConsistent(e.certDir, e.platconfig);
    assert.match(opensslFacts(join(e.certDir, 'nodeagent-client-current.pem'), env.api.clusterCaFile).verify, /: OK$/);
  }
  // one CSR per node: restarts reused theirs
  const csrs = await listCsrs(env.api);
  const perNode = new Map<string, number>();
  for (const c of csrs) perNode.set(c.metadata.name, (perNode.get(c.metadata.name) ?? 0) + 1);
  assert.ok(csrs.length <= points.length, `at most one CSR per node, got ${csrs.length}`);
});
