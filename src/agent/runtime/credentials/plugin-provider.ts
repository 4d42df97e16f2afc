// One configured credential provider: images it matches (matchImages), answers cached by the
// response's cacheKeyType (Image, Registry or Global) for its cacheDuration (or the provider's
// defaultCacheDuration; 0 caches nothing), one plugin run in flight per image - as the
// reference's pluginProvider.provide. The cache is the common lru-cache on the Clock (bounded;
// an expired answer is dropped when it is next looked at).
import type { LRUCache } from 'lru-cache';
import type { Clock } from '../../../common/util/clock.js';
import { clockLru } from '../../../common/util/ttl-cache.js';
import type { Logger } from '../../../common/log/types.js';
import { execPlugin, type PluginResponse } from './exec-plugin.js';
import { registryOf, urlsMatch } from './match-image.js';
import type { CredentialProvider } from './provider-config.js';

export type DockerConfig = Record<string, { username: string; password: string }>;

export interface PluginProviderOptions {
  provider: CredentialProvider;
  binDir: string;
  clock: Clock;
  logger: Logger;
  /** The plugin run; default execPlugin (tests count runs through it). */
  exec?: (image: string) => Promise<PluginResponse>;
}

const GLOBAL_KEY = 'global';
/** Most cached answers kept (least recently used go first). */
const CACHE_SIZE = 4096;

export class PluginProvider {
  readonly name: string;
  private readonly opts: PluginProviderOptions;
  private readonly cache: LRUCache<string, DockerConfig>;
  private readonly inFlight = new Map<string, Promise<PluginResponse>>();

  constructor(opts: PluginProviderOptions) {
    this.opts = opts;
    this.name = opts.provider.name;
    this.cache = clockLru<DockerConfig>(opts.clock, CACHE_SIZE);
  }

  isImageAllowed(image: string): boolean {
    return this.opts.provider.matchImages.some((m) => urlsMatch(m, image));
  }

  private run(image: string): Promise<PluginResponse> {
    let p = this.inFlight.get(image);
    if (p === undefined) {
      const o = this.opts;
      p = (
        o.exec ??
        ((img: string) =>
          execPlugin({ provider: o.provider, binDir: o.binDir, clock: o.clock }, img))
      )(image).finally(() => this.inFlight.delete(image));
      this.inFlight.set(image, p);
    }
    return p;
  }

  /**
   * The credentials for a normalized repository (empty when the plugin does not apply or fails).
   */
  async provide(image: string): Promise<DockerConfig> {
    if (!this.isImageAllowed(image)) return {};
    const hit =
      this.cache.get(image) ?? this.cache.get(registryOf(image)) ?? this.cache.get(GLOBAL_KEY);
    if (hit !== undefined) return hit;
    let res: PluginResponse;
    try {
      res = await this.run(image);
    } catch (err) {
      this.opts.logger.warn(
        { provider: this.name, image, err: err instanceof Error ? err.message : String(err) },
        'Failed getting credential from external registry credential provider',
      );
      return {};
    }
    const key =
      res.cacheKeyType === 'Image'
        ? image
        : res.cacheKeyType === 'Registry'
          ? registryOf(image)
          : res.cacheKeyType === 'Global'
            ? GLOBAL_KEY
            : undefined;
    if (key === undefined) {
      this.opts.logger.warn(
        { provider: this.name, cacheKeyType: res.cacheKeyType },
        'credential provider plugin did not return a valid cacheKeyType',
      );
      return {};
    }
    const duration = res.cacheDurationMs ?? this.opts.provider.defaultCacheDurationMs;
    if (duration > 0) this.cache.set(key, res.auth, { ttl: duration });
    return res.auth;
  }
}
