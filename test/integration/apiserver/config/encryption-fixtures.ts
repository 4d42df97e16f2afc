// Shared pieces of the encryption integration tests. Not a test file.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openDatabase, prepareKept } from '../../../../src/apiserver/storage/sqlite-handles.js';
import { stringify } from 'yaml';

export const key = (n: number): string => Buffer.alloc(32, n).toString('base64');
export const MARK = 'PLAINTEXT-MARKER-7f3a';

export function encryptionFile(dir: string, name: string, resources: unknown[]): string {
  const p = join(dir, name);
  writeFileSync(
    p,
    stringify({
      apiVersion: 'apiserver.config.platform.io/v1',
      kind: 'EncryptionConfiguration',
      resources,
    }),
  );
  return p;
}

/** Every stored value of the database, as latin1 text. */
export function rawValues(dataDir: string): string[] {
  const db = openDatabase(join(dataDir, 'plat-apiserver.db'), {
    readonly: true,
    fileMustExist: true,
  });
  try {
    const tables = prepareKept(db, "SELECT name FROM sqlite_master WHERE type = 'table'").all() as {
      name: string;
    }[];
    const out: string[] = [];
    for (const { name } of tables) {
      for (const row of prepareKept(db, `SELECT * FROM "${name}"`).all() as Record<
        string,
        unknown
      >[]) {
        for (const v of Object.values(row)) {
          if (v instanceof Uint8Array) out.push(Buffer.from(v).toString('latin1'));
          else if (typeof v === 'string') out.push(v);
        }
      }
    }
    return out;
  } finally {
    db.close();
  }
}

export const event = (name: string) => ({
  apiVersion: 'v1',
  kind: 'Event',
  metadata: { name, namespace: 'enc' },
  involvedObject: { kind: 'Pod', namespace: 'enc', name: 'p' },
  reason: 'Test',
  message: MARK,
  type: 'Normal',
});
