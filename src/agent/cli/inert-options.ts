// The configuration-file fields that are parsed and validated but take no effect in this version
// (every command-line option acts: test/unit/agent/cli/option-effects.test.ts). The agent says so
// at start: a warning for each one set away from its default, and one line naming the rest, so
// none is accepted and silently ignored.
import { isDeepStrictEqual } from 'node:util';
import type { Logger } from '../../common/log/types.js';
import { defaultConfiguration } from '../config/defaults.js';
import type { NodeAgentConfiguration } from '../config/schema.js';
import { isRecord } from '../../common/util/json-shape.js';

/**
 * The configuration-file fields without a flag that take no effect in this
 * version, and why. The others act: see test/unit/agent/cli/option-effects.test.ts.
 */
export const INERT_FIELDS: Readonly<Record<string, string>> = {
  memoryThrottlingFactor:
    'the reference uses it only with the MemoryQoS gate (alpha, off) on cgroup v2, to write ' +
    'memory.high; nodeagent does not implement MemoryQoS (the Docker engine API has no ' +
    'memory.high setting)',
  iptablesMasqueradeBit:
    'validated only, as in the reference 1.32: since its iptables ownership cleanup (1.28) the ' +
    'kubelet makes no KUBE-MARK-MASQ chain to mark with it (kube-proxy does); ' +
    '--make-iptables-util-chains makes the hint, firewall and canary chains, which use no mark',
  iptablesDropBit:
    'validated only, as in the reference 1.32: since its iptables ownership cleanup (1.28) the ' +
    'kubelet makes no KUBE-MARK-DROP chain to mark with it (kube-proxy does); ' +
    '--make-iptables-util-chains makes the hint, firewall and canary chains, which use no mark',
  showHiddenMetricsForVersion: 'no metric of nodeagent is hidden, so none is shown again',
};

function atPath(obj: unknown, path: string): unknown {
  let cur = obj;
  for (const k of path.split('.')) cur = isRecord(cur) ? cur[k] : undefined;
  return cur;
}

/** The inert file-only fields whose value differs from the default of either defaults mode. */
export function inertFieldsSet(config: NodeAgentConfiguration): string[] {
  const defaults = [defaultConfiguration('flags'), defaultConfiguration('file')];
  return Object.keys(INERT_FIELDS).filter(
    (f) => !defaults.some((d) => isDeepStrictEqual(atPath(d, f), atPath(config, f))),
  );
}

/** One warning per inert file-only field that is set, one line naming the rest. */
export function logInertFields(config: NodeAgentConfiguration, logger: Logger): void {
  const set = inertFieldsSet(config);
  for (const field of set)
    logger.warn({ field }, `${field} is set but cannot take effect: ${INERT_FIELDS[field] ?? ''}`);
  const rest = Object.keys(INERT_FIELDS).filter((f) => !set.includes(f));
  logger.info(
    { fields: rest },
    'These configuration-file fields are accepted at their defaults but take no effect ' +
      'in this version (no iptables mark bits, memory.high)',
  );
}
