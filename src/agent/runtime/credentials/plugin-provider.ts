// One configured credential provider: images it matches (matchImages), answers cached by the
// response's cacheKeyType (Image, Registry or Global) for its cacheDuration (or the provider's
// defaultCacheDuration; 0 caches nothing), one plugin run in flight per image - as the
// reference's pluginProvider.provide.
import type { Clock } from '../../../common/util/clock.js';
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
const PURGE_INTERVAL_MS = 15 * 60_000;

export class PluginProvider {
  readonly name: string;
  private readonly opts: PluginProviderOptions;
  private readonly cache = new Map<string, { credentials: DockerConfig; expiresAtMs: number }>();
  private readonly inFlight = new Map<string, Promise<PluginResponse>>();
  private lastPurgeMs: number;

  constructor(opts: PluginProviderOptions) {
    this.opts = opts;
    this.name = opts.provider.name;
    this.lastPurgeMs = opts.clock.nowMs();
  }

  isImageAllowed(image: string): boolean {
    return this.opts.provider.matchImages.some((m) => urlsMatch(m, image));
  }

  private cached(key: string, now: number): DockerConfig | undefined {
    const e = this.cache.get(key);
    if (e === undefined) return undefined;
    if (now > e.expiresAtMs) {
      this.cache.delete(key);
      return undefined;
    }
    return e.credentials;
  }

  private purge(now: number): void {
    if (now <= this.lastPurgeMs + PURGE_INTERVAL_MS) return;
    for (const [k, e] of this.cache) if (now > e.expiresAtMs) this.cache.delete(k);
    this.lastPurgeMs = now;
  }

  private run(image: string): Promise<PluginResponse> {
    let p = this.inFlight.get(image);
    if (p === undefined) {
      const o = this.opts;
      p = (o.exec ?? ((img: string) => execPlugin({ provider: o.provider, binDir: o.binDir, clock: o.clock }, img)))(image).finally(() => this.inFlight.delete(image));
      this.inFlight.set(image, p);
    }
    return p;
  }

  /** The credentials for a normalized repository (empty when the plugin does not apply or fails). */
  async provide(image: string): Promise<DockerConfig> {
    if (!this.isImageAllowed(image)) return {};
    const now = this.opts.clock.nowMs();
    this.purge(now);
    const hit = this.cached(image, now) ?? this.cached(registryOf(image), now) ?? this.cached(GLOBAL_KEY, now);
    if (hit !== undefined) return hit;
    let res: PluginResponse;
    try {
      res = await this.run(image);
    } catch (err) {
      this.opts.logger.warn({ provider: this.name, image, err: err instanceof Error ? err.message : String(err) }, 'Failed getting credential from external registry credential provider');
      return {};
    }
    const key = res.cacheKeyType === 'Image' ? image : res.cacheKeyType === 'Registry' ? registryOf(image) : res.cacheKeyType === 'Global' ? GLOBAL_KEY : undefined;
    if (key === undefined) {
      this.opts.logger.warn({ provider: this.name, cacheKeyType: res.cacheKeyType }, 'credential provider plugin did not return a valid cacheKeyType');
      return {};
    }
    const duration = res.cacheDurationMs ?? this.opts.provider.defaultCacheDurationMs;
    if (duration > 0) this.cache.set(key, { credentials: res.auth, expiresAtMs: this.opts.clock.nowMs() + duration });
    return res.auth;
  }
}
