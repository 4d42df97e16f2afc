// Rules about reserved resources, node allocatable enforcement, eviction thresholds, reserved
// memory per NUMA node and registration taints.
import {
  labelValueErrors,
  qualifiedNameErrors,
  TAINT_EFFECTS,
} from '../../common/util/values/index.js';
import type { NodeAgentConfiguration } from './schema.js';
import type { Problems } from './validate-context.js';
import { tryDurationMs, tryNormalizeQuantity, tryQuantity } from './values.js';
import { isOneOf } from '../../common/util/json-shape.js';

export const ENFORCE_NODE_ALLOCATABLE = [
  'none',
  'pods',
  'system-reserved',
  'system-reserved-compressible',
  'plat-reserved',
  'plat-reserved-compressible',
] as const;

export const EVICTION_SIGNALS = [
  'memory.available',
  'allocatableMemory.available',
  'nodefs.available',
  'nodefs.inodesFree',
  'imagefs.available',
  'imagefs.inodesFree',
  'containerfs.available',
  'containerfs.inodesFree',
  'pid.available',
] as const;

const RESERVABLE = /^(cpu|memory|pid|ephemeral-storage|hugepages-.+)$/;

type Cfg = NodeAgentConfiguration;

function validateEnforcement(c: Cfg, p: Problems): void {
  const levels = c.enforceNodeAllocatable;
  for (const l of levels) {
    if (!isOneOf(ENFORCE_NODE_ALLOCATABLE, l)) {
      p.add(
        'enforceNodeAllocatable',
        l,
        `is not a valid option: valid options are ${ENFORCE_NODE_ALLOCATABLE.join(', ')}`,
      );
    }
  }
  if (!c.cgroupsPerQOS && levels.length > 0) {
    p.raw(
      `${p.field('enforceNodeAllocatable')} is not supported unless ` +
        `${p.field('cgroupsPerQOS')} feature is turned on`,
    );
  }
  if (levels.includes('none') && levels.length > 1) {
    p.raw(
      `${p.field('enforceNodeAllocatable')} may not contain additional enforcements ` +
        `when "none" is specified`,
    );
  }
  const needs = (level: string, cgroupField: 'systemReservedCgroup' | 'platReservedCgroup') => {
    if (levels.includes(level) && c[cgroupField] === '') {
      p.raw(
        `${p.field(cgroupField)} must be specified when "${level}" is contained in ` +
          p.field('enforceNodeAllocatable'),
      );
    }
  };
  needs('system-reserved', 'systemReservedCgroup');
  needs('system-reserved-compressible', 'systemReservedCgroup');
  needs('plat-reserved', 'platReservedCgroup');
  needs('plat-reserved-compressible', 'platReservedCgroup');
  if (levels.includes('system-reserved') && levels.includes('system-reserved-compressible')) {
    p.raw(
      `${p.field('enforceNodeAllocatable')} may contain only one of "system-reserved" ` +
        `and "system-reserved-compressible"`,
    );
  }
  if (levels.includes('plat-reserved') && levels.includes('plat-reserved-compressible')) {
    p.raw(
      `${p.field('enforceNodeAllocatable')} may contain only one of "plat-reserved" and ` +
        `"plat-reserved-compressible"`,
    );
  }
}

function validateReserved(
  p: Problems,
  path: 'systemReserved' | 'platReserved',
  m: Record<string, string>,
): void {
  for (const [k, v] of Object.entries(m)) {
    if (!RESERVABLE.test(k))
      p.add(
        path,
        k,
        'is not a reservable resource: use cpu, memory, pid, ephemeral-storage or hugepages-<size>',
      );
    const q = tryQuantity(v);
    if (q === undefined) p.add(path, `${k}=${v}`, 'has a value that is not a quantity');
    else if (q < 0) p.add(path, `${k}=${v}`, 'must not be negative');
  }
}

function isSignal(s: string): boolean {
  return isOneOf(EVICTION_SIGNALS, s);
}

/** A threshold value: a non-negative quantity, or a percentage in (0%, 100%]. */
function thresholdProblem(v: string): string | undefined {
  const pct = /^(\d+(?:\.\d+)?)%$/.exec(v);
  if (pct !== null) {
    const n = Number(pct[1]);
    return n > 0 && n <= 100 ? undefined : 'percentage must be greater than 0% and at most 100%';
  }
  const q = tryQuantity(v);
  if (q === undefined) return 'must be a quantity such as 100Mi or a percentage such as 10%';
  return q < 0 ? 'must not be negative' : undefined;
}

