// Write and delete options from the query (and the DeleteOptions body): dryRun, fieldManager,
// fieldValidation, force, gracePeriodSeconds, preconditions, propagationPolicy, orphanDependents,
// ignoreStoreReadErrorWithClusterBreakingPotential; validated as the reference's
// ValidateCreateOptions/ValidateUpdateOptions/ValidatePatchOptions/ValidateDeleteOptions.

import type { IncomingMessage } from 'node:http';
import type { Params } from '../params.js';
import { badRequest, invalid, type FieldErrorLike } from '../status.js';
import type { FieldValidation } from './decode-object.js';
import { isOneOf, isRecord, listOf } from '../../common/util/json-shape.js';
import { parseJsonBody } from '../body-limits.js';
import { textOf } from '../../common/util/text-of.js';

const FIELD_VALIDATIONS: readonly FieldValidation[] = ['Ignore', 'Warn', 'Strict'];

export interface ParsedWriteOptions {
  readonly dryRun: boolean;
  readonly fieldManager: string;
  readonly fieldValidation: FieldValidation;
  readonly force: boolean;
}

function validateDryRun(values: readonly string[], errs: FieldErrorLike[]): boolean {
  if (values.length === 0) return false;
  const bad = values.filter((v) => v !== 'All');
  if (bad.length > 0)
    errs.push({
      type: 'FieldValueNotSupported',
      field: 'dryRun',
      value: [...values],
      detail: 'supported values: "All"',
    });
  return true;
}

function isPrintable(ch: string): boolean {
  // Letters, marks, numbers, punctuation, symbols and the ASCII space (Go's unicode.IsPrint).
  return ch === ' ' || /^[\p{L}\p{M}\p{N}\p{P}\p{S}]$/u.test(ch);
}

export function validateFieldManager(manager: string, errs: FieldErrorLike[]): void {
  if (manager.length > 128)
    errs.push({
      type: 'FieldValueTooLong',
      field: 'fieldManager',
      value: manager,
      detail: 'must have at most 128 bytes',
    });
  let i = 0;
  for (const ch of manager) {
    if (!isPrintable(ch)) {
      const cp = ch.codePointAt(0) ?? 0;
      errs.push({
        type: 'FieldValueInvalid',
        field: 'fieldManager',
        value: manager,
        detail:
          `invalid character U+${cp.toString(16).toUpperCase().padStart(4, '0')} (at ` +
          `position ${i})`,
      });
    }
    i += Buffer.byteLength(ch);
  }
}

/** The default manager name: the User-Agent up to its first '/' (the reference's rule). */
export function defaultFieldManager(req: IncomingMessage): string {
  const ua = req.headers['user-agent'] ?? '';
  return (ua.split('/')[0] ?? '').slice(0, 128);
}

export function parseWriteOptions(
  params: Params,
  req: IncomingMessage,
  optionsKind: 'CreateOptions' | 'UpdateOptions' | 'PatchOptions',
  domain: string,
  patchType?: string,
): ParsedWriteOptions {
  const errs: FieldErrorLike[] = [];
  const dryRun = validateDryRun(params.all('dryRun'), errs);
  const given = params.string('fieldManager');
  if (given !== undefined) validateFieldManager(given, errs);
  const fv = params.string('fieldValidation') ?? '';
  if (fv !== '' && fv !== 'Ignore' && fv !== 'Warn' && fv !== 'Strict') {
    errs.push({
      type: 'FieldValueNotSupported',
      field: 'fieldValidation',
      value: fv,
      detail: 'supported values: "Ignore", "Strict", "Warn"',
    });
  }
  const force = params.bool('force');
  if (optionsKind === 'PatchOptions') {
    const isApply = patchType === 'application/apply-patch+yaml';
    if (isApply && (given === undefined || given === '')) {
      errs.push({
        type: 'FieldValueRequired',
        field: 'fieldManager',
        detail: 'is required for apply patch',
      });
    }
    if (!isApply && force !== undefined) {
      errs.push({
        type: 'FieldValueForbidden',
        field: 'force',
        detail: 'may not be specified for non-apply patch',
      });
    }
  }
  if (errs.length > 0) throw invalid(optionsKind, `meta.${domain}`, '', errs);
  return {
    dryRun,
    fieldManager: given === undefined || given === '' ? defaultFieldManager(req) : given,
    fieldValidation: isOneOf(FIELD_VALIDATIONS, fv) ? fv : 'Warn',
    force: force === true,
  };
}

export interface ParsedDeleteOptions {
  readonly dryRun: boolean;
  readonly gracePeriodSeconds: number | undefined;
  readonly preconditions: { uid?: string; resourceVersion?: string } | undefined;
  readonly propagationPolicy: string | undefined;
  readonly orphanDependents: boolean | undefined;
  readonly ignoreStoreReadError: boolean;
}

const policies = ['Foreground', 'Background', 'Orphan'];

