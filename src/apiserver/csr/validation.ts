// Validation of CertificateSigningRequest writes (the reference's
// pkg/apis/certificates/validation): create, update of the main resource, /status and /approval.
// Objects are the JSON forms as stored: spec.request and status.certificate are base64 strings.

import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import {
  duplicate,
  forbidden,
  invalid,
  notSupported,
  required,
  tooLong,
  type FieldError,
} from '../field-errors.js';
import {
  isDns1123Label,
  isDns1123Subdomain,
  isQualifiedName,
  isValidLabelValue,
} from '../../common/util/names.js';
import { isPathSegmentName } from '../registry/meta.js';
import { decodeBase64Field } from './pem.js';
import { decodePemBlocks } from '../../common/util/pem.js';
import { parseCsrPem } from './request.js';
import { asArray, asRecord, conditionsOf, isDeepEqual, type Condition } from './object.js';
import { REFERENCE_NAMES } from '../../common/names.js';
import { userMessage } from '../../common/util/errors.js';

export const KNOWN_USAGES: readonly string[] = [
  'signing',
  'digital signature',
  'content commitment',
  'key encipherment',
  'key agreement',
  'data encipherment',
  'cert sign',
  'crl sign',
  'encipher only',
  'decipher only',
  'any',
  'server auth',
  'client auth',
  'code signing',
  'email protection',
  's/mime',
  'ipsec end system',
  'ipsec tunnel',
  'ipsec user',
  'timestamping',
  'ocsp signing',
  'microsoft sgc',
  'netscape sgc',
];
const KNOWN_USAGE_SET: ReadonlySet<string> = new Set(KNOWN_USAGES);
const SORTED_USAGES = [...KNOWN_USAGES].sort();

export const SIGNER_NAME_MESSAGE =
  "must be a fully qualified domain and path of the form 'example.com/signer-name'";
export const EXPIRATION_MESSAGE = 'may not specify a duration less than 600 seconds (10 minutes)';
/** The profile's legacy-unknown signer (the reference's by default): not creatable through v1. */
const LEGACY_UNKNOWN_SIGNER = REFERENCE_NAMES.signers.legacyUnknown;

interface Options {
  allowSettingCertificate: boolean;
  allowSettingApprovalConditions: boolean;
  allowArbitraryCertificate: boolean;
  allowDuplicateConditionTypes: boolean;
  allowBothApprovedAndDenied: boolean;
  allowUnknownUsages: boolean;
  allowDuplicateUsages: boolean;
  allowEmptyConditionType: boolean;
  allowLegacySignerName: boolean;
  /** The legacy-unknown signer name of the profile. */
  legacySigner: string;
}

const STRICT: Options = {
  allowSettingCertificate: false,
  allowSettingApprovalConditions: false,
  allowArbitraryCertificate: false,
  allowDuplicateConditionTypes: false,
  allowBothApprovedAndDenied: false,
  allowUnknownUsages: false,
  allowDuplicateUsages: false,
  allowEmptyConditionType: false,
  allowLegacySignerName: false,
  legacySigner: '',
};

/**
 * Checks a signer name: `<domain with a dot>/<dot-separated subdomains>`, at most 571 characters.
 */
export function validateSignerName(field: string, signerName: unknown): FieldError[] {
  if (typeof signerName !== 'string' || signerName.length === 0) return [required(field, '')];
  const segments = signerName.split('/');
  if (segments.length !== 2) return [invalid(field, signerName, SIGNER_NAME_MESSAGE)];
  const [domain = '', path = ''] = segments;
  const errs: FieldError[] = [];
  if (Buffer.byteLength(domain) > 253) errs.push(tooLong(field, domain, 253));
  const domainLabels = domain.split('.');
  const badDomain =
    domainLabels.some((l) => isDns1123Label(l).length > 0) || domainLabels.length < 2;
  const badPath = path.split('.').some((l) => isDns1123Subdomain(l).length > 0);
  if (badDomain || badPath) errs.push(invalid(field, signerName, SIGNER_NAME_MESSAGE));
  if (Buffer.byteLength(signerName) > 571) errs.push(tooLong(field, signerName, 571));
  return errs;
}

