// The bootstrap token authenticator (--enable-bootstrap-token-auth), as the reference's: a bearer
// token of the bootstrap form is looked up as its Secret on every request, so a deleted or expired
// token is refused at once (there is no cache to outlive it). A refused token gives no opinion (the
// request then gets 401 for an unknown bearer token); why is logged without the secret.

import type { IncomingMessage } from 'node:http';
import type { Clock } from '../../common/util/clock.js';
import type { Logger } from '../../common/log/types.js';
import { bearerToken } from '../../common/auth/bearer-token.js';
import type { AuthenticationResult, Authenticator } from '../interfaces.js';
import {
  parseToken,
  SECRET_PREFIX,
  SYSTEM_NAMESPACE,
  tokenUser,
} from '../bootstrap-token/token.js';

export interface SecretReader {
  getSecret(namespace: string, name: string): Promise<Record<string, unknown> | undefined>;
}

export interface BootstrapTokenAuthenticatorOptions {
  readonly secrets: SecretReader;
  readonly platformDomain: string;
  /** Where the token Secrets live: the profile's system namespace (the reference's kube-system). */
  readonly namespace?: string;
  readonly clock: Clock;
  readonly logger: Logger;
}

const NO_OPINION: AuthenticationResult = { kind: 'no-opinion' };

export class BootstrapTokenAuthenticator implements Authenticator {
  private readonly o: BootstrapTokenAuthenticatorOptions;
  constructor(o: BootstrapTokenAuthenticatorOptions) {
    this.o = o;
  }

  async authenticate(req: IncomingMessage): Promise<AuthenticationResult> {
    const token = bearerToken(req);
    const parsed = token === undefined ? undefined : parseToken(token);
    if (parsed === undefined) return NO_OPINION;
    const name = `${SECRET_PREFIX}${parsed.id}`;
    const secret = await this.o.secrets.getSecret(this.o.namespace ?? SYSTEM_NAMESPACE, name);
    if (secret === undefined) {
      this.o.logger.info(
        { tokenId: parsed.id, secret: `${this.o.namespace ?? SYSTEM_NAMESPACE}/${name}` },
        `no secret matches the bootstrap token "${parsed.id}"; token refused`,
      );
      return NO_OPINION;
    }
    const r = tokenUser(
      secret,
      parsed.id,
      parsed.secret,
      this.o.platformDomain,
      this.o.clock.now(),
    );
    if ('problem' in r) {
      // A token that exists but is refused is a setup mistake a person must see (another naming
      // profile's type, expired, not for authentication): said at the warning level.
      this.o.logger.warn(
        { tokenId: parsed.id, secret: `${this.o.namespace ?? SYSTEM_NAMESPACE}/${name}` },
        `bootstrap token secret ${this.o.namespace ?? SYSTEM_NAMESPACE}/${name} ` +
          `${r.problem}; token refused`,
      );
      return NO_OPINION;
    }
    return { kind: 'authenticated', user: r.user };
  }
}
