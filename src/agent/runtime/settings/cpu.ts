// CPU shares, CFS quota and period of a container, as the reference's kuberuntime computes them
// (calculateLinuxResources, milliCPUToQuota, cm.MilliCPUToShares).
import type { Container } from '../../pod/types.js';
import { parseQuantity } from '../../../common/util/values/quantity.js';

export const MIN_SHARES = 2;
export const MAX_SHARES = 262144;
const SHARES_PER_CPU = 1024;
const MILLI_CPU_TO_CPU = 1000;
export const MIN_QUOTA_PERIOD_US = 1000;

/** Milli-CPUs rounded up, as resource.Quantity.MilliValue does. */
export function milliValue(q: string | undefined): number | undefined {
  if (q === undefined) return undefined;
  return Math.ceil(parseQuantity(q).value * 1000 - 1e-9);
}

export function milliCpuToShares(milli: number): number {
  if (milli === 0) return MIN_SHARES;
  const shares = Math.trunc((milli * SHARES_PER_CPU) / MILLI_CPU_TO_CPU);
  return Math.min(MAX_SHARES, Math.max(MIN_SHARES, shares));
}

export function milliCpuToQuota(milli: number, periodUs: number): number {
  if (milli === 0) return 0;
  const quota = Math.trunc((milli * periodUs) / MILLI_CPU_TO_CPU);
  return Math.max(MIN_QUOTA_PERIOD_US, quota);
}

export interface CpuSettings {
  /** --cpu-cfs-quota */
  cfsQuota: boolean;
  /** --cpu-cfs-quota-period in microseconds */
  cfsQuotaPeriodUs: number;
}

export interface CpuResources {
  CpuShares: number;
  CpuQuota?: number;
  CpuPeriod?: number;
}

export function containerCpuResources(c: Container, s: CpuSettings): CpuResources {
  const request = milliValue(c.resources?.requests?.cpu);
  const limit = milliValue(c.resources?.limits?.cpu);
  // a request left out defaults to the limit
  const shares = milliCpuToShares(request ?? limit ?? 0);
  if (!s.cfsQuota) return { CpuShares: shares };
  return {
    CpuShares: shares,
    CpuQuota: milliCpuToQuota(limit ?? 0, s.cfsQuotaPeriodUs),
    CpuPeriod: s.cfsQuotaPeriodUs,
  };
}
