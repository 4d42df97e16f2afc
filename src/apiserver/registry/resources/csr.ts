// CertificateSigningRequest (certificates.{domain}/v1, cluster-scoped, /status and /approval).
// The CSR rules themselves (PEM, signer name, usages, conditions, certificate) live in
// src/apiserver/csr/; this file maps them onto the registry's strategy hooks per subresource.

import {
  prepareCsrForApprovalUpdate,
  prepareCsrForCreate,
  prepareCsrForStatusUpdate,
  prepareCsrForUpdate,
  validateCsrApprovalUpdate,
  validateCsrCreate,
  validateCsrStatusUpdate,
  validateCsrUpdate,
} from '../../csr/validation.js';
import type { ResourceDef } from '../types.js';

/** `legacySigner`: the profile's legacy-unknown signer (default: the reference's). */
export function csrDef(platformDomain: string, legacySigner?: string): ResourceDef {
  return {
    resource: 'certificatesigningrequests',
    singularName: 'certificatesigningrequest',
    group: `certificates.${platformDomain}`,
    version: 'v1',
    kind: 'CertificateSigningRequest',
    listKind: 'CertificateSigningRequestList',
    namespaced: false,
    shortNames: ['csr'],
    subresources: ['status', 'approval'],
    allowCreateOnUpdate: false,
    returnDeletedObject: false,
    prepareForCreate: (obj, ctx) => {
      prepareCsrForCreate(obj, ctx.user);
    },
    validateCreate: (obj) => validateCsrCreate(obj, legacySigner),
    prepareForUpdate: (obj, old, subresource, ctx) => {
      if (subresource === 'status') prepareCsrForStatusUpdate(obj, old, ctx.now);
      else if (subresource === 'approval') prepareCsrForApprovalUpdate(obj, old, ctx.now);
      else prepareCsrForUpdate(obj, old);
    },
    validateUpdate: (obj, old, subresource) => {
      if (subresource === 'status') return validateCsrStatusUpdate(obj, old, legacySigner);
      if (subresource === 'approval') return validateCsrApprovalUpdate(obj, old, legacySigner);
      return validateCsrUpdate(obj, old, legacySigner);
    },
  };
}
