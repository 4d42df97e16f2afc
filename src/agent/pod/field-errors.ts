// Field errors spelled as the reference's field.Error prints them
// (k8s.io/apimachinery/pkg/util/validation/field: `<path>: <Type>: <value>: <detail>`), so a
// rejected manifest reads the same as the reference's "invalid pod: [...]".

/** Go's %v of a value in an error: strings quoted, numbers and booleans as they are. */
function shown(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value) ?? String(value);
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
  return `${path}: Unsupported value: ${shown(value)}: supported values: ${supported.map((s) => JSON.stringify(s)).join(', ')}`;
}

export function tooLong(path: string, maxBytes: number): string {
  return `${path}: Too long: may not be more than ${maxBytes} bytes`;
}
