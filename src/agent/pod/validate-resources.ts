// Container resources as the reference checks them: every value a quantity (the reference's
// decoder refuses `memory: lots` with the message below), none negative, requests within limits.
import { parseQuantity } from '../../common/util/values/quantity.js';
import { invalid } from './field-errors.js';
import type { Container } from './types.js';

/** The reference's resource.ErrFormatWrong. */
export const QUANTITY_FORMAT_MESSAGE =
  "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";

function quantityOf(value: string, path: string, out: string[]): number | undefined {
  let q;
  try {
    q = parseQuantity(value);
  } catch {
    out.push(invalid(path, value, QUANTITY_FORMAT_MESSAGE));
    return undefined;
  }
  if (q.value < 0) {
    out.push(invalid(path, value, 'must be greater than or equal to 0'));
    return undefined;
  }
  return q.value;
}

export function validateResources(
  resources: Container['resources'],
  path: string,
  out: string[],
): void {
  if (resources === undefined) return;
  const limits = new Map<string, number>();
  for (const [name, value] of Object.entries(resources.limits ?? {})) {
    const v = quantityOf(value, `${path}.limits[${name}]`, out);
    if (v !== undefined) limits.set(name, v);
  }
  for (const [name, value] of Object.entries(resources.requests ?? {})) {
    const v = quantityOf(value, `${path}.requests[${name}]`, out);
    const limit = limits.get(name);
    if (v !== undefined && limit !== undefined && v > limit) {
      out.push(
        invalid(
          `${path}.requests`,
          value,
          `must be less than or equal to ${name} limit of ${resources.limits?.[name] ?? ''}`,
        ),
      );
    }
  }
}
