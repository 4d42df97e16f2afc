// POST serviceaccounts/<name>/token: the TokenRequest API (authentication/v1), as the reference's
// TokenREST: the request's name and namespace must match the path's; audiences default to the
// API audiences and expirationSeconds to 3600 (at least 10 minutes, at most 2^32 seconds);
// admission sees the TokenRequest (NodeRestriction); a boundObjectRef names a Pod (whose service
// account must be this one; its node is named in the token), a Node or a Secret, and its UID,
// when given, must be the object's; --service-account-max-token-expiration shortens a longer
// request with a warning; the admission-injected 3607 s token for the API audiences is extended to
// a year with a warnafter claim. The answer carries the token and its expiry (the requested one).

import type { Clock } from '../../common/util/clock.js';
import { isRecord, recordOf } from '../../common/util/json-shape.js';
import type { ActionCall, SubresourceAction } from '../handlers/actions.js';
import { timeString } from '../registry/meta.js';
import type { Registry } from '../registry/registry.js';
import { metaOf, objAt, str, type Obj, type ResourceDef } from '../registry/types.js';
import { badRequest, conflict, invalid, StatusError, type FieldErrorLike } from '../status.js';
import {
  EXPIRATION_EXTENSION_SECONDS,
  WARN_ONLY_BOUND_TOKEN_EXPIRATION_SECONDS,
  tokenClaims,
  type Ref,
  type TokenBinding,
} from './claims.js';
import type { ServiceAccountTokenConfig } from './flags.js';
import { signJwt } from './jwt.js';

export interface TokenRequestOptions {
  readonly registry: Registry;
  readonly defs: {
    readonly serviceAccount: ResourceDef;
    readonly pod: ResourceDef;
    readonly node: ResourceDef;
    readonly secret: ResourceDef;
  };
  readonly config: ServiceAccountTokenConfig;
  /** The API audiences (--api-audiences, else the issuers). */
  readonly apiAudiences: readonly string[];
  /** authentication.<group domain>. */
  readonly authenticationGroup: string;
  readonly clock: Clock;
}

const DEFAULT_EXPIRATION_SECONDS = 3600;
const MIN_EXPIRATION_SECONDS = 600;

function refOf(obj: Obj): Ref {
  const m = metaOf(obj);
  return { name: str(m['name']) ?? '', uid: str(m['uid']) ?? '' };
}

/**
 * What a Pod binding adds: the pod, and its node when it is bound to one (a missing node by name).
 */
interface Bound {
  readonly binding: Omit<TokenBinding, 'serviceAccount'>;
  readonly uid: string;
  readonly kind: string;
  readonly isPod: boolean;
}

export class TokenRequestAction implements SubresourceAction {
  readonly kind = 'TokenRequest';
  readonly apiVersion: string;
  private readonly o: TokenRequestOptions;

  constructor(o: TokenRequestOptions) {
    this.o = o;
    this.apiVersion = `${o.authenticationGroup}/v1`;
  }

  private refuseInvalid(name: string, errs: FieldErrorLike[]): StatusError {
    return invalid('TokenRequest', this.o.authenticationGroup, name, errs);
  }

  /** The request's metadata and spec, checked and defaulted as the reference's Create does. */
  private requestOf(call: ActionCall): { meta: Obj; spec: Obj } {
    const meta = recordOf(call.body['metadata']);
    const given = (k: string): string => str(meta[k]) ?? '';
    if (given('name') !== '' && given('name') !== call.name)
      throw this.refuseInvalid(call.name, [
        {
          type: 'FieldValueInvalid',
          field: 'metadata.name',
          value: given('name'),
          detail: 'must match the service account name if specified',
        },
      ]);
    if (given('namespace') !== '' && given('namespace') !== call.namespace)
      throw this.refuseInvalid(call.name, [
        {
          type: 'FieldValueInvalid',
          field: 'metadata.namespace',
          value: given('namespace'),
          detail: 'must match the service account namespace if specified',
        },
      ]);
    // The reference's TokenRequestSpec: audiences, expirationSeconds, boundObjectRef (omitted when
    // null).
    const asked = recordOf(call.body['spec']);
    const spec: Obj = {};
    for (const k of ['audiences', 'expirationSeconds', 'boundObjectRef'])
      if (asked[k] !== undefined && asked[k] !== null) spec[k] = asked[k];
    return { meta, spec };
  }

  async create(call: ActionCall): Promise<{ code: number; object: Obj }> {
    const { registry, defs } = this.o;
    const { meta, spec } = this.requestOf(call);
    const sa = await registry.get(defs.serviceAccount, call.namespace, call.name);
    const asked = Array.isArray(spec['audiences'])
      ? spec['audiences'].filter((a): a is string => typeof a === 'string')
      : [];
    const audiences = asked.length > 0 ? asked : [...this.o.apiAudiences];
    spec['audiences'] = audiences;
    spec['expirationSeconds'] ??= DEFAULT_EXPIRATION_SECONDS;
    const now = this.o.clock.now();
    const request: Obj = {
      kind: this.kind,
      apiVersion: this.apiVersion,
      metadata: {
        ...meta,
        name: call.name,
        namespace: call.namespace,
        creationTimestamp: timeString(now),
      },
      spec,
    };
    const errs = validateExpiration(spec['expirationSeconds']);
    if (errs.length > 0) throw this.refuseInvalid('', errs);
    await registry.admitAction(defs.serviceAccount, 'token', call, structuredClone(request), call);
    const bound = await this.boundObject(call, spec['boundObjectRef']);
    const expiration = this.expiration(spec, call.warnings);
    const { exp, warnAfter } = this.extended(expiration, bound, audiences);
    const token = signJwt(
      this.o.config.signingKey,
      tokenClaims({
        issuer: this.o.config.issuers[0] ?? '',
        audiences,
        nowSeconds: Math.floor(now.getTime() / 1000),
        expirationSeconds: exp,
        warnAfterSeconds: warnAfter,
        binding: { ...bound?.binding, serviceAccount: { ...refOf(sa), namespace: call.namespace } },
      }),
    );
    request['status'] = {
      token,
      expirationTimestamp: timeString(new Date(now.getTime() + expiration * 1000)),
    };
    return { code: 201, object: request };
  }

