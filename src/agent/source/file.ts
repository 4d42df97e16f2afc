// The file source: a directory of manifests (one file, one pod; dotfiles ignored; not recursive)
// or a single file. File-system notifications give low latency; a relist every
// `checkFrequencyMs` catches anything the notifications missed. The first list runs once the
// watcher is ready, so a manifest written while the source starts is seen by one or the other.
// One directory watch (fs.watch: one inotify watch on Linux) covers every manifest, as any event
// only asks for a relist: no watcher per file (at 1,000 static pods, 1,000 watchers and their
// state were most of the source's memory).
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from '../../common/log/types.js';
import { userMessage } from '../../common/util/errors.js';
import type { Pod } from '../pod/types.js';
import { ManifestFiles } from './manifest-files.js';
import { logDroppedFields } from '../pod/decode.js';
import { DirectoryWatch } from './directory-watch.js';
import type { PodSource, PolledSourceOptions } from './types.js';

export interface FileSourceOptions extends PolledSourceOptions {
  path: string;
  /** Turn notifications off (tests of the relist path). Default true. */
  watch?: boolean;
}

export class FileSource implements PodSource {
  readonly name = 'file';
  private readonly opts: FileSourceOptions;
  /** The manifest files read so far (its `work` counters show what relists cost). */
  readonly files: ManifestFiles;
  private readonly duplicatesNamed = new Set<string>();
  private missingLogged = false;
  private loop: Promise<void> = Promise.resolve();
  private watcher: DirectoryWatch | undefined;
  private listing: Promise<void> | undefined;
  private relistAgain = false;

  constructor(opts: FileSourceOptions) {
    this.opts = opts;
    this.files = new ManifestFiles({
      logger: opts.logger,
      manifest: (file) => ({
        defaults: {
          nodeName: opts.nodeName,
          sourceKey: `file:${file}`,
          sourceName: 'file',
          names: opts.names,
        },
        validation: opts.validation,
        droppedFields: logDroppedFields(opts.logger),
      }),
    });
  }

  async start(signal: AbortSignal): Promise<void> {
    if (this.opts.watch !== false) {
      this.watcher = new DirectoryWatch({
        path: this.opts.path,
        logger: this.opts.logger,
        onEvent: () => this.requestRelist(),
      });
      await this.watcher.arm();
    }
    this.requestRelist();
    while (this.listing !== undefined) await this.listing;
    this.loop = this.run(signal);
  }

  closed(): Promise<void> {
    return this.loop;
  }

  /** Coalesces bursts of notifications: one listing runs, at most one more is queued. */
  private requestRelist(): void {
    if (this.listing !== undefined) {
      this.relistAgain = true;
      return;
    }
    this.listing = this.relist()
      .catch((err: unknown) =>
        this.opts.logger.error({ err: userMessage(err) }, 'file source: listing failed'),
      )
      .finally(() => {
        this.listing = undefined;
        if (this.relistAgain) {
          this.relistAgain = false;
          this.requestRelist();
        }
      });
  }

  private async run(signal: AbortSignal): Promise<void> {
    try {
      while (!signal.aborted) {
        try {
          await this.opts.clock.sleep(this.opts.checkFrequencyMs, signal);
        } catch {
          break;
        }
        this.requestRelist();
      }
    } finally {
      this.watcher?.close();
      await this.listing;
    }
  }

  private async listFiles(): Promise<string[] | undefined> {
    const p = this.opts.path;
    let st;
    try {
      st = await stat(p);
    } catch {
      if (!this.missingLogged) {
        this.opts.logger.warn(
          { path: p },
          'file source: static pod path does not exist; no static pods from files until it appears',
        );
        this.missingLogged = true;
      }
      return undefined;
    }
    this.missingLogged = false;
    if (!st.isDirectory()) return [p];
    const entries = await readdir(p, { withFileTypes: true });
    return (
      entries
        // everything but dotfiles: what is not a manifest is named once by ManifestFiles
        .filter((e) => !e.name.startsWith('.'))
        .map((e) => join(p, e.name))
        .sort()
    );
  }

  async relist(): Promise<void> {
    // a path that appeared, or was replaced, since the watch was set is watched anew
    await this.watcher?.arm();
    const files = (await this.listFiles()) ?? [];
    const pods: Pod[] = [];
    const fileOf = new Map<Pod, string>();
    for (const f of files) {
      for (const p of await this.files.read(f)) {
        pods.push(p);
        fileOf.set(p, f);
      }
    }
    this.files.retain(new Set(files));
    this.opts.onSnapshot({
      source: this.name,
      pods: dedupeByName(pods, this.opts.logger, this.duplicatesNamed, (p) => fileOf.get(p)),
    });
  }
}

/**
 * Two pods with one full name in a source: the first wins, as in the reference. `warned` (kept by
 * the caller across relists) holds the duplicates already named, so each is named once, not at
 * every relist; it is pruned to the duplicates of this snapshot. `fileOf` gives the file a pod
 * came from (a file source): the warning then names the skipped file and the kept one.
 */
export function dedupeByName(
  pods: Pod[],
  logger: Logger,
  warned?: Set<string>,
  fileOf?: (p: Pod) => string | undefined,
): Pod[] {
  const first = new Map<string, Pod>();
  const out: Pod[] = [];
  const now = new Set<string>();
  for (const p of pods) {
    const k = `${p.metadata.namespace}/${p.metadata.name}`;
    const kept = first.get(k);
    if (kept !== undefined) {
      const key = `${k} ${p.metadata.uid}`;
      now.add(key);
      if (warned?.has(key) !== true) warnDuplicate(logger, k, fileOf?.(p), fileOf?.(kept));
      warned?.add(key);
      continue;
    }
    first.set(k, p);
    out.push(p);
  }
  if (warned) for (const key of [...warned]) if (!now.has(key)) warned.delete(key);
  return out;
}

function warnDuplicate(
  logger: Logger,
  pod: string,
  file: string | undefined,
  keptFile: string | undefined,
): void {
  if (file === undefined || keptFile === undefined) {
    logger.warn({ pod }, 'pod source: duplicate pod name; keeping the first');
    return;
  }
  logger.warn(
    { pod, file, keptFile },
    `pod source: duplicate pod name ${pod} in ${file}: skipped, keeping the first, from ` +
      keptFile,
  );
}
