// The API client: import from here.
export {
  RestClient,
  describeIdentity,
  describeConnectionError,
  type RestClientOptions,
  type RequestOptions,
  type RequestPriority,
  type HttpMethod,
} from './rest-client.js';
export {
  ResourceClient,
  type ResourceClientOptions,
  type CallOptions,
  type ListOptions,
  type WriteOptions,
  type DeleteOptions,
  type WatchOptions,
  type PatchType,
} from './resource-client.js';
export {
  CsrClient,
  csrCondition,
  issuedCertificate,
  type CertificateSigningRequest,
  type CsrCondition,
  type CsrClientOptions,
} from './csr-client.js';
export {
  createNodeClient,
  createNodeHeartbeatClient,
  createPodClient,
  createEventClient,
  type NodeClient,
  type PodClient,
  type EventClient,
  type TypedClientOptions,
} from './typed-clients.js';
export { apiLimiter, unlimited, type RateLimiter } from './rate-limiter.js';
export { TokenBucket } from '../../common/util/token-bucket.js';
export { defaultRetryPolicy, retryDelayMs, parseRetryAfter, type RetryPolicy } from './backoff.js';
export { readJsonLines, resilientWatch } from './watch.js';
export type { ApiObject, ObjectMeta, ObjectList, ListMeta, Status, WatchEvent } from './types.js';
export {
  ApiObjectSchema,
  ObjectMetaSchema,
  StatusSchema,
  decodeAnswer,
  listSchema,
} from './api-schemas.js';
