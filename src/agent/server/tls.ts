// TLS settings of the secure server: --tls-min-version names, the cipher list (already mapped from
// the spec's names to OpenSSL's by the configuration part), and a secure context that follows the
// serving certificate as it rotates: the context is rebuilt when the source hands out new
// material, checked before each connection's handshake (and for SNI clients, in SNICallback).

import { createSecureContext, type SecureContext, type SecureVersion } from 'node:tls';
import { ConfigError } from '../../common/util/errors.js';
import type { ServingTlsMaterial, ServingTlsSource } from './types.js';

const VERSIONS: Readonly<Record<string, SecureVersion>> = {
  VersionTLS10: 'TLSv1',
  VersionTLS11: 'TLSv1.1',
  VersionTLS12: 'TLSv1.2',
  VersionTLS13: 'TLSv1.3',
};

/** Maps a --tls-min-version value; empty means the runtime default (TLS 1.2). */
export function tlsMinVersion(name: string | undefined): SecureVersion {
  if (name === undefined || name === '') return 'TLSv1.2';
  const v = VERSIONS[name];
  if (v === undefined) {
    throw new ConfigError(
      `invalid configuration: tlsMinVersion (--tls-min-version) "${name}" is not one of ` +
        Object.keys(VERSIONS).join(', '),
      {
        field: 'tlsMinVersion',
        flag: '--tls-min-version',
      },
    );
  }
  return v;
}

const DEFAULT_TLS13_SUITES = [
  'TLS_AES_256_GCM_SHA384',
  'TLS_CHACHA20_POLY1305_SHA256',
  'TLS_AES_128_GCM_SHA256',
];

/**
 * The OpenSSL cipher string for an OpenSSL-named list; undefined means the runtime default. As in
 * the reference, the list governs TLS 1.2 and below: TLS 1.3 suites stay on unless some are named.
 */
export function cipherString(openSslNames: readonly string[] | undefined): string | undefined {
  if (openSslNames === undefined || openSslNames.length === 0) return undefined;
  const hasTls13 = openSslNames.some((n) => n.startsWith('TLS_'));
  return [...(hasTls13 ? [] : DEFAULT_TLS13_SUITES), ...openSslNames].join(':');
}

export interface TlsSettings {
  minVersion: SecureVersion;
  ciphers: string | undefined;
}

/**
 * Builds (and caches by material identity) the secure context for the current serving certificate.
 */
export class RotatingSecureContext {
  private material: ServingTlsMaterial | undefined;
  private context: SecureContext | undefined;

  private readonly source: ServingTlsSource;
  private readonly settings: TlsSettings;

  constructor(options: { source: ServingTlsSource; settings: TlsSettings }) {
    this.source = options.source;
    this.settings = options.settings;
  }

  /** The current material; `changed` tells whether it differs from the last one asked for. */
  poll(): { material: ServingTlsMaterial; changed: boolean } {
    const m = this.source.current();
    if (m === this.material) return { material: m, changed: false };
    const prev = this.material;
    this.material = m;
    const changed =
      prev === undefined ||
      String(m.cert) !== String(prev.cert) ||
      String(m.key) !== String(prev.key);
    if (changed) this.context = undefined;
    return { material: m, changed };
  }

  secureContext(): SecureContext {
    const { material } = this.poll();
    this.context ??= createSecureContext(this.contextOptions(material));
    return this.context;
  }

  contextOptions(m: ServingTlsMaterial): {
    cert: string | Buffer;
    key: string | Buffer;
    minVersion: SecureVersion;
    ciphers?: string;
  } {
    return {
      cert: m.cert,
      key: m.key,
      minVersion: this.settings.minVersion,
      ...(this.settings.ciphers !== undefined ? { ciphers: this.settings.ciphers } : {}),
    };
  }
}
