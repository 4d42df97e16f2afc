// Certificates: keys, CSRs, the file store, bootstrap, rotation and the serving certificate.
export {
  startCertificates,
  defaultNodeName,
  SERVER_PREFIX,
  type StartCertificatesOptions,
  type CertificateSetup,
} from './setup.js';
export {
  bootstrapClientCertificate,
  isPlatconfigValid,
  waitForHealthz,
  CLIENT_PREFIX,
  TMP_KEY_FILE,
  type BootstrapOptions,
  type BootstrapResult,
} from './bootstrap.js';
export { CertificateManager, type CertificateManagerOptions } from './manager.js';
export {
  FileServingSource,
  ManagedServingSource,
  StaticServingSource,
  NO_SERVING_CERTIFICATE,
  type ServingCertificateSource,
  type ServingCertificate,
} from './serving.js';
export {
  FileCertificateStore,
  ensureWritableDir,
  pairFromPem,
  type CertificatePair,
  type CertificateStore,
} from './store.js';
export { registerCertificateMetrics, type TtlSource } from './metrics.js';
export { loadOrCreateSelfSigned, issueCertificate } from './self-signed.js';
export { generatePrivateKey, parsePrivateKey, publicKeyDer, type PrivateKey } from './keys.js';
export { createCsrPem, bootstrapCsrName, servingSans, type CsrTemplate } from './csr.js';
export { parseCertificate, splitCertificates, type CertificateInfo } from './cert-info.js';
export { requestCertificate, type RequestCertificateOptions } from './request.js';
