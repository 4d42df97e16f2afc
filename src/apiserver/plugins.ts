// The seam for parts configured from files (authentication/authorization/admission/encryption/
// tracing configuration, config/): their flags are EXTRA_FLAGS; loadStorageEncryption builds the
// store's transformers and loadPlugins, given the authorizers built over the store, the rest.
// The build function (start/build.ts) takes whatever lists come back; nothing else changes.

import type { Names } from '../common/names.js';
import type { AdmissionPlugin, Authenticator, Authorizer, RequestTracer } from './interfaces.js';
import type { ApiServerFlags, ExtraFlag } from './flags.js';
import type { Logger } from '../common/log/types.js';
import type { Clock } from '../common/util/clock.js';
import type { ModeAuthorizers } from './authz/modes.js';
import type { AuthorizerChain } from './authz/chain.js';
import {
  APISERVER_CONFIG_FLAGS,
  loadApiserverConfigFiles,
  loadEncryptionConfig,
  type ApiserverConfigFileOptions,
  type StorageEncryption,
} from './config/build.js';
import { POD_SUPPORT_FLAGS } from './pod-support-flags.js';
import type { LocalProviderFactory } from './encryption/registry.js';

export interface ApiServerPlugins {
  /** Tried after x509 client certificates and --token-auth-file. */
  readonly authenticators?: readonly Authenticator[];
  /** When given, these replace the --authorization-mode chain (system:masters stays allowed). */
  readonly authorizers?: readonly Authorizer[];
  /** The modes (or AuthorizationConfiguration types) of the chain, in order. */
  readonly authorizerModes?: readonly string[];
  readonly admission?: readonly AdmissionPlugin[];
  readonly tracer?: RequestTracer;
  /**
   * The TLS front process's script (front/tls-front.ts as built): main.ts names the shipped one.
   * Without it, --tls-processes must be 0.
   */
  readonly tlsFrontEntry?: string;
  /**
   * The worker thread's script (workers/thread-main.ts as built): main.ts names the shipped one.
   * Without it, --worker-threads must be 0.
   */
  readonly workerThreadEntry?: string;
}

/** What the configuration files build: the plug-ins, the server's authorizer chain, a close. */
export interface LoadedPlugins extends ApiServerPlugins {
  readonly chain: AuthorizerChain;
  /** Called at shutdown (stops file watchers, closes connections). */
  close(): Promise<void>;
}

/** Flags of the configuration-file part (--validate-config runs as its own command, see main). */
export const EXTRA_FLAGS: readonly ExtraFlag[] = [...APISERVER_CONFIG_FLAGS, ...POD_SUPPORT_FLAGS];

/** --encryption-provider-config: the store's transformers, loaded before the store. */
export function loadStorageEncryption(
  flags: ApiServerFlags,
  names: Names,
  logger: Logger,
  clock: Clock,
  localProviders?: LocalProviderFactory,
): Promise<StorageEncryption> {
  return loadEncryptionConfig({
    encryptionProviderConfig: flags.extra['encryptionProviderConfig'],
    platformDomain: names.groupDomain,
    anonymousAuthFlagSet: flags.anonymousAuthSet,
    clock,
    logger,
    localProviders,
  });
}

/** What loadPlugins is given: the parts built over the store before it. */
export interface PluginParts {
  readonly modes: ModeAuthorizers;
  /** When given, the chain asks these instead of the configured authorizers. */
  readonly replaceAuthorizers?: readonly Authorizer[] | undefined;
  readonly nodes: ApiserverConfigFileOptions['nodes'];
}

export async function loadPlugins(
  flags: ApiServerFlags,
  names: Names,
  parts: PluginParts,
  logger: Logger,
  clock: Clock,
): Promise<LoadedPlugins> {
  const x = flags.extra;
  const files = await loadApiserverConfigFiles({
    authenticationConfig: x['authenticationConfig'],
    authorizationConfig: x['authorizationConfig'],
    admissionControlConfigFile: x['admissionControlConfigFile'],
    enableAdmissionPlugins: x['enableAdmissionPlugins'],
    disableAdmissionPlugins: x['disableAdmissionPlugins'],
    defaultNotReadyTolerationSeconds: x['defaultNotReadyTolerationSeconds'],
    defaultUnreachableTolerationSeconds: x['defaultUnreachableTolerationSeconds'],
    tracingConfigFile: x['tracingConfigFile'],
    authorizationWebhookConfigFile: x['authorizationWebhookConfigFile'],
    authorizationWebhookVersion: x['authorizationWebhookVersion'],
    authorizationWebhookCacheAuthorizedTtl: x['authorizationWebhookCacheAuthorizedTtl'],
    authorizationWebhookCacheUnauthorizedTtl: x['authorizationWebhookCacheUnauthorizedTtl'],
    platformDomain: names.groupDomain,
    names,
    anonymousAuthFlagSet: flags.anonymousAuthSet,
    authorizationModes: flags.authorizationMode,
    modes: parts.modes,
    replaceAuthorizers: parts.replaceAuthorizers,
    clock,
    logger,
    nodes: parts.nodes,
  });
  return {
    authenticators: files.authenticators,
    authorizers: files.authorizers,
    authorizerModes: files.authorizerModes,
    chain: files.chain,
    admission: files.admission,
    ...(files.tracer !== undefined ? { tracer: files.tracer } : {}),
    close: () => files.close(),
  };
}
