// The file source's notifications: one fs.watch of the manifest directory (of the file's directory
// when the path is one file), whatever the number of manifests. An event only asks for a relist,
// so what changed does not matter beyond skipping dotfiles (editors' swap files) and, for a single
// file, its neighbours. The watch follows the path: `arm()` (at start and before every relist)
// sets it when the path appears and sets it anew when the directory was replaced (another one);
// a watch that fails says so once and the periodic relist carries on alone.
import { watch, type FSWatcher } from 'node:fs';
import { stat } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import type { Logger } from '../../common/log/types.js';
import { userMessage } from '../../common/util/errors.js';

export interface DirectoryWatchOptions {
  /** The static pod path: a directory of manifests or one manifest file. */
  readonly path: string;
  readonly logger: Logger;
  /** Something in the watched directory changed: the entry's name when the kernel gave one. */
  readonly onEvent: (file: string | null) => void;
}

export class DirectoryWatch {
  private watcher: FSWatcher | undefined;
  /**
   * The watched directory's device, inode and birth time: a directory replaced under the path is
   * another, though its inode number is often the one just freed.
   */
  private watched: string | undefined;
  private warned = false;
  private closed = false;

  constructor(private readonly o: DirectoryWatchOptions) {}

  /** Watches the path's directory if it exists and is not watched yet (or was replaced). */
  async arm(): Promise<void> {
    const st = await stat(this.o.path).catch(() => undefined);
    if (this.closed) return;
    if (st === undefined) {
      this.stop();
      return;
    }
    const single = !st.isDirectory();
    const dir = single ? dirname(this.o.path) : this.o.path;
    const id = single ? `file:${dir}` : `${st.dev}:${st.ino}:${st.birthtimeMs}`;
    if (this.watcher !== undefined && this.watched === id) return;
    this.stop();
    const name = basename(this.o.path);
    try {
      const w = watch(dir, (_event, file) => {
        if (file === null || (single ? file === name : !file.startsWith('.'))) this.o.onEvent(file);
      });
      w.on('error', (err: unknown) => {
        this.warn(err);
        if (this.watcher === w) this.stop();
      });
      this.watcher = w;
      this.watched = id;
    } catch (err) {
      this.warn(err);
    }
  }

  close(): void {
    this.closed = true;
    this.stop();
  }

  private stop(): void {
    this.watcher?.close();
    this.watcher = undefined;
    this.watched = undefined;
  }

  private warn(err: unknown): void {
    if (this.warned) return;
    this.warned = true;
    this.o.logger.warn(
      { path: this.o.path, err: userMessage(err) },
      'file source: notification error; relying on periodic relist',
    );
  }
}
