// The sync of a SQLite database's write-ahead log. The store runs SQLite in WAL mode with
// synchronous = NORMAL: a commit writes its frames to `<database>-wal` without flushing them.
// This flushes that file (fdatasync), which is what synchronous = FULL adds after every commit,
// but on a thread of libuv's pool instead of the event loop. SQLite keeps the same file while
// the database is open (a checkpoint rewinds or truncates it, never replaces it), so one
// descriptor serves for the life of the store. Its directory is synced once at the start (as
// atomic-file.ts syncs one: best effort), so a log file just created survives a power loss too.

import { closeSync, fdatasync, fdatasyncSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import { promisify } from 'node:util';
import { syncDirSync } from '../../common/util/atomic-file.js';
import type { LogSync } from './write-batch.js';

const fdatasyncAsync = promisify(fdatasync);

export interface WalSync extends LogSync {
  close(): void;
}

/** The log sync of the open database `dbFile` (its `-wal` file must exist: WAL mode is on). */
export function walSync(dbFile: string): WalSync {
  const fd = openSync(`${dbFile}-wal`, 'r');
  syncDirSync(dirname(dbFile));
  let open = true;
  return {
    sync: () => fdatasyncAsync(fd),
    syncNow: () => fdatasyncSync(fd),
    close: () => {
      if (open) closeSync(fd);
      open = false;
    },
  };
}
