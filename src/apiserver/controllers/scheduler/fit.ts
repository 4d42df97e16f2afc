// Whether a pod fits a node, as the reference scheduler's default filters decide it, in their
// order (the first that fails names the node's reasons): NodeUnschedulable ("node(s) were
// unschedulable", unless the pod tolerates the unschedulable taint), TaintToleration (a NoSchedule
// or NoExecute taint the pod does not tolerate: "node(s) had untolerated taint {key: value}"; a
// node whose Ready condition is not True counts as tainted not-ready, as the reference's node
// lifecycle taints it), NodeAffinity (nodeSelector and required node affinity: "node(s) didn't
// match Pod's node affinity/selector"), NodeResourcesFit ("Too many pods", "Insufficient cpu",
// "Insufficient memory", ... against allocatable minus the requests of the pods bound there).
// Resource reasons are ones preemption could resolve; the others are not.

import type { Names } from '../../../common/names.js';
import { isRecord, listOf, recordOf } from '../../../common/util/json-shape.js';
import { quantityValueOrZero } from '../../../common/util/values/quantity.js';

type Obj = Record<string, unknown>;

export interface NodeFit {
  /** Empty: the pod fits. */
  readonly reasons: readonly string[];
  /** Preemption could help (resources), as opposed to UnschedulableAndUnresolvable. */
  readonly resolvable: boolean;
}

const objs = (v: unknown): Obj[] => listOf(v).filter(isRecord);
const text = (v: unknown): string => (typeof v === 'string' ? v : '');

/**
 * The reference's effective request: the containers' sum, at least each init container's, plus
 * overhead.
 */
export function podRequests(pod: Obj): Map<string, number> {
  const spec = recordOf(pod['spec']);
  const of = (c: Obj): Map<string, number> => {
    const r = recordOf(c['resources']);
    const requests = recordOf(r['requests']);
    const limits = recordOf(r['limits']);
    const out = new Map<string, number>();
    for (const k of new Set([...Object.keys(requests), ...Object.keys(limits)]))
      out.set(k, quantityValueOrZero(requests[k] ?? limits[k]));
    return out;
  };
  const sum = new Map<string, number>();
  for (const c of objs(spec['containers']))
    for (const [k, v] of of(c)) sum.set(k, (sum.get(k) ?? 0) + v);
  for (const c of objs(spec['initContainers'])) {
    if (c['restartPolicy'] === 'Always') {
      for (const [k, v] of of(c)) sum.set(k, (sum.get(k) ?? 0) + v);
      continue;
    }
    for (const [k, v] of of(c)) sum.set(k, Math.max(sum.get(k) ?? 0, v));
  }
  for (const [k, v] of Object.entries(recordOf(spec['overhead'])))
    sum.set(k, (sum.get(k) ?? 0) + quantityValueOrZero(v));
  return sum;
}

/** TolerationsTolerateTaint: effect, key (an empty key with Exists matches all) and value. */
export function tolerates(tolerations: readonly Obj[], taint: Obj): boolean {
  return tolerations.some((t) => {
    const effect = text(t['effect']);
    if (effect !== '' && effect !== text(taint['effect'])) return false;
    const op = text(t['operator']) === '' ? 'Equal' : text(t['operator']);
    if (text(t['key']) === '') return op === 'Exists';
    if (text(t['key']) !== text(taint['key'])) return false;
    return op === 'Exists' || text(t['value']) === text(taint['value']);
  });
}

function isReady(node: Obj): boolean {
  const ready = objs(recordOf(node['status'])['conditions']).find((c) => c['type'] === 'Ready');
  return ready?.['status'] === 'True';
}

/** The node's scheduling taints, with not-ready added for a node that is not Ready. */
function schedulingTaints(node: Obj, names: Names): Obj[] {
  const taints = objs(recordOf(node['spec'])['taints']).filter(
    (t) => t['effect'] === 'NoSchedule' || t['effect'] === 'NoExecute',
  );
  if (!isReady(node) && !taints.some((t) => t['key'] === names.taints.notReady))
    taints.push({ key: names.taints.notReady, effect: 'NoSchedule' });
  return taints;
}

function matchExpression(e: Obj, value: string | undefined): boolean {
  const values = listOf(e['values']).map(text);
  switch (text(e['operator'])) {
    case 'In':
      return value !== undefined && values.includes(value);
    case 'NotIn':
      return value === undefined || !values.includes(value);
    case 'Exists':
      return value !== undefined;
    case 'DoesNotExist':
      return value === undefined;
    case 'Gt':
    case 'Lt': {
      const n = Number.parseInt(value ?? '', 10);
      const bound = Number.parseInt(values[0] ?? '', 10);
      if (Number.isNaN(n) || Number.isNaN(bound)) return false;
      return text(e['operator']) === 'Gt' ? n > bound : n < bound;
    }
    default:
      return false;
  }
}

