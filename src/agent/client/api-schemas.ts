// The shapes every answer of the API server shares, as zod schemas. Answers are decoded against
// them (and against the schema of the caller's kind) at the client, so no part of the agent sees
// a value of another shape than its type says: a malformed answer is an error naming the call,
// the kind and the fields at fault. Objects are loose: fields the agent does not read pass
// through untouched.
import { z } from 'zod';
import { NodeAgentError } from '../../common/util/errors.js';
import type { ApiObject, ListMeta, ObjectList, ObjectMeta, Status } from './types.js';

const optionalString = z.string().exactOptional();
const stringMap = z.record(z.string(), z.string()).exactOptional();

export const ObjectMetaSchema: z.ZodType<ObjectMeta> = z.looseObject({
  name: optionalString,
  generateName: optionalString,
  namespace: optionalString,
  uid: optionalString,
  resourceVersion: optionalString,
  generation: z.number().exactOptional(),
  creationTimestamp: optionalString,
  deletionTimestamp: optionalString,
  labels: stringMap,
  annotations: stringMap,
  ownerReferences: z.array(z.unknown()).exactOptional(),
  finalizers: z.array(z.string()).exactOptional(),
});

/** Any object of any kind: apiVersion, kind and metadata checked, the rest passed through. */
export const ApiObjectSchema: z.ZodType<ApiObject & Record<string, unknown>> = z.looseObject({
  apiVersion: optionalString,
  kind: optionalString,
  metadata: ObjectMetaSchema.exactOptional(),
});

const ListMetaSchema: z.ZodType<ListMeta> = z.looseObject({
  resourceVersion: optionalString,
  continue: optionalString,
  remainingItemCount: z.number().exactOptional(),
});

/** A list of `item`s; `items: null` (Go's nil slice) is an empty list. */
export function listSchema<T>(item: z.ZodType<T>): z.ZodType<ObjectList<T>> {
  return z.looseObject({
    apiVersion: optionalString,
    kind: optionalString,
    metadata: ListMetaSchema.exactOptional(),
    items: z
      .array(item)
      .nullable()
      .transform((items) => items ?? []),
  });
}

export const StatusSchema: z.ZodType<Status> = z.looseObject({
  apiVersion: optionalString,
  kind: z.literal('Status'),
  status: z.enum(['Success', 'Failure']).exactOptional(),
  message: optionalString,
  reason: optionalString,
  code: z.number().exactOptional(),
  details: z
    .looseObject({
      name: optionalString,
      group: optionalString,
      kind: optionalString,
      causes: z
        .array(
          z.looseObject({ reason: optionalString, message: optionalString, field: optionalString }),
        )
        .exactOptional(),
      retryAfterSeconds: z.number().exactOptional(),
    })
    .exactOptional(),
});

/** At most this many field problems are named in one message. */
const MAX_ISSUES = 3;

function issuePath(path: readonly PropertyKey[]): string {
  let s = '';
  for (const seg of path)
    s += typeof seg === 'number' ? `[${seg}]` : s === '' ? String(seg) : `.${String(seg)}`;
  return s === '' ? '(the answer itself)' : s;
}

/**
 * The problems of a failed decode, one clause each: `metadata.name: expected string, received
 * number`.
 */
export function issuesText(error: z.ZodError): string {
  const shown = error.issues
    .slice(0, MAX_ISSUES)
    .map((i) => `${issuePath(i.path)}: ${i.message.replace(/^Invalid input: /, '')}`);
  const more = error.issues.length - shown.length;
  return more > 0 ? `${shown.join('; ')} (and ${more} more)` : shown.join('; ');
}

/**
 * `value` decoded by `schema`, or a NodeAgentError (code Api) naming the call (`what`, e.g.
 * "GET /api/v1/nodes/n1"), the kind expected and the fields at fault.
 */
export function decodeAnswer<T>(
  schema: z.ZodType<T>,
  value: unknown,
  what: string,
  kind: string,
): T {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  throw new NodeAgentError(
    'Api',
    `${what}: the API server's answer is not a valid ${kind}: ${issuesText(result.error)}`,
  );
}

/** One line of a watch stream: `{type, object}` (watch.ts checks it with a guard first). */
const WatchLineSchema = z.looseObject({ type: z.string(), object: z.unknown() });

/** Why a watch line is not a watch event (its decode problems), or undefined when it is one. */
export function watchLineProblem(raw: unknown): string | undefined {
  const line = WatchLineSchema.safeParse(raw);
  return line.success ? undefined : issuesText(line.error);
}
