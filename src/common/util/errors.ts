// One error family for the whole project. Every error a user can see carries a stable `code`
// and the facts a person needs (field and flag, file, HTTP status), so callers can branch on
// the kind of failure without parsing messages, and `main()` can print one clean line.

export type ErrorCode =
  | 'Config'
  | 'Flag'
  | 'Api'
  | 'Runtime'
  | 'Certificate'
  | 'Manifest'
  | 'Platconfig'
  | 'UnsafePath'
  | 'InputLimit'
  | 'InputSyntax'
  | 'Internal';

export interface NodeAgentErrorOptions {
  cause?: unknown;
}

export class NodeAgentError extends Error {
  readonly code: ErrorCode;
  constructor(code: ErrorCode, message: string, options: NodeAgentErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.name = new.target.name;
  }
}

/** A bad flag value, unknown flag or positional argument. */
export class FlagError extends NodeAgentError {
  readonly flag: string | undefined;
  constructor(message: string, options: NodeAgentErrorOptions & { flag?: string } = {}) {
    super('Flag', message, options);
    this.flag = options.flag;
  }
}

/** A problem in a config file, drop-in or the merged configuration. */
export class ConfigError extends NodeAgentError {
  readonly file: string | undefined;
  readonly field: string | undefined;
  readonly flag: string | undefined;
  /** Several problems reported together (validation lists every error at once). */
  readonly problems: readonly string[];
  constructor(
    message: string,
    options: NodeAgentErrorOptions & {
      file?: string;
      field?: string;
      flag?: string;
      problems?: readonly string[];
    } = {},
  ) {
    super('Config', message, options);
    this.file = options.file;
    this.field = options.field;
    this.flag = options.flag;
    this.problems = options.problems ?? [message];
  }
}

/** A failed call to an API server, carrying the Status facts. */
export class ApiError extends NodeAgentError {
  readonly status: number;
  readonly reason: string;
  readonly details: unknown;
  constructor(
    message: string,
    options: NodeAgentErrorOptions & { status: number; reason: string; details?: unknown },
  ) {
    super('Api', message, options);
    this.status = options.status;
    this.reason = options.reason;
    this.details = options.details;
  }
}

export class RuntimeError extends NodeAgentError {
  constructor(message: string, options: NodeAgentErrorOptions = {}) {
    super('Runtime', message, options);
  }
}

export class CertificateError extends NodeAgentError {
  readonly file: string | undefined;
  constructor(message: string, options: NodeAgentErrorOptions & { file?: string } = {}) {
    super('Certificate', message, options);
    this.file = options.file;
  }
}

export class ManifestError extends NodeAgentError {
  readonly file: string | undefined;
  constructor(message: string, options: NodeAgentErrorOptions & { file?: string } = {}) {
    super('Manifest', message, options);
    this.file = options.file;
  }
}

/** A path built from an identifier would leave the directory it belongs under. */
export class UnsafePathError extends NodeAgentError {
  readonly root: string;
  constructor(message: string, options: NodeAgentErrorOptions & { root: string }) {
    super('UnsafePath', message, options);
    this.root = options.root;
  }
}

export class PlatconfigError extends NodeAgentError {
  readonly file: string | undefined;
  constructor(message: string, options: NodeAgentErrorOptions & { file?: string } = {}) {
    super('Platconfig', message, options);
    this.file = options.file;
  }
}

/**
 * An input (a file, a manifest, a request body) over one of its parse limits: which limit, its
 * value, the input it was found in and where (byte offset, and the field path when known).
 */
export class InputLimitError extends NodeAgentError {
  /** The ParseLimits field at fault, e.g. 'maxDepth'. */
  readonly limit: string;
  readonly max: number;
  /** The file, URL or `request body` the input came from. */
  readonly source: string;
  /** Byte offset into the input where the limit was passed. */
  readonly offset: number;
  /** Field path (`spec.containers[0].x`) where known, else ''. */
  readonly field: string;
  constructor(
    message: string,
    options: NodeAgentErrorOptions & {
      limit: string;
      max: number;
      source: string;
      offset: number;
      field: string;
    },
  ) {
    super('InputLimit', message, options);
    this.limit = options.limit;
    this.max = options.max;
    this.source = options.source;
    this.offset = options.offset;
    this.field = options.field;
  }
}

/** Input that is not well-formed JSON (the message is the parser's own, never the input). */
export class InputSyntaxError extends NodeAgentError {
  readonly source: string;
  constructor(message: string, options: NodeAgentErrorOptions & { source: string }) {
    super('InputSyntax', message, options);
    this.source = options.source;
  }
}

/** Walks the cause chain and returns the first error that satisfies `test`. */
export function findCause<T>(err: unknown, test: (e: unknown) => e is T): T | undefined {
  const seen = new Set<unknown>();
  let cur: unknown = err;
  while (cur !== undefined && cur !== null && !seen.has(cur)) {
    if (test(cur)) return cur;
    seen.add(cur);
    cur = cur instanceof Error ? cur.cause : undefined;
  }
  return undefined;
}

function apiWithStatus(status: number, reason?: string) {
  return (err: unknown): boolean =>
    findCause(
      err,
      (e): e is ApiError =>
        e instanceof ApiError &&
        (e.status === status || (reason !== undefined && e.reason === reason)),
    ) !== undefined;
}

export const isNotFound = apiWithStatus(404, 'NotFound');
export const isConflict = apiWithStatus(409, 'Conflict');
export const isAlreadyExists = (err: unknown): boolean =>
  findCause(err, (e): e is ApiError => e instanceof ApiError && e.reason === 'AlreadyExists') !==
  undefined;
export const isGone = apiWithStatus(410, 'Expired');
export const isUnauthorized = apiWithStatus(401, 'Unauthorized');
export const isForbidden = apiWithStatus(403, 'Forbidden');
export const isTooManyRequests = apiWithStatus(429, 'TooManyRequests');

/** Whether a Status's details carry a cause of this reason (details.causes[].reason). */
function hasStatusCause(details: unknown, reason: string): boolean {
  if (typeof details !== 'object' || details === null || !('causes' in details)) return false;
  const causes = details.causes;
  return (
    Array.isArray(causes) &&
    causes.some(
      (c: unknown) => typeof c === 'object' && c !== null && 'reason' in c && c.reason === reason,
    )
  );
}

/**
 * A list or watch from a resourceVersion the server has not reached (it restarted with less
 * history, or another server answers): the reference's reflector lists again from the latest.
 * Known by the ResourceVersionTooLarge cause, or, from servers that send none, by a 504 Timeout
 * saying "Too large resource version".
 */
export const isTooLargeResourceVersion = (err: unknown): boolean =>
  findCause(
    err,
    (e): e is ApiError =>
      e instanceof ApiError &&
      (hasStatusCause(e.details, 'ResourceVersionTooLarge') ||
        (e.status === 504 && e.message.includes('Too large resource version'))),
  ) !== undefined;

/** The message a user sees: the error's own message, never a stack trace. */
export function userMessage(err: unknown): string {
  if (err instanceof Error) return err.message;
  return String(err);
}
