// Field-level validation errors, as the reference API server reports them: one error per bad
// field, rendered as `<field>: <Type text>: <value>: <detail>` and aggregated as `[a, b]` when
// there are several. The Status causes of an Invalid (422) response carry `errorMessage(err)`
// (the text without the field) with the field and the reason (the error type) beside it.

import { textOf } from '../common/util/text-of.js';

export type FieldErrorType =
  | 'FieldValueRequired'
  | 'FieldValueInvalid'
  | 'FieldValueNotSupported'
  | 'FieldValueDuplicate'
  | 'FieldValueForbidden'
  | 'FieldValueNotFound'
  | 'FieldValueTooLong';

export interface FieldError {
  type: FieldErrorType;
  field: string;
  /** The offending value; absent for Required/Forbidden (which never show a value). */
  value?: unknown;
  detail: string;
}

/** The human text of each error type (the reference's ErrorType.String()). */
export const FIELD_ERROR_TYPE_TEXT: Readonly<Record<FieldErrorType, string>> = {
  FieldValueRequired: 'Required value',
  FieldValueInvalid: 'Invalid value',
  FieldValueNotSupported: 'Unsupported value',
  FieldValueDuplicate: 'Duplicate value',
  FieldValueForbidden: 'Forbidden',
  FieldValueNotFound: 'Not found',
  FieldValueTooLong: 'Too long',
};

export function required(field: string, detail = ''): FieldError {
  return { type: 'FieldValueRequired', field, detail };
}

export function invalid(field: string, value: unknown, detail: string): FieldError {
  return { type: 'FieldValueInvalid', field, value, detail };
}

export function notSupported(
  field: string,
  value: unknown,
  supported: readonly string[],
): FieldError {
  const detail =
    supported.length > 0
      ? `supported values: ${supported.map((s) => JSON.stringify(s)).join(', ')}`
      : '';
  return { type: 'FieldValueNotSupported', field, value, detail };
}

export function duplicate(field: string, value: unknown): FieldError {
  return { type: 'FieldValueDuplicate', field, value, detail: '' };
}

export function forbidden(field: string, detail: string): FieldError {
  return { type: 'FieldValueForbidden', field, detail };
}

export function notFound(field: string, value: unknown): FieldError {
  return { type: 'FieldValueNotFound', field, value, detail: '' };
}

export function tooLong(field: string, value: unknown, max: number): FieldError {
  const detail = max >= 0 ? `must have at most ${max} bytes` : 'value is too long';
  return { type: 'FieldValueTooLong', field, value, detail };
}

/** A value shown as the reference's Go syntax (%#v of a struct), written out by its maker. */
export interface GoSyntax {
  readonly goSyntax: string;
}

export function goSyntax(text: string): GoSyntax {
  return { goSyntax: text };
}

/** A string list as the reference shows a []string value: []string{"a", "b"}. */
export function goStrings(list: readonly unknown[]): GoSyntax {
  return goSyntax(`[]string{${list.map((v) => JSON.stringify(String(v))).join(', ')}}`);
}

function isGoSyntax(v: unknown): v is GoSyntax {
  return (
    v !== null && typeof v === 'object' && typeof (v as Partial<GoSyntax>).goSyntax === 'string'
  );
}

/**
 * Renders a value the way the reference does for simple types (numbers and booleans bare, strings
 * quoted). Byte arrays (PEM data, possibly key material) are never dumped: only their length.
 */
export function formatFieldValue(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint')
    return String(value);
  if (value instanceof Uint8Array) return `[]byte{<${value.length} bytes>}`;
  if (isGoSyntax(value)) return value.goSyntax;
  return textOf(value);
}

/** The error text without its field: the `message` of a Status cause. */
export function errorMessage(err: FieldError): string {
  const typeText = FIELD_ERROR_TYPE_TEXT[err.type];
  let s: string;
  switch (err.type) {
    case 'FieldValueRequired':
    case 'FieldValueForbidden':
    case 'FieldValueTooLong':
      s = typeText;
      break;
    default:
      s = `${typeText}: ${formatFieldValue(err.value)}`;
  }
  if (err.detail.length > 0) s += `: ${err.detail}`;
  return s;
}

/** One error as text: `<field>: <message>`. */
export function fieldErrorString(err: FieldError): string {
  return `${err.field}: ${errorMessage(err)}`;
}

/**
 * The aggregate text of several errors: the single message alone, or `[a, b]` for several
 * (duplicates of the same text are shown once, as the reference's aggregate does).
 */
export function formatFieldErrors(errs: readonly FieldError[]): string {
  const seen = new Set<string>();
  const msgs: string[] = [];
  for (const e of errs) {
    const s = fieldErrorString(e);
    if (seen.has(s)) continue;
    seen.add(s);
    msgs.push(s);
  }
  if (msgs.length === 0) return '';
  if (msgs.length === 1) return msgs[0] ?? '';
  return `[${msgs.join(', ')}]`;
}

/** Status causes for an Invalid response (`details.causes`). */
export function toStatusCauses(
  errs: readonly FieldError[],
): { reason: FieldErrorType; message: string; field: string }[] {
  return errs.map((e) => ({ reason: e.type, message: errorMessage(e), field: e.field }));
}