/** Problems of status.certificate PEM text, or undefined when valid (empty is valid). */
export function certificateProblem(pem: Buffer): string | undefined {
  if (pem.length === 0) return undefined;
  const blocks = decodePemBlocks(pem.toString('latin1'));
  for (const b of blocks) {
    if (b.type !== 'CERTIFICATE')
      return `only CERTIFICATE PEM blocks are allowed, found ${JSON.stringify(b.type)}`;
    if (Object.keys(b.headers).length > 0) return 'no PEM block headers are permitted';
    try {
      new x509.X509Certificate(b.bytes);
    } catch (e) {
      return `x509: malformed certificate: ${userMessage(e)}`;
    }
  }
  if (blocks.length === 0) return 'must contain at least one CERTIFICATE PEM block';
  return undefined;
}

function validateMetadata(obj: Record<string, unknown>): FieldError[] {
  const errs: FieldError[] = [];
  const md = asRecord(obj['metadata']);
  const name = md['name'];
  const generateName = md['generateName'];
  // The reference validates CSR names only as URL path segments: node agents name their
  // bootstrap CSRs with unpadded base64url digests (upper case, '_' and '-').
  if (typeof name === 'string' && name !== '') {
    for (const m of isPathSegmentName(name)) errs.push(invalid('metadata.name', name, m));
  } else if (typeof generateName === 'string' && generateName !== '') {
    for (const m of isPathSegmentName(generateName))
      errs.push(invalid('metadata.generateName', generateName, m));
  } else {
    errs.push(required('metadata.name', 'name or generateName is required'));
  }
  const ns = md['namespace'];
  if (typeof ns === 'string' && ns !== '')
    errs.push(forbidden('metadata.namespace', 'not allowed on this type'));
  const labels = asRecord(md['labels']);
  for (const [k, v] of Object.entries(labels)) {
    for (const m of isQualifiedName(k)) errs.push(invalid('metadata.labels', k, m));
    if (typeof v !== 'string') errs.push(invalid(`metadata.labels[${k}]`, v, 'must be a string'));
    else for (const m of isValidLabelValue(v)) errs.push(invalid('metadata.labels', v, m));
  }
  const annotations = asRecord(md['annotations']);
  for (const k of Object.keys(annotations)) {
    for (const m of isQualifiedName(k.toLowerCase()))
      errs.push(invalid('metadata.annotations', k, m));
  }
  return errs;
}

function validateConditions(obj: Record<string, unknown>, opts: Options): FieldError[] {
  const errs: FieldError[] = [];
  const conds = conditionsOf(obj);
  const seen = new Set<string>();
  let approved = false;
  let denied = false;
  conds.forEach((c, i) => {
    const p = `status.conditions[${i}]`;
    const type = typeof c.type === 'string' ? c.type : '';
    const status = typeof c.status === 'string' ? c.status : '';
    if (type === '' && !opts.allowEmptyConditionType) errs.push(required(`${p}.type`, ''));
    if (status === '') errs.push(required(`${p}.status`, ''));
    if (type === 'Approved' || type === 'Denied' || type === 'Failed') {
      if (status !== '' && status !== 'True')
        errs.push(notSupported(`${p}.status`, status, ['True']));
    } else if (status !== '' && status !== 'True' && status !== 'False' && status !== 'Unknown') {
      errs.push(notSupported(`${p}.status`, status, ['False', 'True', 'Unknown']));
    }
    if (!opts.allowBothApprovedAndDenied) {
      if (type === 'Approved') {
        approved = true;
        if (denied)
          errs.push(
            invalid(`${p}.type`, type, 'Approved and Denied conditions are mutually exclusive'),
          );
      } else if (type === 'Denied') {
        denied = true;
        if (approved)
          errs.push(
            invalid(`${p}.type`, type, 'Approved and Denied conditions are mutually exclusive'),
          );
      }
    }
    if (!opts.allowDuplicateConditionTypes) {
      if (seen.has(type)) errs.push(duplicate(`${p}.type`, type));
      seen.add(type);
    }
  });
  return errs;
}

function bytesField(v: unknown): Buffer | undefined {
  if (v === undefined || v === null) return Buffer.alloc(0);
  if (typeof v !== 'string') return undefined;
  return decodeBase64Field(v);
}

