// What the request pipeline knows of a connection's far end: its address and, when it offered a
// client certificate, the facts x509 authentication decides on. A connection TLS ends in this
// process (a TLSSocket) is read directly; one a TLS front process ended (front/) carries the facts
// the front read, attached here when the inner connection is accepted.

import { TLSSocket, type PeerCertificate } from 'node:tls';
import { textOf } from '../../common/util/text-of.js';

/** The client certificate's facts, as the TLS handshake verified them. */
export interface PeerCertificateFacts {
  /** Whether the chain verified against the trusted client CAs. */
  readonly authorized: boolean;
  /** Why it did not verify (OpenSSL's words); empty when it did or no reason was given. */
  readonly authorizationError: string;
  /** The subject's CN values, in order. */
  readonly commonNames: readonly string[];
  /** The subject's O values, in order. */
  readonly organizations: readonly string[];
  /** SHA-256 of the certificate's DER, lower-case hex without separators; empty if unknown. */
  readonly sha256: string;
}

export interface PeerFacts {
  readonly remoteAddress: string;
  readonly remotePort: number;
  /** Absent when the client offered no certificate (or the socket is not TLS). */
  readonly certificate?: PeerCertificateFacts;
}

const fronted = new WeakMap<object, PeerFacts>();

/** Attaches what a TLS front read to the inner connection that carries the client's bytes. */
export function attachPeer(socket: object, facts: PeerFacts): void {
  fronted.set(socket, facts);
}

function asList(v: string | string[] | undefined): string[] {
  if (v === undefined) return [];
  return Array.isArray(v) ? v : [v];
}

/** The facts of a TLS connection ended in this process. */
export function tlsPeerFacts(socket: TLSSocket): PeerFacts {
  const base = { remoteAddress: socket.remoteAddress ?? '', remotePort: socket.remotePort ?? 0 };
  // null once the socket is gone, {} without a certificate: Node's types promise neither
  const cert = socket.getPeerCertificate() as Partial<PeerCertificate> | null | undefined;
  if (cert === null || cert === undefined || Object.keys(cert).length === 0) return base;
  // Node's types say always an Error; it is absent when Node gives no reason.
  const reason: unknown = socket.authorized ? undefined : socket.authorizationError;
  return {
    ...base,
    certificate: {
      authorized: socket.authorized,
      authorizationError: reason === undefined ? '' : textOf(reason),
      commonNames: asList(cert.subject?.CN),
      organizations: asList(cert.subject?.O),
      sha256: (cert.fingerprint256 ?? '').replaceAll(':', '').toLowerCase(),
    },
  };
}

/**
 * The far end of the connection a request came on: what a front attached, else the TLS socket's
 * own facts; undefined for a plain connection nobody vouched for.
 */
export function peerOf(socket: object): PeerFacts | undefined {
  const attached = fronted.get(socket);
  if (attached !== undefined) return attached;
  return socket instanceof TLSSocket ? tlsPeerFacts(socket) : undefined;
}

/** The client's address: the one a front attached, else the socket's own ('' if unknown). */
export function clientAddressOf(socket: { readonly remoteAddress?: string | undefined }): string {
  return fronted.get(socket)?.remoteAddress ?? socket.remoteAddress ?? '';
}
