// The CPU manager's checkpoint, `cpu_manager_state` in the root directory, in the reference's v2
// format: {"policyName","defaultCpuSet","entries":{podUID:{container:cpuset}},"checksum"}.
import { checkpointChecksum, num, str, type SpewValue } from './checkpoint-checksum.js';
import { CpuSet } from './cpuset.js';

export const CPU_MANAGER_STATE_FILE = 'cpu_manager_state';

export interface CpuState {
  policyName: string;
  defaultCpuSet: CpuSet;
  /** podUID → container name → CPUs */
  entries: Map<string, Map<string, CpuSet>>;
}

function entriesObject(s: CpuState): Record<string, Record<string, string>> {
  const out: Record<string, Record<string, string>> = {};
  for (const pod of [...s.entries.keys()].sort()) {
    const containers = s.entries.get(pod) ?? new Map<string, CpuSet>();
    const row: Record<string, string> = {};
    for (const name of [...containers.keys()].sort())
      row[name] = containers.get(name)?.toString() ?? '';
    out[pod] = row;
  }
  return out;
}

function spewOf(
  policyName: string,
  defaultCpuSet: string,
  entries: Record<string, Record<string, string>>,
): SpewValue {
  const inner = (row: Record<string, string>): SpewValue => ({
    kind: 'map',
    type: 'map[string]string',
    entries: Object.entries(row).map(([k, v]) => [k, str('string', v)] as const),
  });
  return {
    kind: 'ptr',
    value: {
      kind: 'struct',
      type: 'state.CPUManagerCheckpoint',
      fields: [
        ['PolicyName', str('string', policyName)],
        ['DefaultCPUSet', str('string', defaultCpuSet)],
        [
          'Entries',
          {
            kind: 'map',
            type: 'map[string]map[string]string',
            entries: Object.entries(entries).map(([k, v]) => [k, inner(v)] as const),
          },
        ],
        ['Checksum', num('checksum.Checksum', 0)],
      ],
    },
  };
}

/** The file's text, as the reference's json.Marshal writes it (entries left out when empty). */
export function encodeCpuState(s: CpuState): string {
  const entries = entriesObject(s);
  const checksum = checkpointChecksum(spewOf(s.policyName, s.defaultCpuSet.toString(), entries));
  return JSON.stringify({
    policyName: s.policyName,
    defaultCpuSet: s.defaultCpuSet.toString(),
    ...(Object.keys(entries).length > 0 ? { entries } : {}),
    checksum,
  });
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function isStringRecord(v: unknown): v is Record<string, string> {
  return isObject(v) && Object.values(v).every((x) => typeof x === 'string');
}

function isEntriesMap(v: unknown): v is Record<string, Record<string, string>> {
  return isObject(v) && Object.values(v).every(isStringRecord);
}

/**
 * The state in a checkpoint's JSON value. Throws with the reference's reason (its restore errors:
 * a corrupt checksum, a configured policy that differs, a cpuset that does not parse).
 */
export function decodeCpuState(
  value: unknown,
  configuredPolicy: string,
  maxCpuId?: number,
): CpuState {
  if (!isObject(value)) throw new Error('checkpoint is not a JSON object');
  const v = value;
  const policyName = typeof v['policyName'] === 'string' ? v['policyName'] : '';
  const defaultText = typeof v['defaultCpuSet'] === 'string' ? v['defaultCpuSet'] : '';
  const entries = v['entries'] ?? {};
  if (!isEntriesMap(entries))
    throw new Error('checkpoint entries are not a map of pod UID to container name to cpuset');
  const checksum = v['checksum'];
  if (typeof checksum !== 'number' && checksum !== undefined)
    throw new Error('checkpoint checksum is not a number');
  if (
    checksum !== undefined &&
    checksum !== 0 &&
    checksum !== checkpointChecksum(spewOf(policyName, defaultText, entries))
  )
    throw new Error('checkpoint is corrupted');
  if (policyName !== configuredPolicy)
    throw new Error(
      `configured policy "${configuredPolicy}" differs from state checkpoint policy "` +
        `${policyName}"`,
    );
  const state: CpuState = {
    policyName,
    defaultCpuSet: parseOr(
      defaultText,
      maxCpuId,
      () => `could not parse default cpu set "${short(defaultText)}"`,
    ),
    entries: new Map(),
  };
  for (const [pod, row] of Object.entries(entries)) {
    const m = new Map<string, CpuSet>();
    for (const [name, text] of Object.entries(row))
      m.set(
        name,
        parseOr(
          text,
          maxCpuId,
          () =>
            `could not parse cpuset "${short(text)}" for container "${short(name)}" in ` +
            `pod "${short(pod)}"`,
        ),
      );
    state.entries.set(pod, m);
  }
  return state;
}

/** A value from the file as messages quote it: at most 64 characters. */
function short(text: string): string {
  return text.length > 64 ? `${text.slice(0, 64)}...` : text;
}

function parseOr(text: string, maxCpuId: number | undefined, what: () => string): CpuSet {
  try {
    return CpuSet.parse(text, maxCpuId);
  } catch (err) {
    throw new Error(`${what()}: ${short(err instanceof Error ? err.message : String(err))}`);
  }
}

/** The reference's wrapper around every restore error. */
export function restoreError(reason: string, path: string): string {
  return (
    `could not restore state from checkpoint: ${reason}, please drain this node and ` +
    `delete the CPU manager checkpoint file "${path}" before restarting Kubelet`
  );
}
