// Query parameters of the REST endpoints, parsed as the reference's parameter codec does
// (booleans: anything but "0"/"false" is true; integers: base 10), and the parameter sets
// R, W, P, D, DC and L of the spec: a parameter outside the set of the endpoint is ignored.

import { badRequest } from './status.js';

export type ParamSet = 'R' | 'W' | 'P' | 'D' | 'DC' | 'L';

const R = ['pretty'];
const W = [...R, 'dryRun', 'fieldManager', 'fieldValidation'];
const P = [...W, 'force'];
const D = [
  'pretty',
  'dryRun',
  'gracePeriodSeconds',
  'ignoreStoreReadErrorWithClusterBreakingPotential',
  'orphanDependents',
  'propagationPolicy',
];
const listCommon = [
  'continue',
  'fieldSelector',
  'labelSelector',
  'limit',
  'resourceVersion',
  'resourceVersionMatch',
  'sendInitialEvents',
  'shardSelector',
  'timeoutSeconds',
];
const DC = [...D, ...listCommon];
const L = ['pretty', 'allowWatchBookmarks', 'watch', ...listCommon];

export const PARAM_SETS: Readonly<Record<ParamSet, ReadonlySet<string>>> = {
  R: new Set(R),
  W: new Set(W),
  P: new Set(P),
  D: new Set(D),
  DC: new Set(DC),
  L: new Set(L),
};

/** The query of one request, restricted to the endpoint's parameter set. */
export class Params {
  private readonly values = new Map<string, string[]>();
  constructor(search: URLSearchParams, set: ParamSet) {
    const allowed = PARAM_SETS[set];
    for (const [k, v] of search) {
      if (!allowed.has(k)) continue;
      const list = this.values.get(k) ?? [];
      list.push(v);
      this.values.set(k, list);
    }
  }

  has(name: string): boolean {
    return this.values.has(name);
  }

  /** All values of a repeated parameter (dryRun may repeat). */
  all(name: string): readonly string[] {
    return this.values.get(name) ?? [];
  }

  string(name: string): string | undefined {
    return this.values.get(name)?.[0];
  }

  bool(name: string): boolean | undefined {
    const v = this.string(name);
    if (v === undefined) return undefined;
    return !(v === '0' || v.toLowerCase() === 'false');
  }

  int(name: string): number | undefined {
    const raw = this.string(name);
    if (raw === undefined) return undefined;
    const v = raw.trim();
    if (v === '') return undefined;
    if (!/^[-+]?\d+$/.test(v))
      throw badRequest(`strconv.ParseInt: parsing ${JSON.stringify(raw)}: invalid syntax`);
    const n = Number(v);
    if (!Number.isSafeInteger(n))
      throw badRequest(`strconv.ParseInt: parsing ${JSON.stringify(raw)}: value out of range`);
    return n;
  }
}

/**
 * `pretty=true`, or a browser or command-line HTTP tool as user agent (the reference's default).
 */
export function wantsPretty(search: URLSearchParams, userAgent: string | undefined): boolean {
  const p = search.get('pretty');
  if (p !== null) return !(p === '0' || p.toLowerCase() === 'false');
  const ua = (userAgent ?? '').toLowerCase();
  return ua.startsWith('curl') || ua.startsWith('wget') || ua.startsWith('mozilla/');
}