  /** The requested life, shortened to the maximum (with the reference's warning). */
  private expiration(spec: Obj, warnings: string[]): number {
    const asked =
      typeof spec['expirationSeconds'] === 'number'
        ? spec['expirationSeconds']
        : DEFAULT_EXPIRATION_SECONDS;
    const max = this.o.config.maxExpirationSeconds;
    if (max > 0 && asked > max) {
      warnings.push(`requested expiration of ${asked} seconds shortened to ${max} seconds`);
      spec['expirationSeconds'] = max;
      return max;
    }
    return asked;
  }

  private extended(
    expiration: number,
    bound: Bound | undefined,
    audiences: readonly string[],
  ): { exp: number; warnAfter: number } {
    const kubeAudiences = audiences.every((a) => this.o.apiAudiences.includes(a));
    if (
      this.o.config.extendExpiration &&
      bound?.isPod === true &&
      expiration === WARN_ONLY_BOUND_TOKEN_EXPIRATION_SECONDS &&
      kubeAudiences
    )
      return { exp: EXPIRATION_EXTENSION_SECONDS, warnAfter: expiration };
    return { exp: expiration, warnAfter: 0 };
  }

  private async boundObject(call: ActionCall, refValue: unknown): Promise<Bound | undefined> {
    if (!isRecord(refValue)) return undefined;
    const apiVersion = str(refValue['apiVersion']) ?? '';
    const kind = str(refValue['kind']) ?? '';
    const name = str(refValue['name']) ?? '';
    const group = apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.indexOf('/')) : '';
    const version = apiVersion.includes('/')
      ? apiVersion.slice(apiVersion.indexOf('/') + 1)
      : apiVersion;
    let bound: Bound;
    if (group === '' && kind === 'Pod') bound = await this.podBinding(call, name);
    else if (group === '' && kind === 'Node') {
      const node = await this.o.registry.get(this.o.defs.node, '', name);
      bound = { binding: { node: refOf(node) }, uid: refOf(node).uid, kind, isPod: false };
    } else if (group === '' && kind === 'Secret') {
      const secret = await this.o.registry.get(this.o.defs.secret, call.namespace, name);
      bound = { binding: { secret: refOf(secret) }, uid: refOf(secret).uid, kind, isPod: false };
    } else
      throw badRequest(`cannot bind token to object of type ${group}/${version}, Kind=${kind}`);
    const uid = str(refValue['uid']) ?? '';
    if (uid !== '' && uid !== bound.uid)
      throw conflict(
        kind,
        group,
        name,
        `the UID in the bound object reference (${uid}) does not match the UID in ` +
          `record. The object might have been deleted and then recreated`,
      );
    return bound;
  }

  private async podBinding(call: ActionCall, name: string): Promise<Bound> {
    const pod = await this.o.registry.get(this.o.defs.pod, call.namespace, name);
    const spec = objAt(pod, 'spec') ?? {};
    if (call.name !== (str(spec['serviceAccountName']) ?? ''))
      throw badRequest(
        `cannot bind token for serviceaccount ${JSON.stringify(call.name)} to pod ` +
          `running with different serviceaccount name.`,
      );
    const nodeName = str(spec['nodeName']) ?? '';
    let node: Ref | undefined;
    if (nodeName !== '') {
      try {
        node = refOf(await this.o.registry.get(this.o.defs.node, '', nodeName));
      } catch (err) {
        if (!(err instanceof StatusError) || err.status !== 404) throw err;
        node = { name: nodeName, uid: '' };
      }
    }
    const podRef = refOf(pod);
    return {
      binding: { pod: podRef, ...(node === undefined ? {} : { node }) },
      uid: podRef.uid,
      kind: 'Pod',
      isPod: true,
    };
  }
}

function validateExpiration(v: unknown): FieldErrorLike[] {
  if (typeof v !== 'number' || !Number.isInteger(v))
    return [
      {
        type: 'FieldValueInvalid',
        field: 'spec.expirationSeconds',
        value: v,
        detail: 'must be an integer',
      },
    ];
  if (v < MIN_EXPIRATION_SECONDS)
    return [
      {
        type: 'FieldValueInvalid',
        field: 'spec.expirationSeconds',
        value: v,
        detail: 'may not specify a duration less than 10 minutes',
      },
    ];
  if (v > 2 ** 32)
    return [
      {
        type: 'FieldValueInvalid',
        field: 'spec.expirationSeconds',
        value: v,
        detail: 'may not specify a duration larger than 2^32 seconds',
      },
    ];
  return [];
}
