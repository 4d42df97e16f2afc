// The file source: a directory of manifests (one file, one pod; dotfiles ignored; not recursive)
// or a single file. File-system notifications give low latency; a relist every
// `checkFrequencyMs` catches anything the notifications missed.
import { readFile, readdir, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { watch, type FSWatcher } from 'chokidar';
import type { Clock } from '../../common/util/clock.js';
import type { Logger } from '../../common/log/types.js';
import { userMessage } from '../../common/util/errors.js';
import { checkPod, decodeManifest } from '../pod/decode.js';
import { applyStaticPodDefaults } from '../pod/static.js';
import type { ValidatePodOptions } from '../pod/validate.js';
import type { Pod } from '../pod/types.js';
import { MAX_MANIFEST_BYTES, type PodSource, type SnapshotSink } from './types.js';

export interface FileSourceOptions {
  path: string;
  checkFrequencyMs: number;
  nodeName: string;
  platformDomain: string;
  validation: ValidatePodOptions;
  onSnapshot: SnapshotSink;
  logger: Logger;
  clock: Clock;
  /** Turn notifications off (tests of the relist path). Default true. */
  watch?: boolean;
}

interface CachedFile {
  mtimeMs: number;
  size: number;
  pods: Pod[];
}

export class FileSource implements PodSource {
  readonly name = 'file';
  private readonly opts: FileSourceOptions;
  private readonly cache = new Map<string, CachedFile>();
  /** Files whose latest content is invalid, with the stat key last logged (log once per change). */
  private readonly badFiles = new Map<string, string>();
  private missingLogged = false;
  private loop: Promise<void> = Promise.resolve();
  private watcher: FSWatcher | undefined;
  private listing: Promise<void> | undefined;
  private relistAgain = false;

  constructor(opts: FileSourceOptions) {
    this.opts = opts;
  }

  async start(signal: AbortSignal): Promise<void> {
    await this.relist();
    if (this.opts.watch !== false) this.startWatcher();
    this.loop = this.run(signal);
  }

  closed(): Promise<void> {
    return this.loop;
  }

  private startWatcher(): void {
    const w = watch(this.opts.path, {
      ignoreInitial: true,
      depth: 0,
      ignored: (p: string) => basename(p).startsWith('.') && p !== this.opts.path,
    });
    const onEvent = (): void => this.requestRelist();
    w.on('add', onEvent).on('change', onEvent).on('unlink', onEvent).on('addDir', onEvent).on('unlinkDir', onEvent);
    w.on('error', (err: unknown) => this.opts.logger.warn({ path: this.opts.path, err: userMessage(err) }, 'file source: notification error; relying on periodic relist'));
    this.watcher = w;
  }

  /** Coalesces bursts of notifications: one listing runs, at most one more is queued. */
  private requestRelist(): void {
    if (this.listing !== undefined) {
      this.relistAgain = true;
      return;
    }
    this.listing = this.relist()
      .catch((err: unknown) => this.opts.logger.error({ err: userMessage(err) }, 'file source: listing failed'))
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
      await this.watcher?.close();
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
        this.opts.logger.warn({ path: p }, 'file source: static pod path does not exist; no static pods from files until it appears');
        this.missingLogged = true;
      }
      return undefined;
    }
    this.missingLogged = false;
    if (!st.isDirectory()) return [p];
    const entries = await readdir(p, { withFileTypes: true });
    return entries
      .filter((e) => !e.name.startsWith('.') && (e.isFile() || e.isSymbolicLink()))
      .map((e) => join(p, e.name))
      .sort();
  }

  async relist(): Promise<void> {
    const files = (await this.listFiles()) ?? [];
    const pods: Pod[] = [];
    const live = new Set(files);
    for (const f of files) pods.push(...(await this.readFileCached(f)));
    for (const k of [...this.cache.keys()]) if (!live.has(k)) this.cache.delete(k);
    for (const k of [...this.badFiles.keys()]) if (!live.has(k)) this.badFiles.delete(k);
    this.opts.onSnapshot({ source: this.name, pods: dedupeByName(pods, this.opts.logger) });
  }

  private async readFileCached(file: string): Promise<Pod[]> {
    let st;
    try {
      st = await stat(file);
    } catch {
      return [];
    }
    if (!st.isFile()) return [];
    const cached = this.cache.get(file);
    if (cached && cached.mtimeMs === st.mtimeMs && cached.size === st.size) return cached.pods;
    const key = `${st.mtimeMs}:${st.size}`;
    try {
      if (st.size > MAX_MANIFEST_BYTES) {
        throw new Error(`${file}: file is ${st.size} bytes, over the 10 MB limit for a manifest`);
      }
      const text = await readFile(file, 'utf8');
      const pods = decodeManifest(text, file).map((d) => {
        const pod = applyStaticPodDefaults(d, {
          nodeName: this.opts.nodeName,
          sourceKey: `file:${file}`,
          sourceName: 'file',
          platformDomain: this.opts.platformDomain,
        });
        checkPod(pod, file, this.opts.validation);
        return pod;
      });
      this.cache.set(file, { mtimeMs: st.mtimeMs, size: st.size, pods });
      this.badFiles.delete(file);
      return pods;
    } catch (err) {
      if (this.badFiles.get(file) !== key) {
        this.badFiles.set(file, key);
        this.opts.logger.error(
          { file, err: userMessage(err) },
          cached ? 'file source: invalid manifest; keeping the pod from its previous valid content' : 'file source: invalid manifest skipped',
        );
      }
      return cached?.pods ?? [];
    }
  }
}

/** Two pods with one full name in a source: the first wins, as in the reference. */
export function dedupeByName(pods: Pod[], logger: Logger): Pod[] {
  const seen = new Set<string>();
  const out: Pod[] = [];
  for (const p of pods) {
    const k = `${p.metadata.namespace}/${p.metadata.name}`;
    if (seen.has(k)) {
      logger.warn({ pod: k }, 'pod source: duplicate pod name; keeping the first');
      continue;
    }
    seen.add(k);
    out.push(p);
  }
  return out;
}
