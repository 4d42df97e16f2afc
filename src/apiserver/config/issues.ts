// Field errors in the reference's style: "<json path>: <what is wrong>", collected so a file
// reports every problem at once. Values are quoted only where they cannot be secret.
import type { z } from 'zod';

export type FieldPath = readonly (string | number)[];

export interface FieldIssue {
  readonly path: FieldPath;
  readonly message: string;
}

/** `jwt[0].issuer.url` from ['jwt', 0, 'issuer', 'url']. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const p of path) {
    if (typeof p === 'number') out += `[${p}]`;
    else out += out === '' ? String(p) : `.${String(p)}`;
  }
  return out === '' ? '<root>' : out;
}

export class IssueList {
  readonly issues: FieldIssue[] = [];
  add(path: FieldPath, message: string): void {
    this.issues.push({ path, message });
  }
  required(path: FieldPath): void {
    this.add(path, 'Required value');
  }
  invalid(path: FieldPath, value: string | undefined, why: string): void {
    this.add(
      path,
      value === undefined
        ? `Invalid value: ${why}`
        : `Invalid value: ${JSON.stringify(value)}: ${why}`,
    );
  }
  unsupported(path: FieldPath, value: string, supported: readonly string[]): void {
    this.add(
      path,
      `Unsupported value: ${JSON.stringify(value)}: supported values: ` +
        supported.map((s) => JSON.stringify(s)).join(', '),
    );
  }
  duplicate(path: FieldPath, value: string): void {
    this.add(path, `Duplicate value: ${JSON.stringify(value)}`);
  }
  forbidden(path: FieldPath, why: string): void {
    this.add(path, `Forbidden: ${why}`);
  }
  get ok(): boolean {
    return this.issues.length === 0;
  }
}

function typeName(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  return typeof v;
}

/**
 * Turns zod issues into field issues with reference-style messages (never echoing input values).
 */
export function fromZodIssues(issues: readonly z.core.$ZodIssue[], into: IssueList): void {
  for (const iss of issues) {
    const path = iss.path.filter((p): p is string | number => typeof p !== 'symbol');
    switch (iss.code) {
      case 'invalid_type':
        if (iss.input === undefined) into.required(path);
        else
          into.invalid(
            path,
            undefined,
            `expected ${iss.expected === 'int' ? 'an integer' : iss.expected}, got ` +
              typeName(iss.input),
          );
        break;
      case 'unrecognized_keys':
        for (const k of iss.keys) into.add([...path, k], `unknown field ${JSON.stringify(k)}`);
        break;
      case 'invalid_value':
        into.add(
          path,
          `Unsupported value: supported values: ` +
            iss.values.map((v) => JSON.stringify(v)).join(', '),
        );
        break;
      case 'too_small':
        into.invalid(
          path,
          undefined,
          iss.origin === 'array'
            ? `must have at least ${String(iss.minimum)} item(s)`
            : `must be at least ${String(iss.minimum)}`,
        );
        break;
      case 'too_big':
        into.invalid(
          path,
          undefined,
          iss.origin === 'array'
            ? `must have at most ${String(iss.maximum)} items`
            : `must be at most ${String(iss.maximum)}`,
        );
        break;
      default:
        into.invalid(path, undefined, iss.message);
    }
  }
}
