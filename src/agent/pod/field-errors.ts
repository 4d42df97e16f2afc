// Field errors spelled as the reference's field.Error prints them
// (k8s.io/apimachinery/pkg/util/validation/field: `<path>: <Type>: <value>: <detail>`), so a
// rejected manifest reads the same as the reference's "invalid pod: [...]".
import { textOf } from '../../common/util/text-of.js';

const MAX_SHOWN = 256;

/**
 * Go's %v of a value in an error: strings quoted, numbers and booleans as they are. A string over
 * 256 characters is cut (a 1 MB label value must not make a 1 MB log line).
 */
function shown(value: unknown): string {
  if (typeof value === 'string') {
    return value.length > MAX_SHOWN
      ? `${JSON.stringify(value.slice(0, MAX_SHOWN))}… (${Buffer.byteLength(value)} bytes)`
      : JSON.stringify(value);
  }
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return clip(textOf(value));
}

/** Text from input cut to a length a log line can carry. */
export function clip(text: string, max = MAX_SHOWN): string {
  return text.length > max ? `${text.slice(0, max)}… (${text.length} characters)` : text;
}

/**
 * At most `max` problems, then how many more: one bad field in each of 2,000 containers is one
 * line, not 2,000.
 */
export function firstProblems(problems: readonly string[], separator = ', ', max = 20): string {
  const shownList = problems.slice(0, max).join(separator);
  return problems.length > max
    ? `${shownList}${separator}and ${problems.length - max} more`
    : shownList;
}

export function invalid(path: string, value: unknown, detail: string): string {
  return `${path}: Invalid value: ${shown(value)}: ${detail}`;
}

export function required(path: string, detail = ''): string {
  return detail === '' ? `${path}: Required value` : `${path}: Required value: ${detail}`;
}

export function duplicate(path: string, value: unknown): string {
  return `${path}: Duplicate value: ${shown(value)}`;
}

export function notFound(path: string, value: unknown): string {
  return `${path}: Not found: ${shown(value)}`;
}

export function forbidden(path: string, detail: string): string {
  return `${path}: Forbidden: ${detail}`;
}

export function notSupported(path: string, value: unknown, supported: readonly string[]): string {
  return (
    `${path}: Unsupported value: ${shown(value)}: supported values: ` +
    supported.map((s) => JSON.stringify(s)).join(', ')
  );
}

export function tooLong(path: string, maxBytes: number): string {
  return `${path}: Too long: may not be more than ${maxBytes} bytes`;
}
