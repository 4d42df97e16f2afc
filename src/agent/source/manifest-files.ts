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

const LIMIT_MB = MANIFEST_LIMITS.maxBytes / (1024 * 1024);
const OVER_LIMIT = `is over the ${LIMIT_MB} MB limit for a manifest`;

/**
 * Why a file gives no pods now, and whether the pods of its last valid content stay (an invalid
 * edit keeps them; a file that is no manifest at all gives none).
 */
interface Skip {
  reason: string;
  keepPods: boolean;
}

/**
 * The file's stat through a symbolic link; a dangling link is skipped under the link's own
 * identity.
 */
async function statThroughLink(
  file: string,
): Promise<{ st: Stats } | { identity: string; skip: Skip } | undefined> {
  const l = await lstat(file).catch(() => undefined);
  if (l === undefined) return undefined;
  if (!l.isSymbolicLink()) return { st: l };
  const target = await stat(file).catch((err: unknown) =>
    err instanceof Error ? err : new Error(userMessage(err)),
  );
  if (!(target instanceof Error)) return { st: target };
  const to = await readlink(file).catch(() => '?');
  const cause = errnoCode(target) ?? target.message;
  const reason = `${file}: a dangling symbolic link (to ${to}: ${cause})`;
  return { identity: `link:${identityOf(l)}`, skip: { reason, keepPods: false } };
}

/** Why a file of this stat is not read at all, if it is not. */
function notReadable(file: string, st: Stats): Skip | undefined {
  if (!st.isFile()) return { reason: `${file}: ${kindOf(st)}, not a manifest`, keepPods: false };
  if (st.size > MANIFEST_LIMITS.maxBytes)
    return { reason: `${file}: file is ${st.size} bytes, ${OVER_LIMIT}`, keepPods: true };
  return undefined;
}

/** The file's bytes, or why they cannot be had (unreadable, or grown past the limit). */
async function readManifest(file: string): Promise<Buffer | Skip> {
  let bytes: Buffer;
  try {
    bytes = await readBounded(file);
  } catch (err) {
    return { reason: `${file}: could not be read: ${userMessage(err)}`, keepPods: true };
  }
  if (bytes.length > MANIFEST_LIMITS.maxBytes)
    return { reason: `${file}: file grew while read; it ${OVER_LIMIT}`, keepPods: true };
  return bytes;
}

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
    const found = await statThroughLink(file);
    if (found === undefined) {
      this.entries.delete(file);
      return [];
    }
    if ('skip' in found) return this.skipped(file, prev, found.identity, undefined, found.skip);
    const identity = identityOf(found.st);
    if (prev?.identity === identity) return prev.pods;
    const unreadable = notReadable(file, found.st);
    if (unreadable !== undefined) return this.skipped(file, prev, identity, undefined, unreadable);
    this.work.reads++;
    const bytes = await readManifest(file);
    if (!Buffer.isBuffer(bytes)) return this.skipped(file, prev, identity, undefined, bytes);
    const hash = createHash('sha256').update(bytes).digest('hex');
    if (prev?.hash === hash) {
      // the same bytes (touched, or rewritten unchanged): the same answer, nothing new to say
      prev.identity = identity;
      return prev.pods;
    }
    return this.parse(file, prev, { identity, hash }, bytes);
  }

  private parse(
    file: string,
    prev: Entry | undefined,
    at: { identity: string; hash: string },
    bytes: Buffer,
  ): Pod[] {
    this.work.parses++;
    try {
      const text = manifestText(bytes, file);
      if (text.trim() === '')
        throw new ManifestError(`${file}: the file is empty, no pod`, { file });
      const pods = staticPodsFromManifest(text, file, this.opts.manifest(file));
      this.entries.set(file, { ...at, pods });
      return pods;
    } catch (err) {
      return this.skipped(file, prev, at.identity, at.hash, {
        reason: userMessage(err),
        keepPods: true,
      });
    }
  }

  /** Records a skipped file and logs it when its reason or content is new. */
  private skipped(
    file: string,
    prev: Entry | undefined,
    identity: string,
    hash: string | undefined,
    { reason, keepPods }: Skip,
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
