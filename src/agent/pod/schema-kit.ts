// The building blocks of pod-schema.generated.ts: the JSON types of the reference's Pod fields as
// zod schemas, each with a message in the reference's field-error words ("Required value",
// "Invalid value: ...", "Unsupported value: ...: supported values: ..."). Objects are strict so
// that a field the reference does not know shows up as an issue the decoder reports and drops.
import { z } from 'zod';
import { textOf } from '../../common/util/text-of.js';

interface Issue {
  readonly input?: unknown;
}

function shown(v: unknown): string {
  const t = typeof v === 'string' ? JSON.stringify(v) : textOf(v);
  return t.length > 80 ? `${t.slice(0, 80)}…` : t;
}

/** The message for a value of the wrong JSON type (or a missing required one). */
function expected(what: string): (iss: Issue) => string {
  return (iss) =>
    iss.input === undefined
      ? 'Required value'
      : `Invalid value: ${shown(iss.input)}: must be ${what}`;
}

export const str = z.string({ error: expected('a string') });
export const bool = z.boolean({ error: expected('a boolean') });
export const num = z.number({ error: expected('a number') });
export const int32 = z.int32({ error: expected('a 32-bit integer') });
export const int64 = z.int({ error: expected('an integer (int64, within ±2^53)') });
/** metav1.Time and MicroTime: RFC 3339 text, kept as sent. */
export const time = z.string({ error: expected('an RFC 3339 time') });
/** FieldsV1 and other free-form JSON objects, kept as sent. */
export const jsonObject = z.record(z.string(), z.unknown(), { error: expected('an object') });
/** resource.Quantity: a string or a JSON number, read as its text (the reference accepts both). */
export const quantity = z
  .union([z.string(), z.number()], { error: expected('a quantity (a string or a number)') })
  .transform((v) => String(v));
/** intstr.IntOrString: an int32 or a string. */
export const intOrString = z.union([z.int32(), z.string()], {
  error: expected('an integer or a string'),
});

/**
 * A string field whose values the reference's OpenAPI lists (its `enum`); the empty string is
 * the field left unset, as the reference's defaulting and validation read it.
 */
export function oneOf<const T extends readonly [string, ...string[]]>(values: T) {
  const supported = values.map((v) => JSON.stringify(v)).join(', ');
  return z.enum([...values, ''], {
    error: (iss) =>
      typeof iss.input === 'string'
        ? `Unsupported value: ${JSON.stringify(iss.input)}: supported values: ${supported}`
        : expected('a string')(iss),
  });
}

export function list<T extends z.ZodType>(item: T) {
  return z.array(item, { error: expected('a list') });
}

export function dict<T extends z.ZodType>(value: T) {
  return z.record(z.string(), value, { error: expected('an object') });
}

export function struct<T extends z.ZodRawShape>(shape: T) {
  return z.strictObject(shape, { error: expected('an object') });
}
