// The server benchmark's certificates written to a temporary directory: a client CA file, a
// serving pair and a client certificate (alice). Not a test file.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeCa, makeLeaf, makeServing, type TestCa, type TestLeaf } from './server-tls-certs.js';

export interface ServerCertBundle {
  ca: TestCa;
  caFile: string;
  serving: TestLeaf;
  alice: TestLeaf;
  cleanup(): Promise<void>;
}

export async function makeServerCerts(): Promise<ServerCertBundle> {
  const dir = await mkdtemp(join(tmpdir(), 'nodeagent-bench-certs-'));
  const ca = await makeCa('bench-client-ca');
  const caFile = join(dir, 'client-ca.pem');
  await writeFile(caFile, ca.certPem);
  return {
    ca,
    caFile,
    serving: await makeServing(ca),
    alice: await makeLeaf(ca, { subject: 'CN=alice, O=devs', usage: 'client' }),
    cleanup: () => rm(dir, { recursive: true, force: true }),
  };
}
