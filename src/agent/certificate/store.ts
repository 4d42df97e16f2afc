// The certificate file store (the reference's layout):
//   <dir>/<prefix>-YYYY-MM-DD-HH-MM-SS.pem   certificate chain then key, mode 0600
//   <dir>/<prefix>-current.pem               symlink with an absolute target
// The symlink is swapped atomically: a `<prefix>-updated.pem` symlink is made, then renamed over
// the current one, so a crash never leaves it dangling or pointing at a half-written file (the
// pem file itself is written atomically first).
import {
  mkdir,
  readFile,
  readlink,
  rename,
  symlink,
  unlink,
  access,
  constants,
  writeFile,
  stat,
} from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { CertificateError, userMessage } from '../../common/util/errors.js';
import type { Clock } from '../../common/util/clock.js';
import { silentLogger, type Logger } from '../../common/log/types.js';
import { writeFileAtomic, syncDir, removeStaleTempFiles } from '../../common/util/atomic-file.js';
import { parseCertificate, splitCertificates, type CertificateInfo } from './cert-info.js';
import { parsePrivateKey, publicKeyDer, type PrivateKey } from './keys.js';
import { errnoCode } from '../../common/util/errno.js';

export interface CertificatePair {
  /** The chain, leaf first. */
  certPem: string;
  keyPem: string;
  info: CertificateInfo;
  key: PrivateKey;
  /** Where it was loaded from. */
  file: string;
}

export interface CertificateStore {
  /** The current pair, or undefined when there is none. Throws on a broken file. */
  current(): Promise<CertificatePair | undefined>;
  /** Stores a newly issued chain with its key and makes it current. */
  update(chainPem: string, keyPem: string): Promise<CertificatePair>;
}

export interface FileCertificateStoreOptions {
  certDir: string;
  /** 'nodeagent-client' or 'nodeagent-server'. */
  prefix: string;
  /** Explicit files (e.g. --tls-cert-file/--tls-private-key-file) tried first. */
  certFile?: string;
  keyFile?: string;
  clock: Clock;
  logger?: Logger;
}

/** Builds a pair from PEM text, checking that the key matches the certificate. */
export function pairFromPem(certPem: string, keyPem: string, file: string): CertificatePair {
  const chain = splitCertificates(certPem);
  if (chain.length === 0) throw new CertificateError(`${file} holds no certificate`, { file });
  const info = parseCertificate(certPem, file);
  const key = parsePrivateKey(keyPem, file);
  if (!publicKeyDer(key).equals(info.publicKeyDer))
    throw new CertificateError(`${file}: the private key does not match the certificate`, { file });
  return { certPem: chain.join(''), keyPem: key.pem, info, key, file };
}

export function timestampName(d: Date): string {
  const p = (n: number): string => String(n).padStart(2, '0');
  return (
    `${d.getUTCFullYear()}-${p(d.getUTCMonth() + 1)}-${p(d.getUTCDate())}-` +
    `${p(d.getUTCHours())}-${p(d.getUTCMinutes())}-${p(d.getUTCSeconds())}`
  );
}

/**
 * Creates the cert dir (0700) if needed and proves it writable, so an unwritable directory is
 * reported before any key is generated or CSR sent.
 */
export async function ensureWritableDir(dir: string, what = 'cert dir'): Promise<void> {
  try {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const probe = join(dir, `.write-probe-${process.pid}`);
    await writeFile(probe, '', { mode: 0o600 });
    await unlink(probe);
    // Temp files of a writer killed mid-write (the content never replaced anything).
    await removeStaleTempFiles(dir);
  } catch (err) {
    const code = errnoCode(err);
    throw new CertificateError(
      `${what} ${dir} is not writable (${code ?? userMessage(err)}); fix its ` +
        `permissions or choose another directory with --cert-dir`,
      { file: dir, cause: err },
    );
  }
}

export class FileCertificateStore implements CertificateStore {
  readonly certDir: string;
  readonly prefix: string;
  private readonly certFile: string | undefined;
  private readonly keyFile: string | undefined;
  private readonly clock: Clock;
  private readonly logger: Logger;

  constructor(options: FileCertificateStoreOptions) {
    this.certDir = resolve(options.certDir);
    this.prefix = options.prefix;
    this.certFile = options.certFile;
    this.keyFile = options.keyFile;
    this.clock = options.clock;
    this.logger = options.logger ?? silentLogger();
  }

  /** The symlink path, e.g. <dir>/nodeagent-client-current.pem. */
  get currentPath(): string {
    return join(this.certDir, `${this.prefix}-current.pem`);
  }

  /** The current symlink first (it holds every rotated pair), then the explicit files. */
  async current(): Promise<CertificatePair | undefined> {
    const fromLink = await this.currentFromLink();
    if (fromLink) return fromLink;
    if (
      this.certFile &&
      this.keyFile &&
      (await exists(this.certFile)) &&
      (await exists(this.keyFile))
    ) {
      return pairFromPem(
        await readFile(this.certFile, 'utf8'),
        await readFile(this.keyFile, 'utf8'),
        this.certFile,
      );
    }
    return undefined;
  }

  private async currentFromLink(): Promise<CertificatePair | undefined> {
    let text: string;
    try {
      text = await readFile(this.currentPath, 'utf8');
    } catch (err) {
      const code = errnoCode(err);
      if (code === 'ENOENT') {
        if (await isDanglingLink(this.currentPath))
          this.logger.warn(
            { file: this.currentPath },
            'current certificate symlink points at a missing file; ignoring it',
          );
        return undefined;
      }
      throw new CertificateError(`cannot read ${this.currentPath}: ${code ?? String(err)}`, {
        file: this.currentPath,
        cause: err,
      });
    }
    return pairFromPem(text, text, this.currentPath);
  }

  async update(chainPem: string, keyPem: string): Promise<CertificatePair> {
    const certs = splitCertificates(chainPem);
    const pair = pairFromPem(certs.join(''), keyPem, 'issued certificate');
    await mkdir(this.certDir, { recursive: true, mode: 0o700 });
    const file = join(this.certDir, `${this.prefix}-${timestampName(this.clock.now())}.pem`);
    await writeFileAtomic(file, pair.certPem + pair.keyPem, { mode: 0o600 });
    const updated = join(this.certDir, `${this.prefix}-updated.pem`);
    await unlink(updated).catch((err: unknown) => {
      if (!(err instanceof Error && 'code' in err && err.code === 'ENOENT')) throw err;
    });
    await symlink(file, updated);
    await rename(updated, this.currentPath);
    await syncDir(this.certDir);
    return { ...pair, file };
  }

  /** The target of the current symlink (for tests and diagnostics). */
  async currentTarget(): Promise<string | undefined> {
    try {
      return await readlink(this.currentPath);
    } catch {
      return undefined;
    }
  }
}

async function exists(p: string): Promise<boolean> {
  try {
    await access(p, constants.R_OK);
    return true;
  } catch {
    return false;
  }
}

async function isDanglingLink(p: string): Promise<boolean> {
  try {
    await readlink(p);
    await stat(p);
    return false;
  } catch (err) {
    return (
      errnoCode(err) === 'ENOENT' &&
      (await readlink(p).then(
        () => true,
        () => false,
      ))
    );
  }
}
