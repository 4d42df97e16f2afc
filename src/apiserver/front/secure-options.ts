// The secure port's TLS settings, one set whether TLS ends in plat-apiserver's own process or in
// its TLS front processes.

/** The secure port's serving pair (PEM, the chain after the certificate) and its client CAs. */
export interface ServingTls {
  readonly certPem: string;
  readonly keyPem: string;
  readonly clientCaPems: readonly string[];
}

/** The secure port's TLS settings, for the main process's server and for each front's alike. */
export function secureServerOptions(c: ServingTls): {
  cert: string;
  key: string;
  ca: string[];
  requestCert: true;
  rejectUnauthorized: false;
  minVersion: 'TLSv1.2';
  ALPNProtocols: string[];
} {
  return {
    cert: c.certPem,
    key: c.keyPem,
    ca: [...c.clientCaPems],
    // Client certificates are asked for, not required: the authenticators decide.
    requestCert: true,
    rejectUnauthorized: false,
    minVersion: 'TLSv1.2',
    ALPNProtocols: ['http/1.1'],
  };
}
