// Authentication as both programs' servers consume it: each authenticator looks at a request and
// says who made it, that it has nothing to say, or that the credential it knows is bad. A chain
// asks them in order (the agent's server/authn/chain.ts, plat-apiserver's authn/union.ts).

import type { IncomingMessage } from 'node:http';
import type { UserInfo } from './user.js';

export type AuthenticationResult =
  /** `method` names the credential that decided (x509, token, anonymous), for the log. */
  | { readonly kind: 'authenticated'; readonly user: UserInfo; readonly method?: string }
  /** No credential of this authenticator's kind was presented. */
  | { readonly kind: 'no-opinion' }
  /**
   * A credential of this kind was presented and is bad: 401. The agent logs the reason and never
   * sends it; plat-apiserver sends it as the reference does.
   */
  | { readonly kind: 'rejected'; readonly reason: string };

export interface Authenticator {
  /**
   * Throws when it cannot decide (the agent's AuthUnavailableError: the request gets 500, never a
   * pass).
   */
  authenticate(req: IncomingMessage): Promise<AuthenticationResult>;
}
