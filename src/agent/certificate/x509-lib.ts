// @peculiar/x509, imported on first use (csr.ts): reflect-metadata must be evaluated before it,
// which static imports in this order guarantee. Static, so a bundler keeps the CommonJS
// package's named exports.
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';

export { x509 };
