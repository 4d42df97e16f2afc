// The union of the authenticators: asked in order; the first that authenticates wins, a
// rejected credential gives 401 unless a later one accepts, and a request with an unrecognised
// bearer token is 401. Without any credential the request is anonymous (when --anonymous-auth)
// or 401.

import type { IncomingMessage } from 'node:http';
import type { Authenticator } from '../interfaces.js';
import type { UserInfo } from '../../common/auth/user.js';
import { bearerToken } from '../../common/auth/bearer-token.js';

export const ANONYMOUS_USER: UserInfo = {
  username: 'system:anonymous',
  groups: ['system:unauthenticated'],
};

export type AuthnOutcome =
  { readonly ok: true; readonly user: UserInfo } | { readonly ok: false; readonly reason: string };

export class AuthenticatorChain {
  private readonly authenticators: readonly Authenticator[];
  private readonly anonymous: boolean;
  constructor(opts: { authenticators: readonly Authenticator[]; anonymous: boolean }) {
    this.authenticators = opts.authenticators;
    this.anonymous = opts.anonymous;
  }

  async authenticate(req: IncomingMessage): Promise<AuthnOutcome> {
    let rejected: string | undefined;
    for (const a of this.authenticators) {
      const r = await a.authenticate(req);
      if (r.kind === 'authenticated') return { ok: true, user: withAuthenticatedGroup(r.user) };
      if (r.kind === 'rejected') rejected ??= r.reason;
    }
    if (rejected !== undefined) return { ok: false, reason: rejected };
    if (bearerToken(req) !== undefined) return { ok: false, reason: 'invalid bearer token' };
    if (this.anonymous) return { ok: true, user: ANONYMOUS_USER };
    return { ok: false, reason: 'no credentials' };
  }
}

function withAuthenticatedGroup(user: UserInfo): UserInfo {
  if (user.groups.includes('system:authenticated') || user.username === 'system:anonymous')
    return user;
  return { ...user, groups: [...user.groups, 'system:authenticated'] };
}
