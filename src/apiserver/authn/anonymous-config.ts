// Anonymous access from AuthenticationConfiguration.anonymous: requests without credentials are
// system:anonymous, on every path or only on the listed ones.
import type { IncomingMessage } from 'node:http';
import type { AnonymousAuthConfig } from '../config/authentication.js';
import type { AuthenticationResult, Authenticator, UserInfo } from '../interfaces.js';

export const ANONYMOUS_USER: UserInfo = { username: 'system:anonymous', groups: ['system:unauthenticated'] };

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
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      if (!this.paths.has(path)) return Promise.resolve({ kind: 'no-opinion' });
    }
    return Promise.resolve({ kind: 'authenticated', user: ANONYMOUS_USER });
  }
}
