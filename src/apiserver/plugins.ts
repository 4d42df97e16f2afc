// The seam for parts configured from files (authentication/authorization/admission/encryption/
// tracing configuration, src/apiserverconfig): their flags are EXTRA_FLAGS and loadPlugins builds
// their plug-ins. The server core takes whatever lists come back; nothing else changes.

import { namesFor } from '../common/names.js';
import type {
  AdmissionPlugin,
  Authenticator,
  Authorizer,
  RequestTracer,
  TransformerRegistry,
} from './interfaces.js';
import type { ApiServerFlags, ExtraFlag } from './flags.js';
import type { Logger } from '../common/log/types.js';
import type { Clock } from '../common/util/clock.js';
import type { LateModes } from './authz/modes.js';
import {
  APISERVER_CONFIG_FLAGS,
  loadApiserverConfigFiles,
  type ApiserverConfigFileOptions,
} from './config/build.js';
import { POD_SUPPORT_FLAGS } from './pod-support-flags.js';

export interface ApiServerPlugins {
  /** Tried after x509 client certificates and --token-auth-file. */
  readonly authenticators?: readonly Authenticator[];
  /** When given, these replace the --authorization-mode chain (system:masters stays allowed). */
  readonly authorizers?: readonly Authorizer[];
  /** The modes (or AuthorizationConfiguration types) of the chain, in order. */
  readonly authorizerModes?: readonly string[];
  readonly admission?: readonly AdmissionPlugin[];
  readonly transformers?: TransformerRegistry;
  readonly tracer?: RequestTracer;
  /** Called at shutdown (stops file watchers, closes connections). */
  readonly close?: () => Promise<void>;
}

/** Flags of the configuration-file part (--validate-config runs as its own command, see main). */
export const EXTRA_FLAGS: readonly ExtraFlag[] = [...APISERVER_CONFIG_FLAGS, ...POD_SUPPORT_FLAGS];

export async function loadPlugins(
  flags: ApiServerFlags,
  logger: Logger,
  clock: Clock,
  lateModes?: LateModes,
  nodes?: ApiserverConfigFileOptions['nodes'],
): Promise<ApiServerPlugins> {
  const x = flags.extra;
  const files = await loadApiserverConfigFiles({
    authenticationConfig: x['authenticationConfig'],
    authorizationConfig: x['authorizationConfig'],
    admissionControlConfigFile: x['admissionControlConfigFile'],
    enableAdmissionPlugins: x['enableAdmissionPlugins'],
    disableAdmissionPlugins: x['disableAdmissionPlugins'],
    encryptionProviderConfig: x['encryptionProviderConfig'],
    tracingConfigFile: x['tracingConfigFile'],
    authorizationWebhookConfigFile: x['authorizationWebhookConfigFile'],
    authorizationWebhookVersion: x['authorizationWebhookVersion'],
    authorizationWebhookCacheAuthorizedTtl: x['authorizationWebhookCacheAuthorizedTtl'],
    authorizationWebhookCacheUnauthorizedTtl: x['authorizationWebhookCacheUnauthorizedTtl'],
    platformDomain: namesFor(flags.platformProfile, flags.platformDomain).groupDomain,
    names: namesFor(flags.platformProfile, flags.platformDomain),
    anonymousAuthFlagSet: flags.anonymousAuthSet,
    authorizationModes: flags.authorizationMode,
    ...(lateModes !== undefined ? { lateModes } : {}),
    clock,
    logger,
    nodes,
  });
  return {
    authenticators: files.authenticators,
    authorizers: files.authorizers,
    authorizerModes: files.authorizerModes,
    admission: files.admission,
    ...(files.transformers !== undefined ? { transformers: files.transformers } : {}),
    ...(files.tracer !== undefined ? { tracer: files.tracer } : {}),
    close: () => files.close(),
  };
}
