// Client certificate authentication: the TLS layer asks for a certificate and verifies it
// against the trusted client CAs (--client-ca-file and the cluster signing CA); the user is the
// subject's CN with its O values as groups, and, as the reference 1.32 does, the certificate's
// SHA-256 as the user's credential id (extra `authentication.<domain>/credential-id`:
// `X509SHA256=<hex>`), which CSRs, reviews and audit then carry.

import type { IncomingMessage } from 'node:http';
import { TLSSocket, type PeerCertificate } from 'node:tls';
import type { AuthenticationResult, Authenticator } from '../interfaces.js';
import { textOf } from '../../common/util/text-of.js';

function asList(v: string | string[] | undefined): string[] {
  if (v === undefined) return [];
  return Array.isArray(v) ? v : [v];
}

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
      // A plain HTTP connection (no TLS socket) has no certificate to decide on.
      if (!(req.socket instanceof TLSSocket)) return Promise.resolve({ kind: 'no-opinion' });
      const r = fromSocket(req.socket, opts);
      perSocket.set(req.socket, r);
      return Promise.resolve(r);
    },
  };
}

function fromSocket(socket: TLSSocket, opts: X509Options): AuthenticationResult {
  // null once the socket is gone, {} without a certificate: Node's types promise neither
  const cert = socket.getPeerCertificate() as Partial<PeerCertificate> | null | undefined;
  if (cert === null || cert === undefined || Object.keys(cert).length === 0)
    return { kind: 'no-opinion' };
  if (!socket.authorized) {
    // Node's types say always an Error; it is absent when Node gives no reason.
    const reason: unknown = socket.authorizationError;
    const why = reason === undefined ? 'unknown' : textOf(reason);
    return { kind: 'rejected', reason: `verifying certificate failed: x509: ${why}` };
  }
  const cn = asList(cert.subject?.CN)[0] ?? '';
  if (cn === '') return { kind: 'rejected', reason: 'client certificate has no common name' };
  const fingerprint = (cert.fingerprint256 ?? '').replaceAll(':', '').toLowerCase();
  return {
    kind: 'authenticated',
    user: {
      username: cn,
      groups: asList(cert.subject?.O),
      ...(fingerprint === ''
        ? {}
        : { extra: { [opts.credentialIdKey]: [`X509SHA256=${fingerprint}`] } }),
    },
  };
}
