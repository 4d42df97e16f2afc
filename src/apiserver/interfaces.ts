// The small interfaces between plat-apiserver's request pipeline and the parts plugged into it:
// authentication, authorization, admission, storage encryption and tracing. The server core
// (src/apiserver/server, handlers) calls these; the configuration-file issue provides further
// implementations (JWT, webhook authorizers, admission plugins, encryption providers, tracing).

import type { IncomingMessage } from 'node:http';

import type { UserInfo } from '../common/auth/user.js';

/** One type for both programs (src/common/auth/authenticator.ts). */
export type { AuthenticationResult, Authenticator } from '../common/auth/authenticator.js';

/**
 * The attributes of a request that authorizers decide on (the reference's authorizer.Attributes).
 */
export interface RequestAttributes {
  readonly user: UserInfo;
  readonly verb: string; // get list watch create update patch delete deletecollection approve ...
  readonly isResourceRequest: boolean;
  readonly path: string;
  readonly apiGroup: string;
  readonly apiVersion: string;
  readonly resource: string;
  readonly subresource: string;
  readonly namespace: string;
  readonly name: string;
  /**
   * The parsed fieldSelector of a list/watch/deletecollection (the reference's GetFieldSelector).
   */
  readonly fieldSelector?: readonly FieldSelectorRequirement[];
  /**
   * The parsed labelSelector, in the API's form (the reference's GetLabelSelector, as its webhook
   * sends it).
   */
  readonly labelSelector?: readonly LabelSelectorRequirement[];
}

export interface FieldSelectorRequirement {
  readonly field: string;
  readonly op: '=' | '!=';
  readonly value: string;
}

export interface LabelSelectorRequirement {
  readonly key: string;
  readonly operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist';
  readonly values: readonly string[];
}

export type AuthorizationDecision =
  | { readonly decision: 'allow'; readonly reason?: string }
  | { readonly decision: 'deny'; readonly reason?: string }
  | { readonly decision: 'no-opinion'; readonly reason?: string };

export interface Authorizer {
  /** Throws when it cannot decide (the request then gets 500, never an allow). */
  authorize(attrs: RequestAttributes): Promise<AuthorizationDecision>;
}

/** One RBAC-style rule (empty lists are absent fields). */
export interface PolicyRule {
  readonly verbs: readonly string[];
  readonly apiGroups: readonly string[];
  readonly resources: readonly string[];
  readonly resourceNames: readonly string[];
  readonly nonResourceURLs: readonly string[];
}

/** What `kubectl auth can-i --list` shows: the rules a user holds in a namespace. */
export interface SubjectRules {
  readonly resourceRules: readonly PolicyRule[];
  readonly nonResourceRules: readonly PolicyRule[];
  readonly incomplete: boolean;
  readonly evaluationError?: string;
}

/** An authorizer that can also list the rules a user holds (SelfSubjectRulesReview). */
export interface RuleResolver {
  rulesFor(user: UserInfo, namespace: string): Promise<SubjectRules>;
}

export type AdmissionOperation = 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';

export interface AdmissionRequest {
  readonly operation: AdmissionOperation;
  readonly resource: string; // plural, e.g. certificatesigningrequests
  readonly apiGroup: string;
  readonly subresource: string; // '', 'status', 'approval'
  readonly namespace: string;
  readonly name: string;
  readonly object: Record<string, unknown> | undefined;
  readonly oldObject: Record<string, unknown> | undefined;
  readonly user: UserInfo;
  readonly dryRun: boolean;
}

/**
 * An admission plugin, in the reference's two phases. A `mutating` plugin runs after defaulting
 * and before validation and may change `request.object`; the others are validating: they run
 * after validation (an invalid object gets 422 before any of their 403s) and must not change
 * it. To reject, throw an ApiError (src/common/util/errors.ts) carrying the HTTP status and
 * reason the client should get (403 Forbidden, 429 TooManyRequests, 422 Invalid ...).
 */
export interface AdmissionPlugin {
  readonly name: string;
  /**
   * A mutating plugin in the reference (NodeRestriction): it runs before validation and, on update,
   * before the optimistic-lock check, so its refusal wins over a 409 for a stale resourceVersion.
   */
  readonly mutating?: boolean;
  admit(request: AdmissionRequest): Promise<void>;
}

/**
 * Transforms stored values of one resource (encryption at rest). `context` is the storage key
 * (authenticated data for AEAD providers). `fromStorage` reports `stale` when the value was written
 * with a provider/key other than the current write provider (it should be rewritten).
 */
export interface ValueTransformer {
  toStorage(plaintext: Uint8Array, context: string): Promise<Uint8Array>;
  fromStorage(
    stored: Uint8Array,
    context: string,
  ): Promise<{ readonly data: Uint8Array; readonly stale: boolean }>;
}

/** Chooses the transformer for a resource (`resource` plural, `group` '' for core). */
export interface TransformerRegistry {
  transformerFor(resource: string, group: string): ValueTransformer;
}

/**
 * Per-request tracing: the server calls `startRequestSpan` for each request and `end` when done.
 */
export interface RequestTracer {
  startRequestSpan(req: IncomingMessage): { end(statusCode: number): void };
  shutdown(): Promise<void>;
}
