// The seam for parts configured from files (authentication/authorization/admission/encryption/
// tracing configuration): they add their flags to EXTRA_FLAGS and build their plug-ins in
// loadPlugins. The server core takes whatever lists come back; nothing else changes.

import type { AdmissionPlugin, Authenticator, Authorizer, RequestTracer, TransformerRegistry } from './interfaces.js';
import type { ApiServerFlags, ExtraFlag } from './flags.js';
import type { Logger } from '../log/types.js';
// --- configuration-file flags (issue 7, src/apiserverconfig) ---
import { APISERVER_CONFIG_FLAGS, loadApiserverConfigFiles } from '../apiserverconfig/build.js';
import { systemClock } from '../util/clock.js';
// --- end configuration-file flags ---

export interface ApiServerPlugins {
  /** Tried after x509 client certificates and --token-auth-file. */
  readonly authenticators?: readonly Authenticator[];
  /** When given, these replace the --authorization-mode chain (system:masters stays allowed). */
  readonly authorizers?: readonly Authorizer[];
  readonly admission?: readonly AdmissionPlugin[];
  readonly transformers?: TransformerRegistry;
  readonly tracer?: RequestTracer;
  /** Called at shutdown (stops file watchers, closes connections). */
  readonly close?: () => Promise<void>;
}

// --- configuration-file flags (issue 7, src/apiserverconfig) ---
export const EXTRA_FLAGS: readonly ExtraFlag[] = APISERVER_CONFIG_FLAGS;

export async function loadPlugins(flags: ApiServerFlags, logger: Logger): Promise<ApiServerPlugins> {
  const x = flags.extra;
  const files = await loadApiserverConfigFiles({
    authenticationConfig: x['authenticationConfig'],
    authorizationConfig: x['authorizationConfig'],
    admissionControlConfigFile: x['admissionControlConfigFile'],
    enableAdmissionPlugins: x['enableAdmissionPlugins'],
    encryptionProviderConfig: x['encryptionProviderConfig'],
    tracingConfigFile: x['tracingConfigFile'],
    platformDomain: flags.platformDomain,
    anonymousAuthFlagSet: flags.anonymousAuth,
    authorizationModes: flags.authorizationMode,
    authorizationWebhookConfigFile: x['authorizationWebhookConfigFile'],
    authorizationWebhookVersion: x['authorizationWebhookVersion'],
    authorizationWebhookCacheAuthorizedTtl: x['authorizationWebhookCacheAuthorizedTtl'],
    authorizationWebhookCacheUnauthorizedTtl: x['authorizationWebhookCacheUnauthorizedTtl'],
    clock: systemClock,
    logger,
  });
  return {
    authenticators: files.authenticators,
    ...(files.authorizers === undefined ? {} : { authorizers: files.authorizers }),
    admission: files.admission,
    ...(files.transformers === undefined ? {} : { transformers: files.transformers }),
    ...(files.tracer === undefined ? {} : { tracer: files.tracer }),
    close: () => files.close(),
  };
}
// --- end configuration-file flags ---
