// The JWT authenticators of an AuthenticationConfiguration as one Authenticator: a token is
// judged only by the authenticator of the issuer it names.
import type { IncomingMessage } from 'node:http';
import { decodeJwt } from 'jose';
import type { AuthenticationResult, Authenticator } from '../interfaces.js';
import { bearerToken, type JwtAuthenticator } from './jwt.js';

export class JwtAuthenticatorSet implements Authenticator {
  private readonly byIssuer: Map<string, JwtAuthenticator>;

  constructor(opts: { authenticators: readonly JwtAuthenticator[] }) {
    this.byIssuer = new Map(opts.authenticators.map((a) => [a.issuerUrl, a]));
  }

  async authenticate(req: IncomingMessage): Promise<AuthenticationResult> {
    const token = bearerToken(req);
    if (token === undefined || token.split('.').length !== 3) return { kind: 'no-opinion' };
    let iss: unknown;
    try {
      iss = decodeJwt(token).iss;
    } catch {
      return { kind: 'no-opinion' };
    }
    const a = typeof iss === 'string' ? this.byIssuer.get(iss) : undefined;
    return a === undefined ? { kind: 'no-opinion' } : a.verify(token);
  }

  async ready(): Promise<string[]> {
    const problems: string[] = [];
    for (const a of this.byIssuer.values()) {
      try {
        await a.ready();
      } catch (err) {
        problems.push(`issuer ${a.issuerUrl}: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
    return problems;
  }

  async close(): Promise<void> {
    for (const a of this.byIssuer.values()) await a.close();
  }
}
