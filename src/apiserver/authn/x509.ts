// Client certificate authentication: the TLS layer asks for a certificate and verifies it
// against the trusted client CAs (--client-ca-file and the cluster signing CA); the user is the
// subject's CN with its O values as groups, and, as the reference 1.32 does, the certificate's
// SHA-256 as the user's credential id (extra `authentication.<domain>/credential-id`:
// `X509SHA256=<hex>`), which CSRs, reviews and audit then carry.

import type { IncomingMessage } from 'node:http';
import type { AuthenticationResult, Authenticator } from '../interfaces.js';
import { peerOf, type PeerCertificateFacts } from '../front/peer.js';

export interface X509Options {
  /** The extra key of the credential id: `authentication.kubernetes.io/credential-id`. */
  readonly credentialIdKey: string;
}

export function x509Authenticator(opts: X509Options): Authenticator {
  // The peer certificate is fixed for a connection: decide once per socket (keep-alive clients
  // send many requests on one).
  const perSocket = new WeakMap<object, AuthenticationResult>();
  return {
    authenticate: (req: IncomingMessage): Promise<AuthenticationResult> => {
      const cached = perSocket.get(req.socket);
      if (cached !== undefined) return Promise.resolve(cached);
      // A plain connection, or one without a certificate, has nothing to decide on.
      const cert = peerOf(req.socket)?.certificate;
      const r: AuthenticationResult =
        cert === undefined ? { kind: 'no-opinion' } : fromCertificate(cert, opts);
      perSocket.set(req.socket, r);
      return Promise.resolve(r);
    },
  };
}

function fromCertificate(cert: PeerCertificateFacts, opts: X509Options): AuthenticationResult {
  if (!cert.authorized) {
    const why = cert.authorizationError === '' ? 'unknown' : cert.authorizationError;
    return { kind: 'rejected', reason: `verifying certificate failed: x509: ${why}` };
  }
  const cn = cert.commonNames[0] ?? '';
  if (cn === '') return { kind: 'rejected', reason: 'client certificate has no common name' };
  return {
    kind: 'authenticated',
    user: {
      username: cn,
      groups: [...cert.organizations],
      ...(cert.sha256 === ''
        ? {}
        : { extra: { [opts.credentialIdKey]: [`X509SHA256=${cert.sha256}`] } }),
    },
  };
}
