// ServiceAccount, Service, Binding (core/v1) and TokenRequest (authentication/v1): their fields
// are the reference's (core-generated.ts, generated from its /openapi/v3).
import {
  AuthnTokenRequestSpec,
  AuthnTokenRequestStatus,
  EndpointSubset,
  LocalObjectReference,
  ServiceSpec,
  ServiceStatus,
} from './core.generated.js';
import { objectReference, topLevel } from './meta.js';
import { atomicList, bool, keyed, type Schema } from './types.js';

export const serviceAccount: Schema = topLevel('v1.ServiceAccount', {
  secrets: keyed(objectReference, 'name'),
  imagePullSecrets: atomicList(LocalObjectReference),
  automountServiceAccountToken: bool,
});

export const service: Schema = topLevel('v1.Service', { spec: ServiceSpec, status: ServiceStatus });

export const binding: Schema = topLevel(
  'v1.Binding',
  { target: objectReference },
  { required: ['target'] },
);

export const tokenRequest: Schema = topLevel(
  'v1.TokenRequest',
  { spec: AuthnTokenRequestSpec, status: AuthnTokenRequestStatus },
  { pkg: 'io.k8s.api.authentication.v1', required: ['spec'] },
);

export const endpoints: Schema = topLevel('v1.Endpoints', { subsets: atomicList(EndpointSubset) });
