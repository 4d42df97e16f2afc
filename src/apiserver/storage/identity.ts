// The default TransformerRegistry: values are stored as they are (no encryption at rest).

import type { TransformerRegistry, ValueTransformer } from '../interfaces.js';

export const identityTransformer: ValueTransformer = {
  toStorage: (plaintext) => Promise.resolve(plaintext),
  fromStorage: (stored) => Promise.resolve({ data: stored, stale: false }),
};

export function identityTransformers(): TransformerRegistry {
  return { transformerFor: () => identityTransformer };
}
