// The manifest files of the file source, read once per change. Each file is known by its
// identity (device, inode, size, mtime) and its content hash: a relist of an unchanged file,
// valid or not, costs one lstat and one stat; a touched file with the same bytes costs a read and
// a hash, never a parse. Every skipped file is named once, with its reason, per change of that
// reason or content: empty, null, comments or separators only, not UTF-8, over the size limit,
// not a regular file, a dangling symbolic link, invalid.
import { createHash } from 'node:crypto';
import { lstat, open, readlink, stat } from 'node:fs/promises';
import { constants as fsConstants, type Stats } from 'node:fs';
import type { Logger } from '../../common/log/types.js';
import { ManifestError, userMessage } from '../../common/util/errors.js';
import { errnoCode } from '../../common/util/errno.js';
import {
  manifestText,
  staticPodsFromManifest,
  type StaticManifestOptions,
} from '../pod/static-manifest.js';
import type { Pod } from '../pod/types.js';
import { MANIFEST_LIMITS } from '../../common/util/parse-limits.js';

export interface ManifestFilesOptions {
  /** Everything but the source key, which is `file:<path>` per file. */
  manifest: (file: string) => StaticManifestOptions;
  logger: Logger;
}

interface Entry {
  identity: string;
  /** sha256 of the bytes last parsed; undefined when the file could not be read. */
  hash?: string;
  /** The pods of the last valid content (kept through an invalid modification). */
  pods: Pod[];
  /** Why the file is skipped now; undefined when its current content is valid. */
  skip?: string;
}

function kindOf(st: Stats): string {
  if (st.isDirectory()) return 'a directory (the file source does not recurse)';
  if (st.isFIFO()) return 'a FIFO';
  if (st.isSocket()) return 'a socket';
  if (st.isCharacterDevice() || st.isBlockDevice()) return 'a device';
  return 'not a regular file';
}

function identityOf(st: Stats): string {
  return `${st.dev}:${st.ino}:${st.size}:${st.mtimeMs}`;
}

/** At most MANIFEST_LIMITS.maxBytes + 1 bytes, whatever the file grew to since its stat. */
async function readBounded(file: string): Promise<Buffer> {
  // O_NONBLOCK: a file swapped for a FIFO after its stat must not hang the read
  const fh = await open(file, fsConstants.O_RDONLY | fsConstants.O_NONBLOCK);
  try {
    const buf = Buffer.alloc(MANIFEST_LIMITS.maxBytes + 1);
    let n = 0;
    for (;;) {
      const { bytesRead } = await fh.read(buf, n, buf.length - n, null);
      if (bytesRead === 0) break;
      n += bytesRead;
      if (n === buf.length) break;
    }
    return buf.subarray(0, n);
  } finally {
    await fh.close();
  }
}

const OVER_LIMIT = `is over the ${MANIFEST_LIMITS.maxBytes / (1024 * 1024)} MB limit for a manifest`;

export class ManifestFiles {
  private readonly opts: ManifestFilesOptions;
  private readonly entries = new Map<string, Entry>();
  /**
   * Work done so far (files read, contents parsed): what a relist of unchanged files must not add
   * to.
   */
  readonly work = { reads: 0, parses: 0 };

  constructor(opts: ManifestFilesOptions) {
    this.opts = opts;
  }

  /** Forget files no longer listed (their pods go with them). */
  retain(live: ReadonlySet<string>): void {
    for (const k of [...this.entries.keys()]) if (!live.has(k)) this.entries.delete(k);
  }

  /** The pods `file` gives now. */
  async read(file: string): Promise<Pod[]> {
    const prev = this.entries.get(file);
    const l = await lstat(file).catch(() => undefined);
    if (l === undefined) {
      this.entries.delete(file);
      return [];
    }
    let st = l;
    if (l.isSymbolicLink()) {
      const target = await stat(file).catch((err: unknown) =>
        err instanceof Error ? err : new Error(userMessage(err)),
      );
      if (target instanceof Error) {
        const to = await readlink(file).catch(() => '?');
        return this.skipped(
          file,
          prev,
          `link:${identityOf(l)}`,
          undefined,
          `${file}: a dangling symbolic link (to ${to}: ${errnoCode(target) ?? target.message})`,
          false,
        );
      }
      st = target;
    }
    const identity = identityOf(st);
    if (prev?.identity === identity) return prev.pods;
    if (!st.isFile())
      return this.skipped(
        file,
        prev,
        identity,
        undefined,
        `${file}: ${kindOf(st)}, not a manifest`,
        false,
      );
    if (st.size > MANIFEST_LIMITS.maxBytes)
      return this.skipped(
        file,
        prev,
        identity,
        undefined,
        `${file}: file is ${st.size} bytes, ${OVER_LIMIT}`,
        true,
      );
    let bytes: Buffer;
    try {
      this.work.reads++;
      bytes = await readBounded(file);
    } catch (err) {
      return this.skipped(
        file,
        prev,
        identity,
        undefined,
        `${file}: could not be read: ${userMessage(err)}`,
        true,
      );
    }
    if (bytes.length > MANIFEST_LIMITS.maxBytes)
      return this.skipped(
        file,
        prev,
        identity,
        undefined,
        `${file}: file grew while read; it ${OVER_LIMIT}`,
        true,
      );
    const hash = createHash('sha256').update(bytes).digest('hex');
    if (prev?.hash === hash) {
      // the same bytes (touched, or rewritten unchanged): the same answer, nothing new to say
      prev.identity = identity;
      return prev.pods;
    }
    this.work.parses++;
    try {
      const text = manifestText(bytes, file);
      if (text.trim() === '')
        throw new ManifestError(`${file}: the file is empty, no pod`, { file });
      const pods = staticPodsFromManifest(text, file, this.opts.manifest(file));
      this.entries.set(file, { identity, hash, pods });
      return pods;
    } catch (err) {
      return this.skipped(file, prev, identity, hash, userMessage(err), true);
    }
  }

  /**
   * Records a skipped file and logs it when its reason or content is new. `keepPods`: an invalid
   * edit keeps the pods of the last valid content; a file that is no manifest at all gives none.
   */
  private skipped(
    file: string,
    prev: Entry | undefined,
    identity: string,
    hash: string | undefined,
    reason: string,
    keepPods: boolean,
  ): Pod[] {
    const pods = keepPods ? (prev?.pods ?? []) : [];
    this.entries.set(file, {
      identity,
      pods,
      skip: reason,
      ...(hash !== undefined ? { hash } : {}),
    });
    if (prev?.skip !== reason || (hash !== undefined && prev.hash !== hash))
      this.logSkip(file, reason, pods.length > 0);
    return pods;
  }

  private logSkip(file: string, reason: string, kept: boolean): void {
    this.opts.logger.error(
      { file, err: reason },
      kept
        ? 'file source: invalid manifest; keeping the pod from its previous valid content'
        : 'file source: invalid manifest skipped',
    );
  }
}
