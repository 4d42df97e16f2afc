// Where the secure server's certificate comes from: --tls-cert-file/--tls-private-key-file
// (re-read when the files change, so an operator or cert tool can replace them), the rotating
// serving-certificate manager (--rotate-server-certificates), or else a self-signed pair kept in
// --cert-dir, as the reference does.

import type { Logger } from '../../common/log/types.js';
import type { Clock } from '../../common/util/clock.js';
import { CertificateError } from '../../common/util/errors.js';
import { PemFilePair } from '../../common/util/pem-file-pair.js';
import type { ServingTlsMaterial, ServingTlsSource } from './types.js';

/** A source reading a certificate and key file pair, re-read when either file's mtime changes (common/util/pem-file-pair.ts). */
export class FileServingSource implements ServingTlsSource {
  private readonly files: PemFilePair;
  private readonly material: ServingTlsSource;

  constructor(o: { certFile: string; keyFile: string; logger: Logger; clock?: Clock; checkIntervalMs?: number }) {
    this.files = new PemFilePair({ ...o, what: 'serving certificate', flags: ['--tls-cert-file', '--tls-private-key-file'] });
    this.material = pemPairSource(() => this.files.current());
  }

  start(signal: AbortSignal): Promise<void> {
    return this.files.start(signal);
  }

  current(): ServingTlsMaterial {
    return this.material.current();
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