/** spec.usages: at least one; known and distinct unless an existing object already breaks that. */
function validateUsages(spec: Record<string, unknown>, opts: Options, errs: FieldError[]): void {
  const usages = asArray(spec['usages']);
  if (usages.length === 0) errs.push(required('spec.usages', ''));
  if (!opts.allowUnknownUsages) {
    usages.forEach((u, i) => {
      if (typeof u !== 'string' || !KNOWN_USAGE_SET.has(u))
        errs.push(notSupported(`spec.usages[${i}]`, u, SORTED_USAGES));
    });
  }
  if (!opts.allowDuplicateUsages) {
    const seen = new Set<unknown>();
    usages.forEach((u, i) => {
      if (seen.has(u)) errs.push(duplicate(`spec.usages[${i}]`, u));
      seen.add(u);
    });
  }
}

function validateCsr(obj: Record<string, unknown>, opts: Options): FieldError[] {
  const errs = validateMetadata(obj);
  const spec = asRecord(obj['spec']);
  const request = bytesField(spec['request']);
  if (request === undefined) {
    errs.push(
      invalid(
        'spec.request',
        spec['request'] === undefined ? '' : '<request data>',
        'must be base64-encoded PEM data',
      ),
    );
  } else {
    try {
      parseCsrPem(request);
    } catch (e) {
      errs.push(invalid('spec.request', request, userMessage(e)));
    }
  }
  validateUsages(spec, opts, errs);
  const signerName = spec['signerName'];
  if (signerName === opts.legacySigner && !opts.allowLegacySignerName) {
    errs.push(
      invalid(
        'spec.signerName',
        signerName,
        'the legacy signerName is not allowed via this API version',
      ),
    );
  } else errs.push(...validateSignerName('spec.signerName', signerName));
  const exp = spec['expirationSeconds'];
  if (exp !== undefined && exp !== null) {
    if (typeof exp !== 'number' || !Number.isInteger(exp))
      errs.push(invalid('spec.expirationSeconds', exp, 'must be an integer'));
    else if (exp < 600) errs.push(invalid('spec.expirationSeconds', exp, EXPIRATION_MESSAGE));
  }
  errs.push(...validateConditions(obj, opts));
  if (!opts.allowArbitraryCertificate) {
    const cert = bytesField(asRecord(obj['status'])['certificate']);
    const problem =
      cert === undefined ? 'must be base64-encoded PEM data' : certificateProblem(cert);
    if (problem !== undefined)
      errs.push(invalid('status.certificate', '<certificate data>', problem));
  }
  return errs;
}

/**
 * Loosens the rules an existing object already breaks, so it stays updatable (the reference's
 * getValidationOptions).
 */
function optionsFor(
  newObj: Record<string, unknown>,
  oldObj: Record<string, unknown>,
  legacySigner: string,
): Options {
  const opts = { ...STRICT, legacySigner };
  const oldConds = conditionsOf(oldObj);
  const types = oldConds.map((c) => c.type);
  opts.allowDuplicateConditionTypes = new Set(types).size !== types.length;
  opts.allowEmptyConditionType = types.some((t) => t === '' || t === undefined);
  opts.allowBothApprovedAndDenied = types.includes('Approved') && types.includes('Denied');
  const oldUsages = asArray(asRecord(oldObj['spec'])['usages']);
  opts.allowUnknownUsages = oldUsages.some((u) => typeof u !== 'string' || !KNOWN_USAGE_SET.has(u));
  opts.allowDuplicateUsages = new Set(oldUsages).size !== oldUsages.length;
  const oldCertText = asRecord(oldObj['status'])['certificate'] ?? '';
  const newCertText = asRecord(newObj['status'])['certificate'] ?? '';
  const oldCert = bytesField(oldCertText);
  // An update that leaves the certificate alone is not held to today's certificate rules.
  opts.allowArbitraryCertificate =
    newCertText === oldCertText ||
    oldCert === undefined ||
    certificateProblem(oldCert) !== undefined;
  opts.allowLegacySignerName = asRecord(oldObj['spec'])['signerName'] === legacySigner;
  return opts;
}

