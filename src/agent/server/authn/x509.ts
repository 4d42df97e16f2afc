// Client-certificate authentication: the TLS layer only requests a certificate (never requires
// one, and never verifies it against a fixed CA, so the CA file can change under a running
// server); this authenticator verifies the presented chain against the current client CA bundle,
// checks validity dates at the injected clock and the client-auth usage, and names the user after
// the certificate's CommonName with its Organizations as groups, as the reference does.

import { X509Certificate } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { DetailedPeerCertificate, TLSSocket } from 'node:tls';
import type { Clock } from '../../../common/util/clock.js';
import type { AuthenticationResult, Authenticator, UserInfo } from '../types.js';
import type { ClientCaSource } from './client-ca.js';

const CLIENT_AUTH_OID = '1.3.6.1.5.5.7.3.2';
const ANY_EKU_OID = '2.5.29.37.0';
const MAX_CHAIN = 10;

export interface X509AuthenticatorOptions {
  authorities: ClientCaSource;
  clock: Clock;
}

/** Reads the presented chain (leaf first) from a TLS socket; empty when none was presented. */
export function peerChain(socket: Partial<TLSSocket>): X509Certificate[] {
  if (typeof socket.getPeerCertificate !== 'function') return [];
  // null once the socket is gone, {} without a certificate: Node's types promise neither
  const leaf = socket.getPeerCertificate(true) as Partial<DetailedPeerCertificate> | null;
  const out: X509Certificate[] = [];
  let cur: Partial<DetailedPeerCertificate> | null | undefined = leaf;
  const seen = new Set<string>();
  while (cur?.raw !== undefined && out.length < MAX_CHAIN) {
    const fp = cur.fingerprint256 ?? '';
    if (seen.has(fp)) break;
    seen.add(fp);
    out.push(new X509Certificate(cur.raw));
    cur = cur.issuerCertificate;
  }
  return out;
}

/** Splits an X509Certificate subject ("CN=a\nO=b\nO=c") into attribute values. */
export function subjectValues(subject: string, attr: string): string[] {
  return subject
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l.startsWith(`${attr}=`))
    .map((l) => l.slice(attr.length + 1));
}

function validAt(cert: X509Certificate, nowMs: number): boolean {
  return Date.parse(cert.validFrom) <= nowMs && nowMs <= Date.parse(cert.validTo);
}

/** Verifies `chain` against `authorities`; returns why it failed, or undefined when it is good. */
export function verifyChain(
  chain: readonly X509Certificate[],
  authorities: readonly X509Certificate[],
  nowMs: number,
): string | undefined {
  const leaf = chain[0];
  if (leaf === undefined) return 'no certificate';
  if (!validAt(leaf, nowMs))
    return (
      `certificate has expired or is not yet valid (valid ${leaf.validFrom} to ` +
      `${leaf.validTo})`
    );
  // undefined without the extended key usage extension, though Node's types say string[]
  const eku = leaf.keyUsage as readonly string[] | undefined;
  if (
    eku !== undefined &&
    eku.length > 0 &&
    !eku.includes(CLIENT_AUTH_OID) &&
    !eku.includes(ANY_EKU_OID)
  ) {
    return 'certificate is not valid for client authentication';
  }
  let cur = leaf;
  for (let depth = 0; depth < MAX_CHAIN; depth++) {
    for (const ca of authorities) {
      if (cur.checkIssued(ca) && validAt(ca, nowMs) && cur.verify(ca.publicKey)) return undefined;
    }
    const next = chain.find(
      (c) => c !== cur && c.ca && cur.checkIssued(c) && cur.verify(c.publicKey),
    );
    if (next === undefined) return 'certificate signed by unknown authority';
    if (!validAt(next, nowMs)) return 'an intermediate certificate has expired or is not yet valid';
    cur = next;
  }
  return 'certificate chain too long';
}

export class X509Authenticator implements Authenticator {
  // A connection's certificate never changes; remember the verdict per socket and CA bundle.
  private readonly verdicts = new WeakMap<
    object,
    { authorities: readonly X509Certificate[]; result: AuthenticationResult; untilMs: number }
  >();

  constructor(private readonly options: X509AuthenticatorOptions) {}

  authenticate(req: IncomingMessage): Promise<AuthenticationResult> {
    // a TLS server hands TLS sockets; its getPeerCertificate is checked before use
    return Promise.resolve(this.authenticateSync(req.socket as Partial<TLSSocket>));
  }

  private authenticateSync(socket: Partial<TLSSocket>): AuthenticationResult {
    const authorities = this.options.authorities.authorities();
    const nowMs = this.options.clock.nowMs();
    const cached = this.verdicts.get(socket);
    if (cached?.authorities === authorities && nowMs <= cached.untilMs) return cached.result;
    const chain = peerChain(socket);
    const leaf = chain[0];
    let result: AuthenticationResult;
    let untilMs = nowMs;
    if (leaf === undefined) {
      result = { kind: 'no-opinion' };
      untilMs = Number.MAX_SAFE_INTEGER;
    } else {
      const problem = verifyChain(chain, authorities, nowMs);
      if (problem !== undefined) {
        result = { kind: 'rejected', reason: `x509: ${problem}` };
      } else {
        const cn = subjectValues(leaf.subject, 'CN')[0] ?? '';
        if (cn === '') {
          result = { kind: 'rejected', reason: 'x509: certificate has no CommonName' };
        } else {
          const user: UserInfo = { username: cn, groups: subjectValues(leaf.subject, 'O') };
          result = { kind: 'authenticated', user, method: 'x509' };
          untilMs = Math.min(...chain.map((c) => Date.parse(c.validTo)));
        }
      }
    }
    this.verdicts.set(socket, { authorities, result, untilMs });
    return result;
  }
}
