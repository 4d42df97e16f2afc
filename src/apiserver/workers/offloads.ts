// What the worker threads take over, each as the interface its consumer owns: request bodies'
// decoding (handlers), local keys' encryption (encryption/registry), list items' serialisation
// (registry/served-cache) and live changes' protobuf frames (watch/items). Without threads every
// member is undefined and each consumer does its work on the main thread.

import type { BodyDecoder } from '../handlers/decode-object.js';
import type { LocalProviderFactory } from '../encryption/registry.js';
import type { ServedMaker } from '../registry/served-cache.js';
import type { FrameMaker } from '../watch/items.js';
import { pooledProvider } from './cipher-job.js';
import { decodeOnPool } from './decode-job.js';
import { frameOnPool } from './frame-job.js';
import { servedOnPool } from './served-job.js';
import type { ThreadPool } from './thread-pool.js';

export interface Offloads {
  readonly bodyDecoder: BodyDecoder | undefined;
  readonly localProviders: LocalProviderFactory | undefined;
  readonly servedMaker: ServedMaker | undefined;
  readonly frameMaker: FrameMaker | undefined;
}

export function offloadsOf(pool: ThreadPool | undefined): Offloads {
  if (pool === undefined)
    return {
      bodyDecoder: undefined,
      localProviders: undefined,
      servedMaker: undefined,
      frameMaker: undefined,
    };
  return {
    bodyDecoder: (o) => decodeOnPool(pool, o),
    localProviders: (kind, name, key) => pooledProvider(pool, kind, name, key),
    servedMaker: (format, kind, apiVersion, rows) =>
      servedOnPool(pool, format, kind, apiVersion, rows),
    frameMaker: (type, obj, kind, apiVersion) => frameOnPool(pool, type, obj, kind, apiVersion),
  };
}