function conditionsOfType(obj: Record<string, unknown>, type: string): Condition[] {
  return conditionsOf(obj).filter((c) => c.type === type);
}

function validateMetaUpdate(
  newObj: Record<string, unknown>,
  oldObj: Record<string, unknown>,
): FieldError[] {
  const errs: FieldError[] = [];
  const nm = asRecord(newObj['metadata']);
  const om = asRecord(oldObj['metadata']);
  // uid and creationTimestamp are the registry's (its BeforeUpdate fills and checks them).
  for (const f of ['name', 'namespace'] as const) {
    const nv = nm[f] ?? '';
    const ov = om[f] ?? '';
    if (nv !== ov) errs.push(invalid(`metadata.${f}`, nm[f] ?? '', 'field is immutable'));
  }
  return errs;
}

function validateUpdate(
  newObj: Record<string, unknown>,
  oldObj: Record<string, unknown>,
  opts: Options,
): FieldError[] {
  const errs = validateCsr(newObj, opts);
  if (!isDeepEqual(newObj['spec'], oldObj['spec']))
    errs.push(forbidden('spec', 'field is immutable'));
  for (const t of ['Approved', 'Denied', 'Failed']) {
    if (conditionsOfType(newObj, t).length < conditionsOfType(oldObj, t).length) {
      errs.push(
        forbidden(
          'status.conditions',
          `updates may not remove a condition of type ${JSON.stringify(t)}`,
        ),
      );
    }
  }
  if (!opts.allowSettingApprovalConditions) {
    for (const t of ['Approved', 'Denied']) {
      const o = conditionsOfType(oldObj, t);
      const n = conditionsOfType(newObj, t);
      if (n.length > o.length)
        errs.push(
          forbidden(
            'status.conditions',
            `updates may not add a condition of type ${JSON.stringify(t)}`,
          ),
        );
      else if (n.length === o.length && !isDeepEqual(n, o)) {
        errs.push(
          forbidden(
            'status.conditions',
            `updates may not modify a condition of type ${JSON.stringify(t)}`,
          ),
        );
      }
    }
  }
  const newCert = asRecord(newObj['status'])['certificate'] ?? '';
  const oldCert = asRecord(oldObj['status'])['certificate'] ?? '';
  if (newCert !== oldCert) {
    if (!opts.allowSettingCertificate)
      errs.push(forbidden('status.certificate', 'updates may not set certificate content'));
    else if (oldCert !== '')
      errs.push(
        forbidden('status.certificate', 'updates may not modify existing certificate content'),
      );
  }
  errs.push(...validateMetaUpdate(newObj, oldObj));
  return errs;
}

export function validateCsrCreate(
  obj: Record<string, unknown>,
  legacySigner = LEGACY_UNKNOWN_SIGNER,
): FieldError[] {
  return validateCsr(obj, { ...STRICT, legacySigner });
}

export function validateCsrUpdate(
  newObj: Record<string, unknown>,
  oldObj: Record<string, unknown>,
  legacySigner = LEGACY_UNKNOWN_SIGNER,
): FieldError[] {
  return validateUpdate(newObj, oldObj, optionsFor(newObj, oldObj, legacySigner));
}

export function validateCsrStatusUpdate(
  newObj: Record<string, unknown>,
  oldObj: Record<string, unknown>,
  legacySigner = LEGACY_UNKNOWN_SIGNER,
): FieldError[] {
  return validateUpdate(newObj, oldObj, {
    ...optionsFor(newObj, oldObj, legacySigner),
    allowSettingCertificate: true,
  });
}

export function validateCsrApprovalUpdate(
  newObj: Record<string, unknown>,
  oldObj: Record<string, unknown>,
  legacySigner = LEGACY_UNKNOWN_SIGNER,
): FieldError[] {
  return validateUpdate(newObj, oldObj, {
    ...optionsFor(newObj, oldObj, legacySigner),
    allowSettingApprovalConditions: true,
  });
}

// The write mutators live in strategy.ts; re-exported here so callers can import the pair together.
export {
  prepareCsrForCreate,
  prepareCsrForUpdate,
  prepareCsrForStatusUpdate,
  prepareCsrForApprovalUpdate,
} from './strategy.js';
