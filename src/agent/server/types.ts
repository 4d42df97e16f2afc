// The small interfaces the agent's servers consume. They are owned here (the consumer) so the
// server can be built and tested before, and independently of, the parts that implement them
// (pods, runtime, client, certificates); src/agent.ts adapts those parts to these shapes.

import type { Writable } from 'node:stream';

import type { UserInfo } from '../../common/auth/user.js';
import type { SarSpecV1 } from '../../common/auth/subject-access-review.js';

/** Who made a request (one type for both programs). */
export type { UserInfo };

/** One type for both programs (src/common/auth/authenticator.ts). */
export type { AuthenticationResult, Authenticator } from '../../common/auth/authenticator.js';

/** The request attributes the reference's node agent authorizes on ("Server" item 5). */
export interface RequestAttributes {
  readonly user: UserInfo;
  readonly verb: string;
  readonly namespace: string;
  readonly apiGroup: string;
  readonly apiVersion: string;
  readonly resource: 'nodes';
  readonly subresource: string;
  readonly name: string;
  readonly path: string;
}

export interface AuthorizationDecision {
  readonly allowed: boolean;
  readonly reason: string;
}

export interface Authorizer {
  /** Throws when it cannot decide: the request then gets 500, never an allow. */
  authorize(attrs: RequestAttributes): Promise<AuthorizationDecision>;
}

/**
 * Raised by an authenticator or authorizer whose backend (TokenReview, SubjectAccessReview) failed.
 */
export class AuthUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'AuthUnavailableError';
  }
}

/** The TokenReview call (POST /apis/authentication.{domain}/v1/tokenreviews). */
export interface TokenReviewStatus {
  readonly authenticated: boolean;
  readonly user?: UserInfo;
  readonly audiences?: readonly string[];
  readonly error?: string;
}
export interface TokenReviewer {
  review(token: string, signal?: AbortSignal): Promise<TokenReviewStatus>;
}

/** The SubjectAccessReview call (POST /apis/authorization.{domain}/v1/subjectaccessreviews). */
export type SubjectAccessReviewSpec = SarSpecV1;
export interface SubjectAccessReviewStatus {
  readonly allowed: boolean;
  readonly denied?: boolean;
  readonly reason?: string;
  readonly evaluationError?: string;
}
export interface SubjectAccessReviewer {
  review(spec: SubjectAccessReviewSpec, signal?: AbortSignal): Promise<SubjectAccessReviewStatus>;
}

/** The serving certificate, asked for at each new connection (it may rotate). */
export interface ServingTlsMaterial {
  readonly cert: string | Buffer;
  readonly key: string | Buffer;
}
export interface ServingTlsSource {
  current(): ServingTlsMaterial;
}

/** A pod as served by /pods: the API object (kept opaque here). */
export type PodObject = Record<string, unknown>;

export interface PodsProvider {
  /** The pods the agent manages (desired state, with their latest status). */
  pods(): readonly PodObject[];
}

export interface RunningPodsProvider {
  /** Pods as the container runtime sees them. */
  runningPods(): Promise<readonly PodObject[]>;
}

export interface StatsProvider {
  /** The `/stats/summary` document (node and pod CPU and memory). */
  summary(): Promise<unknown>;
}

export interface ContainerLogOptions {
  readonly tailLines?: number;
  readonly follow: boolean;
  readonly timestamps: boolean;
  /** Only the lines at or after this time (sinceSeconds or sinceTime), in ms since the epoch. */
  readonly sinceMs?: number;
  readonly limitBytes?: number;
  /** The logs of the instance before the current one (restarted containers). */
  readonly previous?: boolean;
}

export interface ContainerLogs {
  /**
   * Writes the logs of one container to `out` (until the end, or until `signal` aborts when
   * following). Throws a ContainerNotFoundError when the pod or container is unknown.
   */
  writeLogs(
    ref: ContainerRef,
    options: ContainerLogOptions,
    out: Writable,
    signal: AbortSignal,
  ): Promise<void>;
}

export interface ContainerRef {
  readonly namespace: string;
  readonly pod: string;
  readonly uid?: string;
  readonly container: string;
}

export interface CommandResult {
  readonly stdout: Buffer;
  readonly stderr: Buffer;
  readonly exitCode: number;
}

export interface CommandRunner {
  /** Runs a command in a container without a terminal and returns its output. */
  run(
    ref: ContainerRef,
    command: readonly string[],
    options: { timeoutMs: number; signal: AbortSignal },
  ): Promise<CommandResult>;
}

export class ContainerNotFoundError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ContainerNotFoundError';
  }
}

/** `previous` asked for a container that has not terminated before (the reference's 400). */
export class NoPreviousContainerError extends Error {
  constructor(container: string, pod: string) {
    super(`previous terminated container "${container}" in pod "${pod}" not found`);
    this.name = 'NoPreviousContainerError';
  }
}

/** When the sync loop last ran (for /healthz/syncloop). */
export interface SyncLoopMonitor {
  /**
   * Milliseconds since the epoch of the latest sync-loop iteration start, undefined before the
   * first.
   */
  lastIterationMs(): number | undefined;
}