/** The DeleteOptions body as an object ({} when there is none); 400 when it is not one. */
function deleteOptionsBody(body: string): Record<string, unknown> {
  if (body.trim() === '') return {};
  let parsed: unknown;
  try {
    parsed = parseJsonBody(body);
  } catch (err) {
    throw badRequest(
      `the body of the request was in an unknown format: ` +
        (err instanceof Error ? err.message : String(err)),
    );
  }
  if (!isRecord(parsed)) throw badRequest('the body must be a DeleteOptions object');
  const kind = parsed['kind'];
  if (kind !== undefined && kind !== 'DeleteOptions') {
    throw badRequest(
      `the body of the request was in an unknown format: expected DeleteOptions, got ` +
        textOf(kind),
    );
  }
  return parsed;
}

/** gracePeriodSeconds (body first, then query): a whole number of seconds, not negative. */
function gracePeriod(
  b: Record<string, unknown>,
  params: Params,
  errs: FieldErrorLike[],
): number | undefined {
  const grace =
    typeof b['gracePeriodSeconds'] === 'number'
      ? b['gracePeriodSeconds']
      : params.int('gracePeriodSeconds');
  if (grace !== undefined && (!Number.isInteger(grace) || grace < 0)) {
    errs.push({
      type: 'FieldValueInvalid',
      field: 'gracePeriodSeconds',
      value: grace,
      detail: 'must be greater than or equal to 0',
    });
  }
  return grace;
}

/** propagationPolicy and orphanDependents (body first, then query): one of them, a known policy. */
function propagation(
  b: Record<string, unknown>,
  params: Params,
  errs: FieldErrorLike[],
): { policy: string | undefined; orphan: boolean | undefined } {
  const policy =
    typeof b['propagationPolicy'] === 'string'
      ? b['propagationPolicy']
      : params.string('propagationPolicy');
  const orphan =
    typeof b['orphanDependents'] === 'boolean'
      ? b['orphanDependents']
      : params.bool('orphanDependents');
  if (policy !== undefined && orphan !== undefined) {
    errs.push({
      type: 'FieldValueInvalid',
      field: 'propagationPolicy',
      value: policy,
      detail: 'orphanDependents and deletionPropagation cannot be both set',
    });
  }
  if (policy !== undefined && !policies.includes(policy)) {
    errs.push({
      type: 'FieldValueNotSupported',
      field: 'propagationPolicy',
      value: policy,
      detail: 'supported values: "Foreground", "Background", "Orphan"',
    });
  }
  return { policy, orphan };
}

/** ignoreStoreReadErrorWithClusterBreakingPotential (body first, then query); not with dryRun. */
function ignoreStoreReadError(
  b: Record<string, unknown>,
  params: Params,
  dryRun: boolean,
  errs: FieldErrorLike[],
): boolean {
  const ignore =
    typeof b['ignoreStoreReadErrorWithClusterBreakingPotential'] === 'boolean'
      ? b['ignoreStoreReadErrorWithClusterBreakingPotential']
      : params.bool('ignoreStoreReadErrorWithClusterBreakingPotential') === true;
  if (ignore && dryRun) {
    errs.push({
      type: 'FieldValueInvalid',
      field: 'ignoreStoreReadErrorWithClusterBreakingPotential',
      value: true,
      detail: 'cannot be set together with .dryRun',
    });
  }
  return ignore;
}

/** The body's preconditions (uid, resourceVersion), when it has any. */
function preconditionsOf(b: Record<string, unknown>): ParsedDeleteOptions['preconditions'] {
  const p = b['preconditions'];
  if (!isRecord(p)) return undefined;
  const preconditions: NonNullable<ParsedDeleteOptions['preconditions']> = {};
  if (typeof p['uid'] === 'string') preconditions.uid = p['uid'];
  if (typeof p['resourceVersion'] === 'string')
    preconditions.resourceVersion = p['resourceVersion'];
  return preconditions;
}

/** DeleteOptions from the query with the body (a DeleteOptions object) taking precedence. */
export function parseDeleteOptions(
  params: Params,
  body: string,
  domain: string,
): ParsedDeleteOptions {
  const b = deleteOptionsBody(body);
  const errs: FieldErrorLike[] = [];
  const bodyDry = listOf(b['dryRun']).map(String);
  const dryRun = validateDryRun(bodyDry.length > 0 ? bodyDry : params.all('dryRun'), errs);
  const grace = gracePeriod(b, params, errs);
  const { policy, orphan } = propagation(b, params, errs);
  const ignore = ignoreStoreReadError(b, params, dryRun, errs);
  if (errs.length > 0) throw invalid('DeleteOptions', `meta.${domain}`, '', errs);
  return {
    dryRun,
    gracePeriodSeconds: grace,
    preconditions: preconditionsOf(b),
    propagationPolicy: policy,
    orphanDependents: orphan,
    ignoreStoreReadError: ignore,
  };
}
