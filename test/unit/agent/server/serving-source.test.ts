import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile, rename } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { silentLogger } from '../../../../src/common/log/types.js';
import { pemPairSource } from '../../../../src/agent/server/serving-source.js';
import { FileServingSource } from '../../../../src/agent/certificate/serving.js';
import { systemClock } from '../../../../src/common/util/clock.js';
import { waitFor } from '../../../helpers/server-https-request.js';
import { makeCa, makeServing } from '../../../helpers/server-tls-certs.js';

test('--tls-cert-file/--tls-private-key-file are re-read when replaced; a missing file is one clear error', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'nodeagent-serving-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const ca = await makeCa('s');
  const a = await makeServing(ca, 'a');
  const b = await makeServing(ca, 'b');
  const certFile = join(dir, 'tls.crt');
  const keyFile = join(dir, 'tls.key');
  await writeFile(certFile, a.certPem);
  await writeFile(keyFile, a.keyPem);
  const src = await FileServingSource.open({
    certFile,
    keyFile,
    clock: systemClock,
    logger: silentLogger(),
    reloadIntervalMs: 50,
  });
  t.after(() => src.stop());
  assert.equal(src.current()?.certPem.trim(), a.certPem.trim());
  await writeFile(join(dir, 'k.tmp'), b.keyPem);
  await writeFile(join(dir, 'c.tmp'), b.certPem);
  await rename(join(dir, 'k.tmp'), keyFile);
  await rename(join(dir, 'c.tmp'), certFile);
  await waitFor(
    () => src.current()?.certPem.trim() === b.certPem.trim(),
    'the new certificate',
    5_000,
    20,
  );
  assert.equal(src.current()?.keyPem.trim(), b.keyPem.trim());
  const open = (o: { certFile: string; keyFile: string }): Promise<FileServingSource> =>
    FileServingSource.open({ ...o, clock: systemClock, logger: silentLogger() });
  await assert.rejects(
    open({ certFile: join(dir, 'nope.crt'), keyFile }),
    /cannot read the serving certificate \(--tls-cert-file .*nope\.crt, --tls-private-key-file .*tls\.key\): ENOENT/,
  );
  await writeFile(join(dir, 'other.key'), a.keyPem);
  await assert.rejects(
    open({ certFile, keyFile: join(dir, 'other.key') }),
    /the private key does not match the certificate/,
  );
});

test('a managed source falls back to the self-signed pair until its first certificate', () => {
  const state: { managed?: { certPem: string; keyPem: string } } = {};
  const src = pemPairSource(
    () => state.managed,
    () => ({ certPem: 'self', keyPem: 'self-key' }),
  );
  assert.equal(src.current().cert, 'self');
  state.managed = { certPem: 'issued', keyPem: 'issued-key' };
  assert.equal(src.current().cert, 'issued');
  assert.equal(
    src.current(),
    src.current(),
    'the same material object while unchanged (cached secure context)',
  );
  assert.throws(() => pemPairSource(() => undefined).current(), /no serving certificate yet/);
});
