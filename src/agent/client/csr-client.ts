// CertificateSigningRequest (group certificates.{platform_domain}/v1, cluster-scoped): types
// and the typed client, with the approval subresource for people and tests that approve by hand.
import type { Names } from '../../common/names.js';
import { systemClock, type Clock } from '../../common/util/clock.js';
import type { Logger } from '../../common/log/types.js';
import type { RestClient } from './rest-client.js';
import { ResourceClient, type WriteOptions } from './resource-client.js';
import type { LazyAnswerSchema } from './answer-schema.js';
import { isCertificateSigningRequest } from './csr-shape.js';
import type { CertificateSigningRequest, CsrCondition } from './csr-types.js';

export type { CsrCondition, CertificateSigningRequest } from './csr-types.js';

/**
 * CSR answers: well-formed ones decoded by the guard, the rest by the zod schema (for its error).
 */
const CSR_SCHEMA: LazyAnswerSchema<CertificateSigningRequest> = {
  accepts: isCertificateSigningRequest,
  load: async () => (await import('./csr-schema.js')).CertificateSigningRequestSchema,
};

export interface CsrClientOptions {
  client: RestClient;
  /** The naming profile's names (the certificates group). */
  names: Names;
  clock?: Clock;
  logger?: Logger;
}

export class CsrClient extends ResourceClient<CertificateSigningRequest> {
  readonly names: Names;
  private readonly conditionClock: Clock;
  constructor(options: CsrClientOptions) {
    const names = options.names;
    super({
      client: options.client,
      schema: CSR_SCHEMA,
      group: names.groups.certificates,
      version: 'v1',
      resource: 'certificatesigningrequests',
      kind: 'CertificateSigningRequest',
      namespaced: false,
      ...(options.clock ? { clock: options.clock } : {}),
      ...(options.logger ? { logger: options.logger } : {}),
    });
    this.names = names;
    this.conditionClock = options.clock ?? systemClock;
  }

  /** Adds an Approved (or Denied) condition through the approval subresource. */
  async setApproval(
    name: string,
    decision: 'Approved' | 'Denied',
    reason: string,
    message: string,
    opts?: WriteOptions,
  ): Promise<CertificateSigningRequest> {
    const csr = await this.get(name, opts);
    const conditions = [
      ...(csr.status?.conditions ?? []),
      {
        type: decision,
        status: 'True' as const,
        reason,
        message,
        lastUpdateTime: this.conditionClock.now().toISOString(),
      },
    ];
    return this.update(
      { ...csr, status: { ...csr.status, conditions } },
      { ...opts, subresource: 'approval' },
    );
  }
}

export function csrCondition(
  csr: CertificateSigningRequest,
  type: string,
): CsrCondition | undefined {
  return csr.status?.conditions?.find((c) => c.type === type && c.status !== 'False');
}

/** The issued PEM chain, or undefined while not issued. */
export function issuedCertificate(csr: CertificateSigningRequest): string | undefined {
  const b64 = csr.status?.certificate;
  if (!b64) return undefined;
  return Buffer.from(b64, 'base64').toString('utf8');
}
