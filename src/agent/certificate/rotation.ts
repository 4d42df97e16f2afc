// Rotation timing, as the reference: the deadline is notBefore + lifetime × uniform(0.7, 0.9);
// failures back off 2 s ×2 with 10 % jitter for 5 steps, then every 32 s.
import { backoffDelayMs } from '../../common/util/backoff.js';
import type { CertificateInfo } from './cert-info.js';
import type { CsrTemplate } from './csr.js';

export function rotationDeadline(
  info: Pick<CertificateInfo, 'notBefore' | 'notAfter'>,
  fraction: number,
): Date {
  const nb = info.notBefore.getTime();
  const lifetime = info.notAfter.getTime() - nb;
  return new Date(nb + lifetime * fraction);
}

export function jitteredFraction(random: () => number = Math.random): number {
  return 0.7 + 0.2 * random();
}

export interface RotationBackoff {
  initialMs: number;
  factor: number;
  jitter: number;
  steps: number;
  capMs: number;
}

export const referenceBackoff: RotationBackoff = {
  initialMs: 2000,
  factor: 2,
  jitter: 0.1,
  steps: 5,
  capMs: 32_000,
};

/** Delay after failure number `failures` (1-based). */
export function rotationBackoffMs(
  b: RotationBackoff,
  failures: number,
  random: () => number = Math.random,
): number {
  if (failures > b.steps) return b.capMs;
  return backoffDelayMs(
    { initialMs: b.initialMs, maxMs: b.capMs, factor: b.factor, jitter: { up: b.jitter } },
    failures - 1,
    random,
  );
}

/** Does the certificate still match what we would ask for (CN, O, DNS names, IPs)? */
export function matchesTemplate(info: CertificateInfo, t: CsrTemplate): boolean {
  const same = (a: string[], b: string[]): boolean => {
    const x = [...new Set(a.map((v) => v.toLowerCase()))].sort();
    const y = [...new Set(b.map((v) => v.toLowerCase()))].sort();
    return x.length === y.length && x.every((v, i) => v === y[i]);
  };
  return (
    info.commonName === t.commonName &&
    same(info.organizations, t.organizations) &&
    same(info.dnsNames, t.dnsNames ?? []) &&
    same(info.ipAddresses, t.ipAddresses ?? [])
  );
}
