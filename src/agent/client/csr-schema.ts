// The CertificateSigningRequest answer as a zod schema: the spec and status fields the agent
// reads, the rest passed through. Imported on first need (a CSR answer the guard in
// csr-shape.ts does not take), so the bootstrap does not load zod.
import { z } from 'zod';
import { ObjectMetaSchema } from './api-schemas.js';
import type { CertificateSigningRequest } from './csr-types.js';

const optionalString = z.string().exactOptional();

export const CertificateSigningRequestSchema: z.ZodType<CertificateSigningRequest> = z.looseObject({
  apiVersion: optionalString,
  kind: optionalString,
  metadata: ObjectMetaSchema.exactOptional(),
  spec: z.looseObject({
    request: z.string(),
    signerName: z.string(),
    expirationSeconds: z.number().exactOptional(),
    usages: z.array(z.string()).exactOptional(),
    username: optionalString,
    uid: optionalString,
    groups: z.array(z.string()).exactOptional(),
    extra: z.record(z.string(), z.array(z.string())).exactOptional(),
  }),
  status: z
    .looseObject({
      certificate: optionalString,
      conditions: z
        .array(
          z.looseObject({
            type: z.string(),
            status: z.enum(['True', 'False', 'Unknown']),
            reason: optionalString,
            message: optionalString,
            lastUpdateTime: optionalString,
            lastTransitionTime: optionalString,
          }),
        )
        .exactOptional(),
    })
    .exactOptional(),
});
