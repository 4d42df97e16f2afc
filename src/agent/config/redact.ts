// Secrets never leave the process in a printed or served configuration: header values of the
// manifest URL (they often carry tokens) are replaced by a marker, keeping names and counts.
import type { NodeAgentConfiguration } from './schema.js';

export const MASK = '<masked>';

/** A copy of `c` with every secret value replaced by `<masked>`. */
export function redactConfiguration(c: NodeAgentConfiguration): NodeAgentConfiguration {
  const out = structuredClone(c);
  out.staticPodURLHeader = Object.fromEntries(Object.entries(c.staticPodURLHeader).map(([k, vs]) => [k, vs.map(() => MASK)]));
  return out;
}
