// Secrets never leave the process in a printed or served configuration: header values of the
// manifest URL (they often carry tokens) are replaced by a marker, keeping names and counts, and
// the userinfo of every URL (`--manifest-url=https://user:pass@host/...`, endpoints) is masked.
import { maskUrlUserinfoDeep } from '../../common/util/url-userinfo.js';
import type { NodeAgentConfiguration } from './schema.js';

export const MASK = '<masked>';

/** A copy of `c` with every secret value replaced by `<masked>`. */
export function redactConfiguration(c: NodeAgentConfiguration): NodeAgentConfiguration {
  const out = maskUrlUserinfoDeep(structuredClone(c));
  out.staticPodURLHeader = Object.fromEntries(
    Object.entries(c.staticPodURLHeader).map(([k, vs]) => [k, vs.map(() => MASK)]),
  );
  return out;
}
