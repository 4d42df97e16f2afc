// The service-account token authenticator, as the reference's (pkg/serviceaccount, legacy
// secret-based tokens aside): a bearer JWT whose unverified `iss` is one of the
// --service-account-issuer values is this authenticator's; its signature must be one of the
// --service-account-key-file keys' (by kid, else any), its audiences must share one with the API
// audiences (a token without audiences counts as for them), its times must hold (one minute of
// leeway), and the service account, and the pod, secret or node it is bound to, must still exist
// with the UIDs it names. The user is `system:serviceaccount:<ns>:<name>` in
// `system:serviceaccounts` and `system:serviceaccounts:<ns>`, with the pod, node and credential ID
// in its extra. A refusal says why in the reference's words.

import type { IncomingMessage } from 'node:http';
import { bearerToken } from '../../common/auth/bearer-token.js';
import type { UserInfo } from '../../common/auth/user.js';
import type { Names } from '../../common/names.js';
import type { Clock } from '../../common/util/clock.js';
import { recordOf } from '../../common/util/json-shape.js';
import type { Logger } from '../../common/log/types.js';
import type { AuthenticationResult, Authenticator } from '../interfaces.js';
import {
  LEEWAY_SECONDS,
  readClaims,
  serviceAccountUsername,
  timeProblem,
  type ReadClaims,
  type Ref,
} from '../serviceaccount/claims.js';
import { parseJwt, verifiedBy } from '../serviceaccount/jwt.js';
import type { VerificationKey } from '../serviceaccount/keys.js';

type Obj = Record<string, unknown>;

/** What the authenticator reads from the cluster (undefined: not found). */
export interface ServiceAccountObjects {
  getServiceAccount(namespace: string, name: string): Promise<Obj | undefined>;
  getPod(namespace: string, name: string): Promise<Obj | undefined>;
  getSecret(namespace: string, name: string): Promise<Obj | undefined>;
  getNode(name: string): Promise<Obj | undefined>;
}

export interface ServiceAccountAuthenticatorOptions {
  readonly issuers: readonly string[];
  readonly keys: readonly VerificationKey[];
  /** The API audiences: a token must be for one of them. */
  readonly audiences: readonly string[];
  readonly objects: ServiceAccountObjects;
  readonly names: Names;
  readonly clock: Clock;
  readonly logger: Logger;
}

const INVALIDATED = 'service account token has been invalidated';

class Refused extends Error {}

function metaOf(o: Obj): { uid: string; deletionTimestamp: string } {
  const rec = recordOf(o['metadata']);
  const s = (k: string): string => (typeof rec[k] === 'string' ? rec[k] : '');
  return { uid: s('uid'), deletionTimestamp: s('deletionTimestamp') };
}

/** Go's %q of a string list: ["a" "b"]. */
function quotedList(list: readonly string[]): string {
  return `[${list.map((a) => JSON.stringify(a)).join(' ')}]`;
}

/** The unverified issuer of a token, as the reference's hasCorrectIssuer reads it. */
function unverifiedIssuer(token: string): string | undefined {
  if (token.trim().startsWith('{')) return undefined;
  const parts = token.split('.');
  if (parts.length !== 3) return undefined;
  try {
    const v: unknown = JSON.parse(Buffer.from(parts[1] ?? '', 'base64url').toString('utf8'));
    const iss = recordOf(v)['iss'];
    return typeof iss === 'string' ? iss : undefined;
  } catch {
    return undefined;
  }
}

export class ServiceAccountTokenAuthenticator implements Authenticator {
  private readonly o: ServiceAccountAuthenticatorOptions;
  constructor(o: ServiceAccountAuthenticatorOptions) {
    this.o = o;
  }

