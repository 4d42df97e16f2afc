// Where the secure server's certificate comes from: --tls-cert-file/--tls-private-key-file
// (re-read when the files change, so an operator or cert tool can replace them), the rotating
// serving-certificate manager (--rotate-server-certificates), or else a self-signed pair kept in
// --cert-dir, as the reference does.

import { X509Certificate, createPrivateKey } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import type { Logger } from '../../common/log/types.js';
import { systemClock, type Clock } from '../../common/util/clock.js';
import { CertificateError, userMessage } from '../../common/util/errors.js';
import { runEvery } from '../../common/util/every.js';
import type { ServingTlsMaterial, ServingTlsSource } from './types.js';

/** A source reading a certificate and key file pair, re-read when either file's mtime changes. */
export class FileServingSource implements ServingTlsSource {
  private material: ServingTlsMaterial | undefined;
  private stamp = '';
  private loading = false;

  constructor(private readonly o: { certFile: string; keyFile: string; logger: Logger; clock?: Clock; checkIntervalMs?: number }) {}

  async start(signal: AbortSignal): Promise<void> {
    await this.load(true);
    void runEvery({
      clock: this.o.clock ?? systemClock,
      ms: this.o.checkIntervalMs ?? 30_000,
      signal,
      run: () => this.load(false),
      onError: (err) => this.o.logger.warn({ err: userMessage(err), file: this.o.certFile }, 'serving certificate check failed'),
    });
  }

  current(): ServingTlsMaterial {
    if (this.material === undefined) throw new CertificateError('serving certificate not loaded yet', { file: this.o.certFile });
    return this.material;
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
    try {
      const [c, k] = await Promise.all([stat(this.o.certFile), stat(this.o.keyFile)]);
      const stamp = `${c.mtimeMs}:${c.size}:${k.mtimeMs}:${k.size}`;
      if (stamp === this.stamp) return;
      const [cert, key] = await Promise.all([readFile(this.o.certFile, 'utf8'), readFile(this.o.keyFile, 'utf8')]);
      // The two files are replaced one after the other: never serve a certificate with the
      // other one's key. A mismatch at start is an error; later, the next check tries again.
      if (!new X509Certificate(cert).checkPrivateKey(createPrivateKey(key))) {
        if (initial) throw new Error('the private key does not match the certificate');
        this.o.logger.warn({ file: this.o.certFile }, 'the serving certificate and key files do not match (being replaced?); keeping the previous pair and checking again');
        return;
      }
      this.material = { cert, key };
      this.stamp = stamp;
      if (!initial) this.o.logger.info({ file: this.o.certFile }, 'serving certificate files changed; new connections use the new certificate');
    } catch (err) {
      if (initial) {
        throw new CertificateError(`cannot read the serving certificate (--tls-cert-file ${this.o.certFile}, --tls-private-key-file ${this.o.keyFile}): ${(err as Error).message}`, { file: this.o.certFile, cause: err });
      }
      this.o.logger.warn({ file: this.o.certFile, err: (err as Error).message }, 'cannot re-read the serving certificate files; keeping the previous certificate');
    }
  }
}

/** Adapts anything holding a current PEM pair (the certificate manager, a self-signed pair). */
export function pemPairSource(current: () => { certPem: string; keyPem: string } | undefined, fallback?: () => { certPem: string; keyPem: string }): ServingTlsSource {
  let last: { pair: object; material: ServingTlsMaterial } | undefined;
  return {
    current() {
      const p = current() ?? fallback?.();
      if (p === undefined) throw new CertificateError('no serving certificate yet');
      if (last?.pair !== p) last = { pair: p, material: { cert: p.certPem, key: p.keyPem } };
      return last.material;
    },
  };
}
