// ClusterRole aggregation, as the reference's clusterrole-aggregation controller: a ClusterRole
// with an aggregationRule gets the rules of every other ClusterRole that one of its label
// selectors matches (deduplicated, in name order). Runs after any ClusterRole changes.

import type { Logger } from '../../../common/log/types.js';
import type { Registry } from '../../registry/registry.js';
import type { ResourceDef } from '../../registry/types.js';
import { metaOf, objAt, str, type Obj } from '../../registry/types.js';
import type { RbacCache } from './cache.js';
import { ruleOf, ruleToObject } from './rules.js';
import { isDeepStrictEqual } from 'node:util';
import { stringRecordOf, isRecord, listOf, recordOf } from '../../../common/util/json-shape.js';

const SYSTEM_USER = {
  username: 'system:controller:clusterrole-aggregation-controller',
  groups: ['system:masters'],
};

function labelsOf(o: Obj): Record<string, string> {
  return stringRecordOf(metaOf(o)['labels']);
}

function strings(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}

/**
 * A metav1.LabelSelector: matchLabels and matchExpressions (In, NotIn, Exists, DoesNotExist). An
 * empty selector matches nothing here, as the reference's aggregation skips it.
 */
export function selectorMatches(selector: unknown, labels: Record<string, string>): boolean {
  if (!isRecord(selector)) return false;
  const ml = objAt(selector, 'matchLabels') ?? {};
  const exprs = listOf(selector['matchExpressions']);
  if (Object.keys(ml).length === 0 && exprs.length === 0) return false;
  for (const [k, v] of Object.entries(ml)) if (labels[k] !== v) return false;
  for (const e of exprs) {
    const x = recordOf(e);
    const key = str(x['key']) ?? '';
    const values = strings(x['values']);
    const present = Object.hasOwn(labels, key);
    const op = str(x['operator']);
    if (op === 'In' && !(present && values.includes(labels[key] ?? ''))) return false;
    if (op === 'NotIn' && present && values.includes(labels[key] ?? '')) return false;
    if (op === 'Exists' && !present) return false;
    if (op === 'DoesNotExist' && present) return false;
    if (op !== 'In' && op !== 'NotIn' && op !== 'Exists' && op !== 'DoesNotExist') return false;
  }
  return true;
}

/** The rules an aggregated ClusterRole should have, given all ClusterRoles (sorted by name). */
export function aggregatedRules(role: Obj, all: readonly Obj[]): Obj[] {
  const selectors = listOf(objAt(role, 'aggregationRule')?.['clusterRoleSelectors']);
  const name = str(metaOf(role)['name']);
  const out: Obj[] = [];
  for (const sel of selectors) {
    for (const other of all) {
      if (str(metaOf(other)['name']) === name || !selectorMatches(sel, labelsOf(other))) continue;
      for (const r of listOf(other['rules'])) {
        const rule = ruleToObject(ruleOf(r));
        if (!out.some((x) => isDeepStrictEqual(x, rule))) out.push(rule);
      }
    }
  }
  return out;
}

export class ClusterRoleAggregator {
  private readonly o: { registry: Registry; def: ResourceDef; cache: RbacCache; logger: Logger };
  private pending: Promise<void> | undefined;
  private again = false;

  constructor(o: { registry: Registry; def: ResourceDef; cache: RbacCache; logger: Logger }) {
    this.o = o;
  }

  /** Aggregates now and after every ClusterRole change until `signal` aborts. */
  async run(signal: AbortSignal): Promise<void> {
    const off = this.o.cache.onChange((kind) => {
      if (kind === 'clusterRole' && !signal.aborted) this.schedule();
    });
    signal.addEventListener('abort', off, { once: true });
    await this.syncAll();
  }

  private schedule(): void {
    if (this.pending !== undefined) {
      this.again = true;
      return;
    }
    this.pending = new Promise<void>((resolve) => setImmediate(resolve))
      .then(() => this.syncAll())
      .catch((err: unknown) =>
        this.o.logger.error(
          { err },
          'clusterrole aggregation failed; retried at the next ClusterRole change',
        ),
      )
      .finally(() => {
        this.pending = undefined;
        if (this.again) {
          this.again = false;
          this.schedule();
        }
      });
  }

  /**
   * Writes the aggregated rules of every ClusterRole with an aggregationRule whose rules differ.
   */
  async syncAll(): Promise<void> {
    const all = this.o.cache.clusterRoles();
    for (const role of all) {
      if (objAt(role, 'aggregationRule') === undefined) continue;
      const want = aggregatedRules(role, all);
      const have = Array.isArray(role['rules']) ? role['rules'] : [];
      if (isDeepStrictEqual(have, want)) continue;
      const name = str(metaOf(role)['name']) ?? '';
      await this.o.registry.update(
        this.o.def,
        '',
        name,
        {
          user: SYSTEM_USER,
          dryRun: false,
          fieldManager: 'clusterrole-aggregation-controller',
          subresource: '',
          allowCreate: false,
        },
        (cur) => {
          if (cur === undefined) return role;
          return { ...cur, rules: want };
        },
      );
    }
  }
}
