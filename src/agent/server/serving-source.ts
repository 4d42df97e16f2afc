// The secure server's view of its certificate: whatever holds a current PEM pair (the
// --tls-cert-file files, certificate/serving.ts over common/util/pem-file-pair.ts; the rotating
// serving-certificate manager; a self-signed pair) adapted to the material TLS is built from.

import { CertificateError } from '../../common/util/errors.js';
import type { ServingTlsMaterial, ServingTlsSource } from './types.js';

/** Adapts anything holding a current PEM pair (the certificate manager, a self-signed pair). */
export function pemPairSource(
  current: () => { certPem: string; keyPem: string } | undefined,
  fallback?: () => { certPem: string; keyPem: string },
): ServingTlsSource {
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
