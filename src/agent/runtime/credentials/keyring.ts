// The credential providers of --image-credential-provider-config and -bin-dir, asked for every
// image the Docker runtime pulls: each provider whose matchImages match gives a DockerConfig; its
// entries whose key matches the image (most specific key first) become the credentials the pull
// tries in turn, as the reference's keyring Lookup. No credentials: an anonymous pull.
import { access, constants, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Clock } from '../../../common/util/clock.js';
import type { Logger } from '../../../common/log/types.js';
import { ConfigError } from '../../../common/util/errors.js';
import { registryOf, repoToPull, urlsMatch } from './match-image.js';
import { PluginProvider, type DockerConfig } from './plugin-provider.js';
import { loadCredentialProviderConfig } from './provider-config.js';

export interface RegistryAuth {
  username: string;
  password: string;
  serveraddress: string;
}

/** What the Docker runtime asks (owned by its consumer's shape: image in, auths out). */
export interface ImageCredentialSource {
  lookup(image: string): Promise<RegistryAuth[]>;
}

/** A response key as the reference's BasicDockerKeyring.Add stores it: no scheme, no trailing /. */
function normalizeKey(key: string): string {
  const k = key.replace(/^https?:\/\//, '');
  return k.endsWith('/') ? k.slice(0, -1) : k;
}

function serverAddress(registry: string): string {
  return registry === 'docker.io' ? 'https://index.docker.io/v1/' : registry;
}

export class CredentialProviders implements ImageCredentialSource {
  constructor(private readonly providers: readonly PluginProvider[]) {}

  async lookup(image: string): Promise<RegistryAuth[]> {
    const repo = repoToPull(image);
    const configs: DockerConfig[] = [];
    for (const p of this.providers) configs.push(await p.provide(repo));
    const entries = configs.flatMap((c) =>
      Object.entries(c).map(([k, v]) => ({ key: normalizeKey(k), ...v })),
    );
    entries.sort((a, b) => (a.key < b.key ? 1 : a.key > b.key ? -1 : 0));
    return entries
      .filter((e) => urlsMatch(e.key, repo))
      .map((e) => ({
        username: e.username,
        password: e.password,
        serveraddress: serverAddress(registryOf(repo)),
      }));
  }
}

export interface CredentialProvidersOptions {
  configPath: string;
  binDir: string;
  clock: Clock;
  logger: Logger;
}

/** Loads, validates and checks the plugins at start, as RegisterCredentialProviderPlugins. */
export async function loadCredentialProviders(
  o: CredentialProvidersOptions,
): Promise<CredentialProviders> {
  const flag = { flag: '--image-credential-provider-bin-dir' };
  const dir = o.binDir === '' ? undefined : await stat(o.binDir).catch(() => undefined);
  if (!dir?.isDirectory())
    throw new ConfigError(`plugin binary directory ${o.binDir} did not exist`, flag);
  const config = await loadCredentialProviderConfig(o.configPath);
  const providers: PluginProvider[] = [];
  for (const p of config) {
    const bin = join(o.binDir, p.name);
    const st = await stat(bin).catch(() => undefined);
    if (st === undefined)
      throw new ConfigError(`plugin binary executable ${bin} did not exist`, flag);
    // as Go's exec.LookPath: a directory or a file without an execute bit is refused
    const ok =
      st.isFile() &&
      (await access(bin, constants.X_OK).then(
        () => true,
        () => false,
      ));
    if (!ok)
      throw new ConfigError(`error inspecting binary executable ${bin}: permission denied`, flag);
    providers.push(
      new PluginProvider({ provider: p, binDir: o.binDir, clock: o.clock, logger: o.logger }),
    );
  }
  o.logger.info(
    { providers: config.map((p) => p.name) },
    'image credential provider plugins registered',
  );
  return new CredentialProviders(providers);
}

/**
 * The credential source the flags ask for: none without --image-credential-provider-config (the
 * reference ignores the bin dir then), none on process:// (which pulls no images: said once).
 */
export async function credentialsFromFlags(
  o: CredentialProvidersOptions & { runtimeType: 'docker' | 'process' },
): Promise<ImageCredentialSource | undefined> {
  if (o.configPath === '') return undefined;
  if (o.runtimeType === 'process') {
    o.logger.warn(
      { option: '--image-credential-provider-config' },
      '--image-credential-provider-config cannot take effect on this host: the ' +
        'process:// runtime pulls no images; no plugin is run',
    );
    return undefined;
  }
  return loadCredentialProviders(o);
}
