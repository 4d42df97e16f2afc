// --runtime-request-timeout for the process:// runtime (Docker's requests carry it already, as
// dockerode's timeout): every runtime call answers within the timeout, as the reference's remote
// runtime client bounds each CRI call with a context deadline. Stops get the grace period on top,
// exec its own timeout on top; streams (execStream) and event subscriptions are not bounded. A
// call over its deadline is a RuntimeError naming the call and the flag; the work may still finish
// behind it, as a CRI call does after its caller's deadline.
import type { Clock } from '../../common/util/clock.js';
import { RuntimeError } from '../../common/util/errors.js';
import type { ContainerRuntime, ImageService } from './types.js';

/** Calls bounded by the timeout alone. */
const PLAIN = new Set([
  'version',
  'runPodSandbox',
  'removePodSandbox',
  'createContainer',
  'startContainer',
  'removeContainer',
  'listContainers',
  'logs',
  'stats',
  'listImages',
  'removeImage',
  'imageFsInfo',
]);
/** Calls whose second argument is a grace period in seconds, added to the timeout. */
const WITH_GRACE = new Set(['stopContainer', 'stopPodSandbox']);

export interface RequestTimeoutOptions {
  timeoutMs: number;
  clock: Clock;
}

async function bounded<T>(what: string, ms: number, clock: Clock, work: Promise<T>): Promise<T> {
  const stop = new AbortController();
  const deadline = clock.sleep(ms, stop.signal).then(
    () =>
      Promise.reject(
        new RuntimeError(
          `${what}: context deadline exceeded (--runtime-request-timeout ${ms / 1000}s)`,
        ),
      ),
    () => new Promise<never>(() => undefined),
  );
  try {
    return await Promise.race([work, deadline]);
  } finally {
    stop.abort();
  }
}

function limitOf(name: string, args: readonly unknown[], timeoutMs: number): number | undefined {
  if (PLAIN.has(name)) return timeoutMs;
  if (WITH_GRACE.has(name)) return timeoutMs + Math.max(0, Number(args[1]) || 0) * 1000;
  if (name === 'exec') return timeoutMs + Math.max(0, Number(args[2]) || 0);
  return undefined;
}

/** The runtime with each call bounded; everything else passes through unchanged. */
export function withRequestTimeout<R extends ContainerRuntime & ImageService>(
  runtime: R,
  o: RequestTimeoutOptions,
): R {
  if (!(o.timeoutMs > 0)) return runtime;
  return new Proxy(runtime, {
    get(target, prop, receiver) {
      const value: unknown = Reflect.get(target, prop, receiver);
      if (typeof prop !== 'string' || typeof value !== 'function') return value;
      const fn = value as (...a: unknown[]) => unknown;
      return (...args: unknown[]) => {
        const result = fn.apply(target, args);
        const limit = limitOf(prop, args, o.timeoutMs);
        return limit !== undefined && result instanceof Promise
          ? bounded(`${runtime.type} runtime ${prop}`, limit, o.clock, result)
          : result;
      };
    },
  });
}