/**
 * nodeSelector and requiredDuringSchedulingIgnoredDuringExecution (terms ORed, expressions ANDed).
 */
export function matchesNodeAffinity(pod: Obj, node: Obj): boolean {
  const spec = recordOf(pod['spec']);
  const labels = recordOf(recordOf(node['metadata'])['labels']);
  const label = (k: string): string | undefined =>
    typeof labels[k] === 'string' ? labels[k] : undefined;
  for (const [k, v] of Object.entries(recordOf(spec['nodeSelector'])))
    if (label(k) !== v) return false;
  const required = recordOf(
    recordOf(recordOf(spec['affinity'])['nodeAffinity'])[
      'requiredDuringSchedulingIgnoredDuringExecution'
    ],
  );
  const terms = objs(required['nodeSelectorTerms']);
  if (required['nodeSelectorTerms'] === undefined) return true;
  const name = text(recordOf(node['metadata'])['name']);
  return terms.some((term) => {
    const exprs = objs(term['matchExpressions']);
    const fields = objs(term['matchFields']);
    if (exprs.length === 0 && fields.length === 0) return false;
    return (
      exprs.every((e) => matchExpression(e, label(text(e['key'])))) &&
      fields.every((f) => text(f['key']) === 'metadata.name' && matchExpression(f, name))
    );
  });
}

function resourceReasons(pod: Obj, node: Obj, boundPods: readonly Obj[]): string[] {
  const allocatable = recordOf(recordOf(node['status'])['allocatable']);
  const reasons: string[] = [];
  const maxPods = quantityValueOrZero(allocatable['pods']);
  if (boundPods.length + 1 > maxPods) reasons.push('Too many pods');
  const used = new Map<string, number>();
  for (const p of boundPods)
    for (const [k, v] of podRequests(p)) used.set(k, (used.get(k) ?? 0) + v);
  const wanted = podRequests(pod);
  for (const [k, v] of [...wanted].sort(
    ([a], [b]) => resourceOrder(a) - resourceOrder(b) || a.localeCompare(b),
  )) {
    if (v <= 0) continue;
    if (v > quantityValueOrZero(allocatable[k]) - (used.get(k) ?? 0))
      reasons.push(`Insufficient ${k}`);
  }
  return reasons;
}

/** The reference checks cpu, memory and ephemeral-storage first, then the others. */
function resourceOrder(name: string): number {
  const i = ['cpu', 'memory', 'ephemeral-storage'].indexOf(name);
  return i < 0 ? 3 : i;
}

export function nodeFit(pod: Obj, node: Obj, boundPods: readonly Obj[], names: Names): NodeFit {
  const tolerations = objs(recordOf(pod['spec'])['tolerations']);
  if (
    recordOf(node['spec'])['unschedulable'] === true &&
    !tolerates(tolerations, { key: names.taints.unschedulable, effect: 'NoSchedule' })
  )
    return { reasons: ['node(s) were unschedulable'], resolvable: false };
  const untolerated = schedulingTaints(node, names).find((t) => !tolerates(tolerations, t));
  if (untolerated !== undefined)
    return {
      reasons: [
        `node(s) had untolerated taint {${text(untolerated['key'])}: ` +
          `${text(untolerated['value'])}}`,
      ],
      resolvable: false,
    };
  if (!matchesNodeAffinity(pod, node))
    return { reasons: ["node(s) didn't match Pod's node affinity/selector"], resolvable: false };
  const reasons = resourceReasons(pod, node, boundPods);
  return { reasons, resolvable: true };
}

/**
 * The reference's FitError message, with the preemption attempt's (no victims: nothing is preempted
 * here).
 */
export function fitErrorMessage(fits: readonly NodeFit[]): string {
  const n = fits.length;
  if (n === 0) return 'no nodes available to schedule pods';
  const histogram = (entries: readonly string[]): string => {
    const counts = new Map<string, number>();
    for (const e of entries) counts.set(e, (counts.get(e) ?? 0) + 1);
    return [...counts]
      .map(([k, v]) => `${v} ${k}`)
      .sort()
      .join(', ');
  };
  const reasons = histogram(fits.flatMap((f) => f.reasons));
  let msg = `0/${n} nodes are available:`;
  if (reasons !== '') msg += ` ${reasons}.`;
  const preemption = histogram(
    fits.map((f) =>
      f.resolvable
        ? 'No preemption victims found for incoming pod'
        : 'Preemption is not helpful for scheduling',
    ),
  );
  msg += ` preemption: 0/${n} nodes are available:${preemption === '' ? '' : ` ${preemption}.`}`;
  return msg;
}