function validateEviction(c: Cfg, p: Problems): void {
  for (const path of ['evictionHard', 'evictionSoft', 'evictionMinimumReclaim'] as const) {
    for (const [signal, v] of Object.entries(c[path])) {
      if (!isSignal(signal)) {
        p.add(path, signal, `is not an eviction signal: use one of ${EVICTION_SIGNALS.join(', ')}`);
        continue;
      }
      const problem = thresholdProblem(v);
      if (problem !== undefined) p.add(path, `${signal}=${v}`, problem);
    }
  }
  for (const [signal, v] of Object.entries(c.evictionSoftGracePeriod)) {
    if (!isSignal(signal))
      p.add(
        'evictionSoftGracePeriod',
        signal,
        `is not an eviction signal: use one of ${EVICTION_SIGNALS.join(', ')}`,
      );
    const ms = tryDurationMs(v);
    if (ms === undefined || ms < 0)
      p.add(
        'evictionSoftGracePeriod',
        `${signal}=${v}`,
        'must be a non-negative duration such as 1m30s',
      );
  }
  for (const signal of Object.keys(c.evictionSoft)) {
    if (isSignal(signal) && c.evictionSoftGracePeriod[signal] === undefined) {
      p.raw(
        `${p.field('evictionSoft')} threshold ${signal} has no grace period in ` +
          p.field('evictionSoftGracePeriod'),
      );
    }
  }
  const transition = tryDurationMs(c.evictionPressureTransitionPeriod);
  if (transition === undefined || transition < 0) {
    p.add(
      'evictionPressureTransitionPeriod',
      c.evictionPressureTransitionPeriod,
      'must be a non-negative duration such as 5m0s',
    );
  }
}

function bytesText(n: number): string {
  return Number.isInteger(n) && n % 1024 === 0
    ? tryNormalizeQuantity(`${n / 1024}Ki`)
    : tryNormalizeQuantity(String(n));
}

/**
 * Per memory type, the sum over NUMA nodes must equal plat + system reserved (+ hard eviction for
 * memory).
 */
function validateReservedMemory(c: Cfg, p: Problems): void {
  if (c.reservedMemory.length === 0) return;
  const totals = new Map<string, number>();
  const seenNodes = new Set<number>();
  for (const r of c.reservedMemory) {
    if (r.numaNode < 0) p.add('reservedMemory', r.numaNode, 'NUMA node must not be negative');
    if (seenNodes.has(r.numaNode))
      p.add('reservedMemory', r.numaNode, 'NUMA node is listed more than once');
    seenNodes.add(r.numaNode);
    for (const [type, v] of Object.entries(r.limits)) {
      if (type !== 'memory' && !/^hugepages-.+$/.test(type))
        p.add('reservedMemory', type, 'is not a memory type: use memory or hugepages-<size>');
      const q = tryQuantity(v);
      if (q === undefined || q < 0)
        p.add('reservedMemory', `${r.numaNode}:${type}=${v}`, 'must be a non-negative quantity');
      else totals.set(type, (totals.get(type) ?? 0) + q);
    }
  }
  const types = new Set<string>(totals.keys());
  for (const m of [c.platReserved, c.systemReserved])
    for (const k of Object.keys(m)) if (k === 'memory' || k.startsWith('hugepages-')) types.add(k);
  for (const type of [...types].sort()) {
    let expected =
      (tryQuantity(c.platReserved[type] ?? '0') ?? 0) +
      (tryQuantity(c.systemReserved[type] ?? '0') ?? 0);
    let from = `${p.field('platReserved')} + ${p.field('systemReserved')}`;
    if (type === 'memory') {
      const hard = c.evictionHard['memory.available'];
      if (hard?.endsWith('%')) {
        p.raw(
          `${p.field('reservedMemory')} cannot be checked against a percentage in ` +
            `${p.field('evictionHard')} memory.available=${hard}: give it as a quantity ` +
            `such as 100Mi`,
        );
        continue;
      }
      expected += tryQuantity(hard ?? '0') ?? 0;
      from += ` + ${p.field('evictionHard')} memory.available`;
    }
    const total = totals.get(type) ?? 0;
    if (Math.abs(total - expected) > 1e-6) {
      p.raw(
        `${p.field('reservedMemory')} the total amount "${bytesText(total)}" of type "` +
          `${type}" is not equal to the value "${bytesText(expected)}" determined by ` +
          from,
      );
    }
  }
}

function validateTaints(c: Cfg, p: Problems): void {
  const seen = new Set<string>();
  for (const t of c.registerWithTaints) {
    const value = t.value === undefined || t.value === '' ? '' : `=${t.value}`;
    const spec = `${t.key}${value}:${t.effect}`;
    const errs = [...qualifiedNameErrors(t.key), ...labelValueErrors(t.value ?? '')];
    if (!isOneOf(TAINT_EFFECTS, t.effect))
      errs.push(
        `invalid taint effect: ${t.effect}, unsupported taint effect (use ` +
          `${TAINT_EFFECTS.join(', ')})`,
      );
    const id = `${t.key}\u0000${t.effect}`;
    if (seen.has(id))
      errs.push(`duplicated taints with the same key and effect: ${t.key}:${t.effect}`);
    seen.add(id);
    if (errs.length > 0)
      p.add('registerWithTaints', spec, `invalid taint spec: ${errs.join('; ')}`);
  }
}

export function validateResources(c: Cfg, p: Problems): void {
  validateEnforcement(c, p);
  validateReserved(p, 'systemReserved', c.systemReserved);
  validateReserved(p, 'platReserved', c.platReserved);
  validateEviction(c, p);
  validateReservedMemory(c, p);
  validateTaints(c, p);
}
