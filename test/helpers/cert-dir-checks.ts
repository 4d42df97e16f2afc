// Checks that a cert dir and platconfig were left consistent (used after SIGKILLs).
import assert from 'node:assert/strict';
import { readdir, readFile, readlink, lstat, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { pairFromPem } from '../../src/agent/certificate/store.js';
import { loadConnection } from '../../src/common/platconfig/platconfig.js';

/** The atomic writer's temp names (src/common/util/atomic-file.ts): `.<name>.<12 hex>.tmp`. */
const ATOMIC_TEMP = /^\..+\.[0-9a-f]{12}\.tmp$/;

/**
 * Every file in the cert dir is whole; the symlink, if any, resolves; the platconfig, if any,
 * loads. Right after a SIGKILL (`afterKill`), the atomic writer's temp file may be there (the kill
 * can land between its write and its rename; nothing reads it, and the next start removes it);
 * any other time none may be.
 */
export async function assertConsistent(
  certDir: string,
  platconfig: string,
  opts: { afterKill?: boolean } = {},
): Promise<void> {
  let names: string[] = [];
  try {
    names = await readdir(certDir);
  } catch {
    return; // not created yet
  }
  for (const n of names) {
    const p = join(certDir, n);
    if (opts.afterKill === true && ATOMIC_TEMP.test(n)) continue;
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
    if (n === 'nodeagent-client.key.tmp')
      assert.match(await readFile(p, 'utf8'), /-----END PRIVATE KEY-----\n$/);
  }
  const hasConfig = await stat(platconfig).then(
    () => true,
    () => false,
  );
  if (hasConfig) {
    const conn = await loadConnection(platconfig);
    assert.ok(conn.certPem && conn.keyPem, 'platconfig points at a whole certificate and key');
  }
}
