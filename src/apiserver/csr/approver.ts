// Decisions of the auto-approver (`csrapproving`): which requests are node client requests of the
// platlet client signer, and the condition it appends. The SubjectAccessReview itself (may the
// requester create certificatesigningrequests/nodeclient or /selfnodeclient) is the caller's.

import type { Names } from '../../common/names.js';
import { asArray, asRecord, conditionsOf, formatTime } from './object.js';
import { decodeBase64Field } from './pem.js';
import { parseCsrPem, type ParsedCsr } from './request.js';

export const AUTO_APPROVE_REASON = 'AutoApproved';
/** The reference's condition message, with the profile's agent word (platlet or kubelet). */
export function autoApproveMessage(names: Names, self: boolean): string {
  return (
    `Auto approving ${self ? 'self ' : ''}${names.agentWord} client certificate after ` +
    `SubjectAccessReview.`
  );
}
/** The reference's message when the node renews its own certificate (selfnodeclient). */

export function platletClientSignerName(names: Names): string {
  return names.signers.agentClient;
}

export function parseRequestOf(csrObj: Record<string, unknown>): ParsedCsr | undefined {
  const req = asRecord(csrObj['spec'])['request'];
  if (typeof req !== 'string') return undefined;
  const pem = decodeBase64Field(req);
  if (pem === undefined) return undefined;
  try {
    return parseCsrPem(pem);
  } catch {
    return undefined;
  }
}

function sameSet(a: readonly unknown[], b: readonly string[]): boolean {
  const sa = new Set(a);
  return sa.size === a.length && sa.size === b.length && b.every((x) => sa.has(x));
}

const CLIENT_USAGES = ['digital signature', 'key encipherment', 'client auth'];
const CLIENT_USAGES_NO_RSA = ['digital signature', 'client auth'];

/** Subject/SAN/usage checks of a node client request (without the signer name check). */
export function nodeClientProblem(
  parsed: ParsedCsr,
  usages: readonly unknown[],
): string | undefined {
  if (parsed.organizations.length !== 1 || parsed.organizations[0] !== 'system:nodes')
    return 'subject organization is not system:nodes';
  if (parsed.dnsNames.length > 0) return 'DNS subjectAltNames are not allowed';
  if (parsed.emailAddresses.length > 0) return 'Email subjectAltNames are not allowed';
  if (parsed.ipAddresses.length > 0) return 'IP subjectAltNames are not allowed';
  if (parsed.uris.length > 0) return 'URI subjectAltNames are not allowed';
  if (!parsed.commonName.startsWith('system:node:'))
    return 'subject common name does not begin with system:node:';
  if (!sameSet(usages, CLIENT_USAGES) && !sameSet(usages, CLIENT_USAGES_NO_RSA)) {
    return `usages did not match [${[...CLIENT_USAGES].sort().join(' ')}]`;
  }
  return undefined;
}

/**
 * A node client CSR: the platlet client signer, O exactly ["system:nodes"], CN `system:node:*`, no
 * SANs, usages {digital signature, key encipherment, client auth} or {digital signature, client
 * auth}.
 */
export function isNodeClientCsr(csrObj: Record<string, unknown>, names: Names): boolean {
  const spec = asRecord(csrObj['spec']);
  const signer = spec['signerName'];
  if (typeof signer !== 'string') return false;
  if (signer !== platletClientSignerName(names)) return false;
  const parsed = parseRequestOf(csrObj);
  if (parsed === undefined) return false;
  return nodeClientProblem(parsed, asArray(spec['usages'])) === undefined;
}

/** A node client CSR whose requester is the node itself (spec.username equals the CN). */
export function isSelfNodeClient(csrObj: Record<string, unknown>, names: Names): boolean {
  if (!isNodeClientCsr(csrObj, names)) return false;
  const parsed = parseRequestOf(csrObj);
  return parsed !== undefined && asRecord(csrObj['spec'])['username'] === parsed.commonName;
}

export function isApprovedOrDenied(csrObj: Record<string, unknown>): {
  approved: boolean;
  denied: boolean;
} {
  const conds = conditionsOf(csrObj);
  return {
    approved: conds.some((c) => c.type === 'Approved' && c.status === 'True'),
    denied: conds.some((c) => c.type === 'Denied' && c.status === 'True'),
  };
}

export function hasCertificate(csrObj: Record<string, unknown>): boolean {
  const c = asRecord(csrObj['status'])['certificate'];
  return typeof c === 'string' && c.length > 0;
}

/** The approver looks at a CSR only when it has no certificate and no Approved/Denied condition. */
export function approvalCheckNeeded(csrObj: Record<string, unknown>): boolean {
  if (hasCertificate(csrObj)) return false;
  const { approved, denied } = isApprovedOrDenied(csrObj);
  return !approved && !denied;
}

export function approvalCondition(
  now: Date,
  names: Names,
  self = false,
): {
  type: 'Approved';
  status: 'True';
  reason: string;
  message: string;
  lastUpdateTime: string;
  lastTransitionTime: string;
} {
  const t = formatTime(now);
  return {
    type: 'Approved',
    status: 'True',
    reason: AUTO_APPROVE_REASON,
    message: autoApproveMessage(names, self),
    lastUpdateTime: t,
    lastTransitionTime: t,
  };
}

/** The signer acts on approved, not denied, not failed CSRs without a certificate. */
export function signingNeeded(csrObj: Record<string, unknown>): boolean {
  if (hasCertificate(csrObj)) return false;
  const { approved, denied } = isApprovedOrDenied(csrObj);
  const failed = conditionsOf(csrObj).some((c) => c.type === 'Failed' && c.status === 'True');
  return approved && !denied && !failed;
}
