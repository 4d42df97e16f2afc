// What a typed client decodes its answers with: a zod schema, or a lazy one whose zod schema is
// built on first need. The lazy kind keeps zod (its vendor chunk, tens of milliseconds to load
// and warm) off the agent's bootstrap path: `accepts`, a type guard that takes nothing the
// schema refuses, decodes a well-formed answer; any other answer goes through the schema, whose
// error names the fields at fault, as it would without the guard.
import type { z } from 'zod';

export interface LazyAnswerSchema<T> {
  /**
   * True only for values the schema takes (it may refuse some the schema takes: they go to zod).
   */
  readonly accepts: (value: unknown) => value is T;
  /** The zod schema (its module imported on first call). */
  readonly load: () => Promise<z.ZodType<T>>;
}

export type AnswerSchema<T> = z.ZodType<T> | LazyAnswerSchema<T>;

export function isLazyAnswerSchema<T>(schema: AnswerSchema<T>): schema is LazyAnswerSchema<T> {
  return 'accepts' in schema && 'load' in schema && typeof schema.load === 'function';
}
