// Checks that a cert dir and platconfig were left consistent (used after SIGKILLs).
import assert from 'node:assert/strict';
import { readdir, readFile, readlink, lstat, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { pairFromPem } from '../../src/agent/certificate/store.js';
import { loadConnection } from '../../src/common/platconfig/platconfig.js';

/** Every file in the cert dir is whole; the symlink, if any, resolves; the platconfig, if any, loads. */
export async function assertConsistent(certDir: string, platconfig: string): Promise<void> {
  let names: string[] = [];
  try {
    names = await readdir(certDir);
  } catch {
    return; // not created yet
  }
  for (const n of names) {
    const p = join(certDir, n);
    assert.ok(!n.startsWith('.'), `a temporary file was left behind: ${n}`);
    const st = await lstat(p);
    if (st.isSymbolicLink()) {
      const target = await readlink(p);
      assert.ok(target.startsWith('/'), 'symlink target is absolute');
      await stat(p).catch(() => assert.fail(`dangling symlink ${n} -> ${target}`));
    }
    if (n.endsWith('.pem')) {
      const text = await readFile(p, 'utf8');
      pairFromPem(text, text, p); // throws on a half-written file
      assert.equal((await stat(p)).mode & 0o777, 0o600);
    }
    if (n === 'nodeagent-client.key.tmp') assert.match(await readFile(p, 'utf8'), /-----END PRIVATE KEY-----\n$/);
  }
  const hasConfig = await stat(platconfig).then(() => true, () => false);
  if (hasConfig) {
    const conn = await loadConnection(platconfig);
    assert.ok(conn.certPem && conn.keyPem, 'platconfig points at a whole certificate and key');
  }
}

