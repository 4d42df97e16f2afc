// Status error bodies as the reference API server writes them. Every failed request is answered
// with one of these, so clients (kubectl, client libraries, our own client) can branch on
// `reason` and `code` without parsing messages.

import { ApiError } from '../common/util/errors.js';
import { formatFieldErrors, toStatusCauses, type FieldError } from './field-errors.js';
import { WIRE_NAMES } from '../common/names.js';

export type FieldErrorLike = FieldError;

export interface StatusCause {
  readonly reason?: string;
  readonly message?: string;
  readonly field?: string;
}

export interface StatusDetails {
  readonly name?: string;
  readonly group?: string;
  readonly kind?: string;
  readonly uid?: string;
  readonly causes?: readonly StatusCause[];
  readonly retryAfterSeconds?: number;
}

export interface StatusBody {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: { continue?: string; resourceVersion?: string };
  status: 'Failure' | 'Success';
  message?: string;
  reason?: string;
  details?: StatusDetails;
  code: number;
}

/** An error that the HTTP layer turns into a Status body with this code and reason. */
export class StatusError extends ApiError {
  readonly statusDetails: StatusDetails | undefined;
  readonly continueToken: string | undefined;
  constructor(
    code: number,
    reason: string,
    message: string,
    details?: StatusDetails,
    continueToken?: string,
  ) {
    super(message, { status: code, reason, details });
    this.statusDetails = details;
    this.continueToken = continueToken;
  }

  toStatus(): StatusBody {
    const body: StatusBody = {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: this.continueToken === undefined ? {} : { continue: this.continueToken },
      status: 'Failure',
      message: this.message,
      reason: this.reason,
      code: this.status,
    };
    if (this.statusDetails !== undefined) body.details = this.statusDetails;
    return body;
  }
}

/** `certificatesigningrequests.certificates.k8s.io` or `events` for the core group. */
export function qualifiedResource(resource: string, group: string): string {
  return group === '' ? resource : `${resource}.${group}`;
}

export function notFound(resource: string, group: string, name: string): StatusError {
  return new StatusError(
    404,
    'NotFound',
    `${qualifiedResource(resource, group)} "${name}" not found`,
    {
      name,
      group,
      kind: resource,
    },
  );
}

export function alreadyExists(resource: string, group: string, name: string): StatusError {
  return new StatusError(
    409,
    'AlreadyExists',
    `${qualifiedResource(resource, group)} "${name}" already exists`,
    {
      name,
      group,
      kind: resource,
    },
  );
}

export function conflict(resource: string, group: string, name: string, why?: string): StatusError {
  const msg =
    why ??
    'the object has been modified; please apply your changes to the latest version and try again';
  return new StatusError(
    409,
    'Conflict',
    `Operation cannot be fulfilled on ${qualifiedResource(resource, group)} "${name}": ${msg}`,
    {
      name,
      group,
      kind: resource,
    },
  );
}

export function badRequest(message: string): StatusError {
  return new StatusError(400, 'BadRequest', message);
}

export function methodNotAllowed(method: string): StatusError {
  return new StatusError(
    405,
    'MethodNotAllowed',
    `the server does not allow this method on the requested resource`,
    {
      causes: [{ reason: 'MethodNotAllowed', message: `${method} is not supported` }],
    },
  );
}

export function unsupportedMediaType(
  contentType: string,
  supported: readonly string[],
): StatusError {
  return new StatusError(
    415,
    'UnsupportedMediaType',
    `the body of the request was in an unknown format - accepted media types include: ` +
      supported.join(', '),
    { causes: [{ reason: 'UnsupportedMediaType', message: contentType }] },
  );
}

export function notAcceptable(): StatusError {
  return new StatusError(
    406,
    'NotAcceptable',
    `only the following media types are accepted: application/json, application/yaml, ` +
      WIRE_NAMES.protobufMediaType,
  );
}

export function tooLarge(limit: number): StatusError {
  return new StatusError(
    413,
    'RequestEntityTooLarge',
    `Request entity too large: limit is ${limit}`,
  );
}

export function expired(message: string, continueToken?: string): StatusError {
  return new StatusError(410, 'Expired', message, undefined, continueToken);
}

export function gone(message: string): StatusError {
  return new StatusError(410, 'Gone', message);
}

export function unauthorized(): StatusError {
  return new StatusError(401, 'Unauthorized', 'Unauthorized');
}

export function forbidden(message: string, details?: StatusDetails): StatusError {
  return new StatusError(403, 'Forbidden', message, details);
}

export function internalError(message: string): StatusError {
  return new StatusError(500, 'InternalError', `Internal error occurred: ${message}`, {
    causes: [{ message }],
  });
}

export function timeout(message: string): StatusError {
  return new StatusError(504, 'Timeout', message);
}

/** 422 Invalid: `Kind.group "name" is invalid: <errors>` with one cause per field error. */
export function invalid(
  kind: string,
  group: string,
  name: string,
  errs: readonly FieldErrorLike[],
): StatusError {
  const qualifiedKind = group === '' ? kind : `${kind}.${group}`;
  return new StatusError(
    422,
    'Invalid',
    `${qualifiedKind} "${name}" is invalid: ${formatFieldErrors(errs)}`,
    {
      name,
      group,
      kind,
      causes: toStatusCauses(errs),
    },
  );
}

export function successStatus(details: StatusDetails): StatusBody {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details, code: 200 };
}
