// Decodes one typed client's answers (objects, lists, Statuses) with its AnswerSchema. The zod
// schemas (api-schemas.ts) are imported on first need, so a client with a lazy schema whose
// guard takes every answer never loads zod (the bootstrap's CSR client).
import type { z } from 'zod';
import type { ObjectList, Status } from './types.js';
import { isLazyAnswerSchema, type AnswerSchema } from './answer-schema.js';
import { isObjectListOf } from './meta-shape.js';

let schemas: ReturnType<typeof importSchemas> | undefined;

function importSchemas() {
  return import('./api-schemas.js');
}

/** The zod side of answer decoding (api-schemas.ts), imported once. */
export function apiSchemas(): ReturnType<typeof importSchemas> {
  return (schemas ??= importSchemas());
}

export interface AnswerDecoderOptions<T> {
  readonly schema: AnswerSchema<T>;
  /** The kind, in error messages ("not a valid Node"). */
  readonly kind: string;
}

export class AnswerDecoder<T> {
  private readonly schema: AnswerSchema<T>;
  private readonly kind: string;
  private zodSchema: Promise<z.ZodType<T>> | undefined;
  private zodListSchema: Promise<z.ZodType<ObjectList<T>>> | undefined;

  constructor(options: AnswerDecoderOptions<T>) {
    this.schema = options.schema;
    this.kind = options.kind;
  }

  /**
   * `value` as T, or a NodeAgentError naming the call (`what`), the kind and the fields at fault.
   */
  async object(value: unknown, what: string): Promise<T> {
    if (isLazyAnswerSchema(this.schema) && this.schema.accepts(value)) return value;
    const { decodeAnswer } = await apiSchemas();
    return decodeAnswer(await this.zod(), value, what, this.kind);
  }

  /** `value` as a list of T (`items: null` is an empty list), or the error as for object(). */
  async list(value: unknown, what: string): Promise<ObjectList<T>> {
    const schema = this.schema;
    if (isLazyAnswerSchema(schema) && isObjectListOf(value, schema.accepts)) return value;
    const { decodeAnswer, listSchema } = await apiSchemas();
    this.zodListSchema ??= this.zod().then((item) => listSchema(item));
    return decodeAnswer(await this.zodListSchema, value, what, `${this.kind}List`);
  }

  private zod(): Promise<z.ZodType<T>> {
    const schema = this.schema;
    return (this.zodSchema ??= isLazyAnswerSchema(schema)
      ? schema.load()
      : Promise.resolve(schema));
  }
}

/** `value` as a Status, or the error as for AnswerDecoder.object(). */
export async function decodeStatus(value: unknown, what: string): Promise<Status> {
  const { decodeAnswer, StatusSchema } = await apiSchemas();
  return decodeAnswer(StatusSchema, value, what, 'Status');
}
