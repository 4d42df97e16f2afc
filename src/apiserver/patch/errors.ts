// The error every patch and field-manager operation throws: the HTTP status, the Status reason,
// the message and (for apply conflicts and field errors) the causes of the Status body.

/**
 * A Status cause as serialized: `reason` is the cause type (FieldManagerConflict,
 * FieldValueInvalid, ...).
 */
export interface PatchErrorCause {
  readonly reason: string;
  readonly message: string;
  readonly field?: string;
}

export class PatchError extends Error {
  readonly status: number;
  readonly reason: string;
  readonly causes: readonly PatchErrorCause[] | undefined;
  constructor(opts: {
    status: number;
    reason: string;
    message: string;
    causes?: readonly PatchErrorCause[];
  }) {
    super(opts.message);
    this.name = 'PatchError';
    this.status = opts.status;
    this.reason = opts.reason;
    this.causes = opts.causes;
  }
}

export const badRequest = (message: string): PatchError =>
  new PatchError({ status: 400, reason: 'BadRequest', message });
export const unprocessable = (message: string, causes?: readonly PatchErrorCause[]): PatchError =>
  new PatchError({
    status: 422,
    reason: 'Invalid',
    message,
    ...(causes !== undefined ? { causes } : {}),
  });
