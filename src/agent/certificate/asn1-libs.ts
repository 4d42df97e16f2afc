// The ASN.1 schema, X.509 and PKCS#10 structures in one module, imported on first use (csr.ts):
// static imports here, so a bundler keeps these CommonJS packages' named exports (a dynamic
// import of a CommonJS package in a split bundle yields only its default export).
export * as schema from '@peculiar/asn1-schema';
export * as x509 from '@peculiar/asn1-x509';
export * as csr from '@peculiar/asn1-csr';
