// Anonymous access from AuthenticationConfiguration.anonymous: requests without credentials are
// system:anonymous, on every path or only on the listed ones.
import type { IncomingMessage } from 'node:http';
import type { AnonymousAuthConfig } from '../config/authentication.js';
import type { AuthenticationResult, Authenticator } from '../interfaces.js';
import type { UserInfo } from '../../common/auth/user.js';
import { parseRequestTarget } from '../request-target.js';

export const ANONYMOUS_USER: UserInfo = {
  username: 'system:anonymous',
  groups: ['system:unauthenticated'],
};

export class ConfiguredAnonymousAuthenticator implements Authenticator {
  private readonly enabled: boolean;
  private readonly paths: ReadonlySet<string> | undefined;

  constructor(opts: { config: AnonymousAuthConfig }) {
    this.enabled = opts.config.enabled;
    const conds = opts.config.conditions ?? [];
    this.paths = conds.length === 0 ? undefined : new Set(conds.map((c) => c.path));
  }

  authenticate(req: IncomingMessage): Promise<AuthenticationResult> {
    if (!this.enabled) return Promise.resolve({ kind: 'no-opinion' });
    // Only requests that present no credential at all are anonymous.
    if (req.headers.authorization !== undefined) return Promise.resolve({ kind: 'no-opinion' });
    if (this.paths !== undefined) {
      if (!this.paths.has(requestPathOrEmpty(req.url)))
        return Promise.resolve({ kind: 'no-opinion' });
    }
    return Promise.resolve({ kind: 'authenticated', user: ANONYMOUS_USER });
  }
}

/**
 * The path the server routes (decoded, never dot-resolved); '' when it cannot be decoded (the
 * server answers 400).
 */
function requestPathOrEmpty(url: string | undefined): string {
  try {
    return parseRequestTarget(url).path;
  } catch {
    return '';
  }
}
