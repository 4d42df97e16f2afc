// CertificateSigningRequest semantics: validation, write strategies, approver and signer helpers,
// and the CA/serving/client certificates plat-apiserver makes for itself.
export * from './validation.js';
export * from './approver.js';
export * from './signer.js';
export * from './ca.js';
export { parseCsrPem, parseCsrDer, CsrParseError, type ParsedCsr } from './request.js';
export { decodeBase64Field } from './pem.js';
export { decodePemBlocks, encodePem, type PemBlock } from '../../common/util/pem.js';
export { fillConditionTimes } from './strategy.js';
export { importSigningKey, generateEcKeyPair, exportPkcs8Pem, type SigningKey } from './keys.js';
