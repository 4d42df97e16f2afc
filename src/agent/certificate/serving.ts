// The serving certificate the agent's HTTPS servers present, asked for at each handshake:
//   - --tls-cert-file/--tls-private-key-file when given (re-read when the files change);
//   - else, with serving-certificate rotation (serverTLSBootstrap + RotatePlatletServerCertificate),
//     a CertificateManager with the platlet-serving signer; until it has a certificate,
//     handshakes fail with "no serving certificate available for the nodeagent";
//   - else a self-signed pair in the cert dir.
// An HTTPS server uses it as:  https.createServer({ SNICallback: source.sniCallback, ... })
import { createSecureContext, type SecureContext } from 'node:tls';
import { readFile, stat } from 'node:fs/promises';
import type { Clock } from '../../common/util/clock.js';
import { runEvery } from '../../common/util/every.js';
import type { Logger } from '../../common/log/types.js';
import { CertificateError, userMessage } from '../../common/util/errors.js';
import type { CertificateManager } from './manager.js';
import { pairFromPem, type CertificatePair } from './store.js';

export const NO_SERVING_CERTIFICATE = 'no serving certificate available for the nodeagent';

export interface ServingCertificate {
  certPem: string;
  keyPem: string;
}

export interface ServingCertificateSource {
  /** The certificate to present now, or undefined when there is none yet. */
  current(): ServingCertificate | undefined;
  /** A TLS context for the current certificate (cached until it changes). */
  secureContext(): SecureContext | undefined;
  /** For `tls`/`https` servers' SNICallback: asks for the current certificate at each handshake. */
  readonly sniCallback: (servername: string, cb: (err: Error | null, ctx?: SecureContext) => void) => void;
  /** Seconds left on the current certificate (metrics). */
  ttlSeconds(): number | undefined;
  stop(): Promise<void>;
}

/** Shared part: caches a SecureContext per certificate. */
abstract class BaseSource implements ServingCertificateSource {
  private cachedFor: CertificatePair | undefined;
  private cached: SecureContext | undefined;
  constructor(protected readonly clock: Clock) {}
  protected abstract pair(): CertificatePair | undefined;

  current(): ServingCertificate | undefined {
    const p = this.pair();
    return p ? { certPem: p.certPem, keyPem: p.keyPem } : undefined;
  }

  secureContext(): SecureContext | undefined {
    const p = this.pair();
    if (!p) return undefined;
    if (p !== this.cachedFor) {
      this.cached = createSecureContext({ cert: p.certPem, key: p.keyPem });
      this.cachedFor = p;
    }
    return this.cached;
  }

  readonly sniCallback = (_servername: string, cb: (err: Error | null, ctx?: SecureContext) => void): void => {
    const ctx = this.secureContext();
    if (ctx) cb(null, ctx);
    else cb(new CertificateError(NO_SERVING_CERTIFICATE));
  };

  ttlSeconds(): number | undefined {
    const p = this.pair();
    return p ? (p.info.notAfter.getTime() - this.clock.nowMs()) / 1000 : undefined;
  }

  async stop(): Promise<void> {
    // nothing by default
  }
}

/** A fixed pair (self-signed). */
export class StaticServingSource extends BaseSource {
  constructor(private readonly fixed: CertificatePair, clock: Clock) {
    super(clock);
  }
  protected pair(): CertificatePair {
    return this.fixed;
  }
}

/** The pair of a CertificateManager (serving-certificate rotation). */
export class ManagedServingSource extends BaseSource {
  constructor(readonly manager: CertificateManager, clock: Clock) {
    super(clock);
  }
  protected pair(): CertificatePair | undefined {
    return this.manager.current();
  }
  override async stop(): Promise<void> {
    await this.manager.stop();
  }
}

export interface FileServingSourceOptions {
  certFile: string;
  keyFile: string;
  clock: Clock;
  logger: Logger;
  /** How often to look for changed files; 0 disables reloading. */
  reloadIntervalMs?: number;
}

/** --tls-cert-file/--tls-private-key-file, re-read when either file's mtime or size changes. */
export class FileServingSource extends BaseSource {
  private loaded: CertificatePair | undefined;
  private stamp = '';
  private readonly reloads = new AbortController();
  private constructor(private readonly o: FileServingSourceOptions) {
    super(o.clock);
  }

  static async open(o: FileServingSourceOptions): Promise<FileServingSource> {
    const s = new FileServingSource(o);
    await s.reload(true);
    const every = o.reloadIntervalMs ?? 10_000;
    if (every > 0) {
      void runEvery({
        clock: o.clock,
        ms: every,
        signal: s.reloads.signal,
        run: () => s.reload(false),
        onError: (err) => o.logger.warn({ err: userMessage(err) }, 'serving certificate reload failed; keeping the previous one'),
      });
    }
    return s;
  }

  protected pair(): CertificatePair | undefined {
    return this.loaded;
  }

  /** Re-reads the files if they changed; the first load throws, later failures keep the old pair. */
  async reload(first: boolean): Promise<boolean> {
    let stamp: string;
    try {
      const [c, k] = await Promise.all([stat(this.o.certFile), stat(this.o.keyFile)]);
      stamp = `${c.mtimeMs}:${c.size}:${k.mtimeMs}:${k.size}`;
    } catch (err) {
      throw new CertificateError(`--tls-cert-file/--tls-private-key-file: ${userMessage(err)}`, { file: this.o.certFile, cause: err });
    }
    if (!first && stamp === this.stamp) return false;
    const pair = pairFromPem(await readFile(this.o.certFile, 'utf8'), await readFile(this.o.keyFile, 'utf8'), this.o.certFile);
    this.loaded = pair;
    this.stamp = stamp;
    if (!first) this.o.logger.info({ certFile: this.o.certFile }, 'serving certificate files changed; new handshakes use the new certificate');
    return true;
  }

  override async stop(): Promise<void> {
    this.reloads.abort();
  }
}
