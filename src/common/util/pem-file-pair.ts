// A certificate and key file pair that an operator or a cert tool may replace while the program
// runs: read at start (a problem is an error then), then re-read on the Clock whenever either
// file's mtime or size changes. The two files are replaced one after the other, so a pair whose
// key does not match its certificate is never taken: the previous pair stays and the next check
// tries again. A later read failure keeps the previous pair too. Each is said once in the log.
// Used by the agent's --tls-cert-file/--tls-private-key-file and plat-apiserver's
// --kubelet-client-certificate/--kubelet-client-key.

import { X509Certificate, createPrivateKey } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import type { Logger } from '../log/types.js';
import { systemClock, type Clock } from './clock.js';
import { CertificateError, userMessage } from './errors.js';
import { runEvery } from './every.js';

export interface PemPair {
  readonly certPem: string;
  readonly keyPem: string;
}

export interface PemFilePairOptions {
  readonly certFile: string;
  readonly keyFile: string;
  /** What the pair is, for messages ("serving certificate"). */
  readonly what: string;
  /**
   * The flags naming the two files, for the start error ("--tls-cert-file",
   * "--tls-private-key-file").
   */
  readonly flags: readonly [string, string];
  readonly logger: Logger;
  readonly clock?: Clock;
  /** How often the files are looked at (default 30 s). */
  readonly checkIntervalMs?: number;
}

export class PemFilePair {
  private pair: PemPair | undefined;
  private stamp = '';
  private loading = false;

  constructor(private readonly o: PemFilePairOptions) {}

  /**
   * Reads the pair (throws a CertificateError naming the flags), then checks it until `signal`
   * aborts.
   */
  async start(signal: AbortSignal): Promise<void> {
    await this.load(true);
    void runEvery({
      clock: this.o.clock ?? systemClock,
      ms: this.o.checkIntervalMs ?? 30_000,
      signal,
      run: () => this.load(false),
      onError: (err) =>
        this.o.logger.warn(
          { err: userMessage(err), file: this.o.certFile },
          `${this.o.what} check failed`,
        ),
    });
  }

  current(): PemPair {
    if (this.pair === undefined)
      throw new CertificateError(`${this.o.what} not loaded yet`, { file: this.o.certFile });
    return this.pair;
  }

  private async load(initial: boolean): Promise<void> {
    if (this.loading) return;
    this.loading = true;
    try {
      await this.loadOnce(initial);
    } finally {
      this.loading = false;
    }
  }

  private async loadOnce(initial: boolean): Promise<void> {
    const { certFile, keyFile, what, logger } = this.o;
    try {
      const [c, k] = await Promise.all([stat(certFile), stat(keyFile)]);
      const stamp = `${c.mtimeMs}:${c.size}:${k.mtimeMs}:${k.size}`;
      if (stamp === this.stamp) return;
      const [certPem, keyPem] = await Promise.all([
        readFile(certFile, 'utf8'),
        readFile(keyFile, 'utf8'),
      ]);
      if (!new X509Certificate(certPem).checkPrivateKey(createPrivateKey(keyPem))) {
        if (initial) throw new Error('the private key does not match the certificate');
        logger.warn(
          { file: certFile },
          `the ${what} and key files do not match (being replaced?); keeping the ` +
            `previous pair and checking again`,
        );
        return;
      }
      this.pair = { certPem, keyPem };
      this.stamp = stamp;
      if (!initial)
        logger.info(
          { file: certFile },
          `${what} files changed; new connections use the new certificate`,
        );
    } catch (err) {
      if (initial) {
        throw new CertificateError(
          `cannot read the ${what} (${this.o.flags[0]} ${certFile}, ${this.o.flags[1]} ` +
            `${keyFile}): ${userMessage(err)}`,
          { file: certFile, cause: err },
        );
      }
      logger.warn(
        { file: certFile, err: userMessage(err) },
        `cannot re-read the ${what} files; keeping the previous certificate`,
      );
    }
  }
}
