// The reference's authentication order: client certificate, then bearer token, then anonymous.
// A presented but bad credential is a 401 even when anonymous access is on (falling back to
// anonymous would let a typo in a token silently downgrade the caller); anonymous applies only
// to requests that presented no credential at all.

import type { IncomingMessage } from 'node:http';
import type { AuthenticationResult, Authenticator, UserInfo } from '../types.js';

export const ANONYMOUS_USER: UserInfo = {
  username: 'system:anonymous',
  groups: ['system:unauthenticated'],
};

export interface AuthenticatorChainOptions {
  authenticators: readonly Authenticator[];
  anonymous: boolean;
}

export class AuthenticatorChain implements Authenticator {
  constructor(private readonly options: AuthenticatorChainOptions) {}

  async authenticate(req: IncomingMessage): Promise<AuthenticationResult> {
    const rejections: string[] = [];
    for (const a of this.options.authenticators) {
      const r = await a.authenticate(req);
      if (r.kind === 'authenticated') {
        // Every authenticated user is also in system:authenticated, as in the reference.
        const groups = r.user.groups.includes('system:authenticated')
          ? r.user.groups
          : [...r.user.groups, 'system:authenticated'];
        return { ...r, user: { ...r.user, groups } };
      }
      if (r.kind === 'rejected') rejections.push(r.reason);
    }
    if (rejections.length > 0) return { kind: 'rejected', reason: rejections.join('; ') };
    if (this.options.anonymous)
      return { kind: 'authenticated', user: ANONYMOUS_USER, method: 'anonymous' };
    return {
      kind: 'rejected',
      reason: 'no credentials presented and anonymous access is disabled',
    };
  }
}
