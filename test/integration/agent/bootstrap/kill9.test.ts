// The agent killed (SIGKILL) while waiting for approval: the next start reuses the same key and
// CSR and leaves nothing half-written (kill9-steps.test.ts kills it at every other step).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createPublicKey } from 'node:crypto';
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import {
  startBootstrapEnv,
  spawnAgent,
  listCsrs,
  decideCsr,
  opensslFacts,
} from '../../../helpers/bootstrap-env.js';
import { assertConsistent } from '../../../helpers/cert-dir-checks.js';

const pub = (pem: string): string =>
  createPublicKey(pem).export({ type: 'spki', format: 'pem' }).toString();

test('killed while waiting for approval: the restart reuses the key and the CSR', async (t) => {
  const env = await startBootstrapEnv({ args: ['--controllers=csrsigning'] });
  t.after(() => env.stop());
  const a1 = await spawnAgent(env);
  t.after(() => a1.stop());
  const name =
    (await a1.waitFor(/approve it with: kubectl certificate approve (node-csr-\S+)/))[1] ?? '';
  await a1.kill9();
  assert.deepEqual(await readdir(env.certDir), ['nodeagent-client.key.tmp']);
  assert.equal((await stat(join(env.certDir, 'nodeagent-client.key.tmp'))).mode & 0o777, 0o600);
  const tmpKey = await readFile(join(env.certDir, 'nodeagent-client.key.tmp'), 'utf8');
  await assertConsistent(env.certDir, env.platconfig);

  const a2 = await spawnAgent(env);
  t.after(() => a2.stop());
  await a2.waitFor(new RegExp(`reusing existing certificate signing request ${name}`));
  await decideCsr(env.api, name, 'Approved', 'TestApproved', 'approved after a crash');
  await a2.waitFor(/client certificate issued and platconfig written/);
  const csrs = await listCsrs(env.api);
  assert.deepEqual(
    csrs.map((c) => c.metadata.name),
    [name],
  );
  const current = join(env.certDir, 'nodeagent-client-current.pem');
  assert.equal(
    pub(await readFile(current, 'utf8')),
    pub(tmpKey),
    'the certificate is for the key made before the crash',
  );
  assert.ok(opensslFacts(current, env.api.clusterCaFile).keyMatches);
  assert.ok(!(await readdir(env.certDir)).includes('nodeagent-client.key.tmp'));
  await a2.stop();
  await assertConsistent(env.certDir, env.platconfig);
});
