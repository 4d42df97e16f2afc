// The three certificate admission plugins, as the reference has them:
// CertificateApproval (verb "approve" on signers for /approval updates), CertificateSigning (verb
// "sign" on signers when /status changes the certificate) and CertificateSubjectRestriction (no
// system:masters in requests for the API-server client signer).
import type { Names } from '../../common/names.js';
import { parseCsrPem } from '../csr/request.js';
import type { AdmissionPlugin, AdmissionRequest, Authorizer } from '../interfaces.js';
import type { UserInfo } from '../../common/auth/user.js';
import { forbidden } from '../status.js';
import { recordOf } from '../../common/util/json-shape.js';

const CSR_RESOURCE = 'certificatesigningrequests';

function signerNameOf(obj: Record<string, unknown> | undefined): string {
  const s = recordOf(obj?.['spec'])['signerName'];
  return typeof s === 'string' ? s : '';
}

function isCsr(r: AdmissionRequest, platformDomain: string): boolean {
  return r.resource === CSR_RESOURCE && r.apiGroup === `certificates.${platformDomain}`;
}

/** Whether `user` may do `verb` on the signer (by its name, or the `<domain>/*` wildcard). */
async function mayOnSigner(
  authorizer: Authorizer,
  user: UserInfo,
  verb: string,
  group: string,
  signerName: string,
): Promise<boolean> {
  const domain = signerName.split('/')[0] ?? '';
  for (const name of [signerName, `${domain}/*`]) {
    const d = await authorizer.authorize({
      user,
      verb,
      isResourceRequest: true,
      path: '',
      apiGroup: group,
      apiVersion: '',
      resource: 'signers',
      subresource: '',
      namespace: '',
      name,
    });
    if (d.decision === 'allow') return true;
  }
  return false;
}

function denied(r: AdmissionRequest, message: string): Error {
  return forbidden(`${CSR_RESOURCE}.${r.apiGroup} "${r.name}" is forbidden: ${message}`, {
    name: r.name,
    group: r.apiGroup,
    kind: CSR_RESOURCE,
  });
}

/**
 * Denies the request unless its user may `verb` ("approve", "sign") on the CSR's signer, as the
 * reference words it.
 */
async function requireOnSigner(
  authorizer: Authorizer,
  r: AdmissionRequest,
  verb: 'approve' | 'sign',
): Promise<void> {
  const signer = signerNameOf(r.oldObject ?? r.object);
  if (!(await mayOnSigner(authorizer, r.user, verb, r.apiGroup, signer))) {
    throw denied(
      r,
      `user not permitted to ${verb} requests with signerName ${JSON.stringify(signer)}`,
    );
  }
}

export interface CertificatePluginOptions {
  readonly platformDomain: string;
  /** The server's authorizer chain, for the signer permission checks. */
  readonly authorizer: Authorizer;
}

export class CertificateApproval implements AdmissionPlugin {
  readonly name = 'CertificateApproval';
  private readonly o: CertificatePluginOptions;
  constructor(o: CertificatePluginOptions) {
    this.o = o;
  }

  async admit(r: AdmissionRequest): Promise<void> {
    if (
      !isCsr(r, this.o.platformDomain) ||
      r.subresource !== 'approval' ||
      r.operation !== 'UPDATE'
    )
      return;
    await requireOnSigner(this.o.authorizer, r, 'approve');
  }
}

function certificateOf(obj: Record<string, unknown> | undefined): string {
  const c = recordOf(obj?.['status'])['certificate'];
  return typeof c === 'string' ? c : '';
}

export class CertificateSigning implements AdmissionPlugin {
  readonly name = 'CertificateSigning';
  private readonly o: CertificatePluginOptions;
  constructor(o: CertificatePluginOptions) {
    this.o = o;
  }

  async admit(r: AdmissionRequest): Promise<void> {
    if (!isCsr(r, this.o.platformDomain) || r.subresource !== 'status' || r.operation !== 'UPDATE')
      return;
    // Only a change of the issued certificate needs the signer permission.
    if (certificateOf(r.object) === certificateOf(r.oldObject)) return;
    await requireOnSigner(this.o.authorizer, r, 'sign');
  }
}

export class CertificateSubjectRestriction implements AdmissionPlugin {
  readonly name = 'CertificateSubjectRestriction';
  private readonly o: { readonly platformDomain: string; readonly names: Names };
  constructor(o: { platformDomain: string; names: Names }) {
    this.o = o;
  }

  admit(r: AdmissionRequest): Promise<void> {
    if (!isCsr(r, this.o.platformDomain) || r.operation !== 'CREATE' || r.subresource !== '')
      return Promise.resolve();
    const signer = signerNameOf(r.object);
    const restricted = this.o.names.signers.apiClient;
    if (signer !== restricted) return Promise.resolve();
    const request = recordOf(r.object?.['spec'])['request'];
    if (typeof request !== 'string') return Promise.resolve();
    let orgs: readonly string[];
    try {
      orgs = parseCsrPem(Buffer.from(request, 'base64')).organizations;
    } catch (err) {
      return Promise.reject(
        denied(r, `failed to parse CSR: ${err instanceof Error ? err.message : String(err)}`),
      );
    }
    if (orgs.includes('system:masters')) {
      return Promise.reject(
        denied(r, `use of ${restricted} signer with system:masters group is not allowed`),
      );
    }
    return Promise.resolve();
  }
}
