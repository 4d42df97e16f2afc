// Client certificate authentication: the TLS layer asks for a certificate and verifies it
// against the trusted client CAs (--client-ca-file and the cluster signing CA); the user is the
// subject's CN with its O values as groups.

import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';
import type { AuthenticationResult, Authenticator } from '../interfaces.js';

function asList(v: string | string[] | undefined): string[] {
  if (v === undefined) return [];
  return Array.isArray(v) ? v : [v];
}

export function x509Authenticator(): Authenticator {
  return {
    authenticate: (req: IncomingMessage): Promise<AuthenticationResult> => {
      const socket = req.socket as Partial<TLSSocket>;
      if (typeof socket.getPeerCertificate !== 'function') return Promise.resolve({ kind: 'no-opinion' });
      const cert = socket.getPeerCertificate();
      if (cert === null || cert === undefined || Object.keys(cert).length === 0) return Promise.resolve({ kind: 'no-opinion' });
      if (socket.authorized !== true) {
        const why = socket.authorizationError === undefined ? 'unknown' : String(socket.authorizationError);
        return Promise.resolve({ kind: 'rejected', reason: `verifying certificate failed: x509: ${why}` });
      }
      const cn = asList(cert.subject?.CN)[0] ?? '';
      if (cn === '') return Promise.resolve({ kind: 'rejected', reason: 'client certificate has no common name' });
      return Promise.resolve({ kind: 'authenticated', user: { username: cn, groups: asList(cert.subject?.O) } });
    },
  };
}
