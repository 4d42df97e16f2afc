// The serving certificate the agent's HTTPS servers present, asked for at each handshake:
//   - --tls-cert-file/--tls-private-key-file when given (re-read when the files change);
//   - else, with serving-certificate rotation (serverTLSBootstrap +
// RotatePlatletServerCertificate),
//     a CertificateManager with the platlet-serving signer; until it has a certificate,
//     handshakes fail with "no serving certificate available for the nodeagent";
//   - else a self-signed pair in the cert dir.
// An HTTPS server uses it as:  https.createServer({ SNICallback: source.sniCallback, ... })
import { createSecureContext, type SecureContext } from 'node:tls';
import type { Clock } from '../../common/util/clock.js';
import { PemFilePair, type PemPair } from '../../common/util/pem-file-pair.js';
import type { Logger } from '../../common/log/types.js';
import { CertificateError } from '../../common/util/errors.js';
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
  readonly sniCallback: (
    servername: string,
    cb: (err: Error | null, ctx?: SecureContext) => void,
  ) => void;
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

  /** The same object while the pair is unchanged (consumers cache a secure context by it). */
  current(): ServingCertificate | undefined {
    return this.pair();
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

  readonly sniCallback = (
    _servername: string,
    cb: (err: Error | null, ctx?: SecureContext) => void,
  ): void => {
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
  constructor(
    private readonly fixed: CertificatePair,
    clock: Clock,
  ) {
    super(clock);
  }
  protected pair(): CertificatePair {
    return this.fixed;
  }
}

/** The pair of a CertificateManager (serving-certificate rotation). */
export class ManagedServingSource extends BaseSource {
  constructor(
    readonly manager: CertificateManager,
    clock: Clock,
  ) {
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
  /** How often to look for changed files (default 30 s). */
  reloadIntervalMs?: number;
}

/**
 * --tls-cert-file/--tls-private-key-file, re-read when either file's mtime or size changes: the
 * one file-pair reloader of both programs (common/util/pem-file-pair.ts: a pair whose key does not
 * match its certificate is never served; at start it is an error, later the previous pair stays).
 */
export class FileServingSource extends BaseSource {
  private readonly files: PemFilePair;
  private readonly checks = new AbortController();
  private parsed: { from: PemPair; pair: CertificatePair } | undefined;

  private constructor(private readonly o: FileServingSourceOptions) {
    super(o.clock);
    this.files = new PemFilePair({
      certFile: o.certFile,
      keyFile: o.keyFile,
      what: 'serving certificate',
      flags: ['--tls-cert-file', '--tls-private-key-file'],
      logger: o.logger,
      clock: o.clock,
      ...(o.reloadIntervalMs !== undefined ? { checkIntervalMs: o.reloadIntervalMs } : {}),
    });
  }

  static async open(o: FileServingSourceOptions): Promise<FileServingSource> {
    const s = new FileServingSource(o);
    await s.files.start(s.checks.signal);
    return s;
  }

  /** The same object while the files are unchanged (its expiry read once). */
  protected pair(): CertificatePair {
    const p = this.files.current();
    if (this.parsed?.from !== p)
      this.parsed = { from: p, pair: pairFromPem(p.certPem, p.keyPem, this.o.certFile) };
    return this.parsed.pair;
  }

  override stop(): Promise<void> {
    this.checks.abort();
    return Promise.resolve();
  }
}
