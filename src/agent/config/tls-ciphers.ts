// TLS names of the config (`--tls-cipher-suites`, `--tls-min-version`) as the reference spells them
// (Go's crypto/tls names), and their OpenSSL equivalents for Node's tls module. The agent's server
// uses `tlsOptionsFor()`; validation uses the name lists.

export interface CipherSuiteInfo {
  /** OpenSSL name for Node's `ciphers` option (TLS 1.3 suites keep their IANA name). */
  readonly openssl: string;
  readonly tls13: boolean;
  /** In Go's InsecureCipherSuites() list: accepted, but worth a warning. */
  readonly insecure: boolean;
}

const s = (openssl: string, insecure = false, tls13 = false): CipherSuiteInfo => ({
  openssl,
  insecure,
  tls13,
});

/** Go cipher suite name -> OpenSSL name. */
export const TLS_CIPHER_SUITES: Readonly<Record<string, CipherSuiteInfo>> = {
  // TLS 1.3 (Go does not let these be configured; accepted for compatibility)
  TLS_AES_128_GCM_SHA256: s('TLS_AES_128_GCM_SHA256', false, true),
  TLS_AES_256_GCM_SHA384: s('TLS_AES_256_GCM_SHA384', false, true),
  TLS_CHACHA20_POLY1305_SHA256: s('TLS_CHACHA20_POLY1305_SHA256', false, true),
  // TLS 1.0-1.2, secure
  TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA: s('ECDHE-ECDSA-AES128-SHA'),
  TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA: s('ECDHE-ECDSA-AES256-SHA'),
  TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA: s('ECDHE-RSA-AES128-SHA'),
  TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA: s('ECDHE-RSA-AES256-SHA'),
  TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256: s('ECDHE-ECDSA-AES128-GCM-SHA256'),
  TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384: s('ECDHE-ECDSA-AES256-GCM-SHA384'),
  TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256: s('ECDHE-RSA-AES128-GCM-SHA256'),
  TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384: s('ECDHE-RSA-AES256-GCM-SHA384'),
  TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256: s('ECDHE-ECDSA-CHACHA20-POLY1305'),
  TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256: s('ECDHE-RSA-CHACHA20-POLY1305'),
  // legacy spellings the reference still accepts
  TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305: s('ECDHE-ECDSA-CHACHA20-POLY1305'),
  TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305: s('ECDHE-RSA-CHACHA20-POLY1305'),
  // insecure (Go's InsecureCipherSuites)
  TLS_RSA_WITH_RC4_128_SHA: s('RC4-SHA', true),
  TLS_RSA_WITH_3DES_EDE_CBC_SHA: s('DES-CBC3-SHA', true),
  TLS_RSA_WITH_AES_128_CBC_SHA: s('AES128-SHA', true),
  TLS_RSA_WITH_AES_256_CBC_SHA: s('AES256-SHA', true),
  TLS_RSA_WITH_AES_128_CBC_SHA256: s('AES128-SHA256', true),
  TLS_RSA_WITH_AES_128_GCM_SHA256: s('AES128-GCM-SHA256', true),
  TLS_RSA_WITH_AES_256_GCM_SHA384: s('AES256-GCM-SHA384', true),
  TLS_ECDHE_ECDSA_WITH_RC4_128_SHA: s('ECDHE-ECDSA-RC4-SHA', true),
  TLS_ECDHE_RSA_WITH_RC4_128_SHA: s('ECDHE-RSA-RC4-SHA', true),
  TLS_ECDHE_RSA_WITH_3DES_EDE_CBC_SHA: s('ECDHE-RSA-DES-CBC3-SHA', true),
  TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256: s('ECDHE-ECDSA-AES128-SHA256', true),
  TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256: s('ECDHE-RSA-AES128-SHA256', true),
};

/** `--tls-min-version` names -> Node's `minVersion`. */
export const TLS_MIN_VERSIONS: Readonly<
  Record<string, 'TLSv1' | 'TLSv1.1' | 'TLSv1.2' | 'TLSv1.3'>
> = {
  VersionTLS10: 'TLSv1',
  VersionTLS11: 'TLSv1.1',
  VersionTLS12: 'TLSv1.2',
  VersionTLS13: 'TLSv1.3',
};

export const TLS_VERSIONS: readonly string[] = Object.keys(TLS_MIN_VERSIONS);

export function isTlsCipherSuite(name: string): boolean {
  return Object.hasOwn(TLS_CIPHER_SUITES, name);
}

/**
 * Node tls options for the configured names: `ciphers` (OpenSSL list, undefined = Node's
 * defaults) and `minVersion`. Unknown names are skipped (validation already refused them).
 */
export function tlsOptionsFor(
  cipherSuites: readonly string[],
  minVersion: string,
): { ciphers?: string; minVersion?: 'TLSv1' | 'TLSv1.1' | 'TLSv1.2' | 'TLSv1.3' } {
  const out: { ciphers?: string; minVersion?: 'TLSv1' | 'TLSv1.1' | 'TLSv1.2' | 'TLSv1.3' } = {};
  const names = [
    ...new Set(
      cipherSuites
        .map((n) => TLS_CIPHER_SUITES[n]?.openssl)
        .filter((x): x is string => x !== undefined),
    ),
  ];
  if (names.length > 0) out.ciphers = names.join(':');
  const v = TLS_MIN_VERSIONS[minVersion];
  if (v !== undefined) out.minVersion = v;
  return out;
}
