// asn1js, imported on first use (csr.ts, request.ts): a static import here, so a bundler keeps the
// CommonJS package's named exports (a dynamic import of a CommonJS package in a split bundle
// yields only its default export).
import * as asn1js from 'asn1js';

export { asn1js };