  async authenticate(req: IncomingMessage): Promise<AuthenticationResult> {
    const token = bearerToken(req);
    if (token === undefined) return { kind: 'no-opinion' };
    const iss = unverifiedIssuer(token);
    if (iss === undefined || !this.o.issuers.includes(iss)) return { kind: 'no-opinion' };
    const jwt = parseJwt(token);
    if (jwt === undefined) return { kind: 'no-opinion' };
    try {
      const keys = jwt.kid === '' ? this.o.keys : this.o.keys.filter((k) => k.kid === jwt.kid);
      if (keys.length === 0) throw new Refused('invalid signature, no keys found');
      if (!verifiedBy(jwt, keys))
        throw new Refused('square/go-jose: error in cryptographic primitive');
      const claims = readClaims(jwt.payload);
      if (!this.o.issuers.includes(claims.iss))
        throw new Refused(`token issuer ${JSON.stringify(claims.iss)} is invalid`);
      this.checkAudiences(claims);
      const user = await this.validate(claims);
      return { kind: 'authenticated', user, method: 'serviceaccount' };
    } catch (err) {
      if (!(err instanceof Refused)) throw err;
      this.o.logger.debug({ reason: err.message }, 'service account token refused');
      return { kind: 'rejected', reason: err.message };
    }
  }

  private checkAudiences(c: ReadClaims): void {
    const implicit = this.o.audiences;
    const tokenAuds = c.aud.length === 0 ? implicit : c.aud;
    const shared = tokenAuds.filter((a) => implicit.includes(a));
    if (shared.length === 0 && implicit.length > 0)
      throw new Refused(
        `token audiences ${quotedList(tokenAuds)} is invalid for the target audiences ` +
          quotedList(implicit),
      );
  }

  /** A bound object still there, with the claimed UID and not deleted over a minute ago. */
  private bound(obj: Obj | undefined, ref: Ref, what: string, claimWord: string): void {
    if (obj === undefined) throw new Refused(INVALIDATED);
    const m = metaOf(obj);
    if (m.uid !== ref.uid)
      throw new Refused(
        `${what} UID (${m.uid}) does not match service account ${claimWord} claim (${ref.uid})`,
      );
    if (this.deletedLongAgo(m.deletionTimestamp)) throw new Refused(INVALIDATED);
  }

  private deletedLongAgo(ts: string): boolean {
    if (ts === '') return false;
    return Date.parse(ts) < this.o.clock.nowMs() - LEEWAY_SECONDS * 1000;
  }

  private async validate(c: ReadClaims): Promise<UserInfo> {
    const problem = timeProblem(c, Math.floor(this.o.clock.nowMs() / 1000));
    if (problem !== undefined) throw new Refused(problem);
    const { objects } = this.o;
    const ns = c.namespace;
    const sa = await objects.getServiceAccount(ns, c.serviceAccount.name);
    if (sa === undefined)
      throw new Refused(`serviceaccounts ${JSON.stringify(c.serviceAccount.name)} not found`);
    const saMeta = metaOf(sa);
    if (saMeta.uid !== c.serviceAccount.uid)
      throw new Refused(
        `service account UID (${saMeta.uid}) does not match claim (${c.serviceAccount.uid})`,
      );
    if (this.deletedLongAgo(saMeta.deletionTimestamp))
      throw new Refused(`service account ${ns}/${c.serviceAccount.name} has been deleted`);
    if (c.secret !== undefined)
      this.bound(await objects.getSecret(ns, c.secret.name), c.secret, 'secret', 'secret ref');
    if (c.pod !== undefined)
      this.bound(await objects.getPod(ns, c.pod.name), c.pod, 'pod', 'pod ref');
    else if (c.node !== undefined)
      this.bound(await objects.getNode(c.node.name), c.node, 'node', 'node ref');
    return this.userOf(c);
  }

  private userOf(c: ReadClaims): UserInfo {
    const x = this.o.names.serviceAccounts.extra;
    const extra: Record<string, string[]> = {};
    if (c.pod !== undefined && c.pod.name !== '' && c.pod.uid !== '') {
      extra[x.podName] = [c.pod.name];
      extra[x.podUid] = [c.pod.uid];
    }
    if (c.jti !== '') extra[x.credentialId] = [`JTI=${c.jti}`];
    if (c.node !== undefined && c.node.name !== '') {
      extra[x.nodeName] = [c.node.name];
      if (c.node.uid !== '') extra[x.nodeUid] = [c.node.uid];
    }
    return {
      username: serviceAccountUsername(c.namespace, c.serviceAccount.name),
      uid: c.serviceAccount.uid,
      groups: ['system:serviceaccounts', `system:serviceaccounts:${c.namespace}`],
      ...(Object.keys(extra).length > 0 ? { extra } : {}),
    };
  }
}
