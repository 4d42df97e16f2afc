// The CertificateSigningRequest shape the agent reads and writes
// (certificates.{platform_domain}/v1):
// its own file, so the client, its guard and its zod schema all import it without a cycle.
import type { ObjectMeta } from './types.js';

export interface CsrCondition {
  /** Approved, Denied or Failed, or a type the agent does not know (kept as it came). */
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason?: string;
  message?: string;
  lastUpdateTime?: string;
  lastTransitionTime?: string;
}

export interface CertificateSigningRequest {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  spec: {
    /** base64 of the PEM CERTIFICATE REQUEST. */
    request: string;
    signerName: string;
    expirationSeconds?: number;
    usages?: string[];
    username?: string;
    uid?: string;
    groups?: string[];
    extra?: Record<string, string[]>;
  };
  status?: {
    /** base64 of the PEM certificate chain once issued. */
    certificate?: string;
    conditions?: CsrCondition[];
  };
}
