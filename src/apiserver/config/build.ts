// From the five configuration-file flags to the parts plat-apiserver plugs into its pipeline:
// the encryption TransformerRegistry first (loadEncryptionConfig: the store is built over it),
// then (loadApiserverConfigFiles, given the RBAC and Node authorizers built over the store)
// authenticators (JWT, anonymous), authorizers (Webhook/AlwaysAllow/AlwaysDeny) and their chain,
// admission plugins and the RequestTracer.
import type { Names } from '../../common/names.js';
import { ConfiguredAnonymousAuthenticator } from '../authn/anonymous-config.js';
import { JwtAuthenticator } from '../authn/jwt.js';
import { JwtAuthenticatorSet } from '../authn/jwt-set.js';
import { WebhookAuthorizer } from '../authz/webhook.js';
import { AuthorizerChain } from '../authz/chain.js';
import {
  alwaysAllow,
  alwaysDeny,
  authorizersForModes,
  type ModeAuthorizers,
} from '../authz/modes.js';
import { buildAdmissionPlugins } from '../admission/plugins.js';
import type { ServiceAccountGetter } from '../admission/service-account.js';
import { ADMISSION_PLUGIN_NAMES } from './admission.js';
import {
  EncryptionTransformerRegistry,
  type LocalProviderFactory,
} from '../encryption/registry.js';
import type {
  AdmissionPlugin,
  Authenticator,
  Authorizer,
  RequestTracer,
  TransformerRegistry,
} from '../interfaces.js';
import type { NodeObjects } from '../authz/node/objects.js';
import { OtelRequestTracer } from '../tracing/tracer.js';
import type { Logger } from '../../common/log/types.js';
import { loadConnection } from '../../common/platconfig/platconfig.js';
import type { Clock } from '../../common/util/clock.js';
import { ConfigError, FlagError } from '../../common/util/errors.js';
import { tryDurationMs } from '../../common/util/values/duration.js';
import { loadConfigFile, type ConfigOf, type ResolvedAdmissionConfiguration } from './load.js';
import { isOneOf } from '../../common/util/json-shape.js';
import { parseInt64 } from '../../common/util/values/int.js';
import {
  DEFAULT_TOLERATION_SECONDS,
  type TolerationSeconds,
} from '../admission/default-toleration-seconds.js';

/**
 * Enabled unless --disable-admission-plugins names them: the reference's default certificate,
 * ServiceAccount and DefaultTolerationSeconds plugins, and NodeRestriction, which kubeadm enables (as it sets Node,RBAC), so that a node is
 * confined to itself by default.
 */
export const DEFAULT_ADMISSION_PLUGINS = [
  'ServiceAccount',
  'DefaultTolerationSeconds',
  'CertificateApproval',
  'CertificateSigning',
  'CertificateSubjectRestriction',
  'NodeRestriction',
] as const;

const pluginList = (v: string | undefined): string[] =>
  (v ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');

/**
 * The defaults plus --enable-admission-plugins, less --disable-admission-plugins. NodeRestriction
 * is a default only where the cluster objects it reads exist (the server; not --validate-config).
 */
export function admissionPluginsEnabled(
  enable: string | undefined,
  disable: string | undefined,
  haveNodes: boolean,
): string[] {
  const extra = pluginList(enable);
  const off = pluginList(disable);
  const both = extra.filter((p) => off.includes(p));
  if (both.length > 0) {
    throw new ConfigError(
      `--enable-admission-plugins and --disable-admission-plugins both name ` +
        `${both.map((p) => JSON.stringify(p)).join(', ')}: a plugin is either enabled or ` +
        `disabled`,
      { flag: '--disable-admission-plugins' },
    );
  }
  const unknown = off.filter((p) => !isOneOf(ADMISSION_PLUGIN_NAMES, p));
  if (unknown.length > 0) {
    throw new ConfigError(
      `--disable-admission-plugins: unknown admission plugin(s) ` +
        `${unknown.map((p) => JSON.stringify(p)).join(', ')}; supported: ` +
        ADMISSION_PLUGIN_NAMES.join(', '),
      { flag: '--disable-admission-plugins' },
    );
  }
  // NodeRestriction and ServiceAccount read cluster objects: defaults only where they exist.
  const defaults = DEFAULT_ADMISSION_PLUGINS.filter(
    (p) => haveNodes || (p !== 'NodeRestriction' && p !== 'ServiceAccount'),
  );
  return [...new Set([...defaults, ...extra])].filter((p) => !off.includes(p));
}

/** The flags this part adds to plat-apiserver (values are file paths or lists). */
export const APISERVER_CONFIG_FLAGS = [
  {
    name: 'authentication-config',
    help:
      'File with an AuthenticationConfiguration (apiserver.config.{platform_domain}/v1): ' +
      'JWT authenticators and anonymous access.',
  },
  {
    name: 'authorization-config',
    help:
      'File with an AuthorizationConfiguration: an ordered chain of Webhook, AlwaysAllow ' +
      'and AlwaysDeny authorizers. Replaces --authorization-mode.',
  },
  {
    name: 'admission-control-config-file',
    help:
      'File with an AdmissionConfiguration: per-plugin configuration (path or embedded ' +
      'configuration).',
  },
  {
    name: 'enable-admission-plugins',
    help:
      `Admission plugins to enable in addition to the default ones ` +
      `(${DEFAULT_ADMISSION_PLUGINS.join(', ')}). Known: CertificateApproval, ` +
      `CertificateSigning, CertificateSubjectRestriction, DefaultTolerationSeconds, ` +
      `EventRateLimit, NodeRestriction, ServiceAccount.`,
  },
  {
    name: 'disable-admission-plugins',
    help:
      `Admission plugins to disable, default ones included ` +
      `(${DEFAULT_ADMISSION_PLUGINS.join(', ')}); a plugin may not be both enabled and ` +
      `disabled.`,
  },
  {
    name: 'default-not-ready-toleration-seconds',
    help:
      `The tolerationSeconds of the not-ready NoExecute toleration the ` +
      `DefaultTolerationSeconds plugin adds to pods that have none (default ` +
      `${DEFAULT_TOLERATION_SECONDS}).`,
  },
  {
    name: 'default-unreachable-toleration-seconds',
    help:
      `The tolerationSeconds of the unreachable NoExecute toleration the ` +
      `DefaultTolerationSeconds plugin adds to pods that have none (default ` +
      `${DEFAULT_TOLERATION_SECONDS}).`,
  },
  {
    name: 'encryption-provider-config',
    help:
      'File with an EncryptionConfiguration: providers (aesgcm, aescbc, secretbox, ' +
      'identity, kms v2) for encrypting resources at rest.',
  },
  {
    name: 'tracing-config-file',
    help:
      'File with a TracingConfiguration: OTLP gRPC endpoint and samplingRatePerMillion ' +
      'for request spans.',
  },
  {
    name: 'authorization-webhook-config-file',
    help:
      'With --authorization-mode=Webhook: a platconfig (kubeconfig layout) naming the ' +
      'SubjectAccessReview webhook.',
  },
  {
    name: 'authorization-webhook-version',
    help:
      'With --authorization-mode=Webhook: v1 or v1beta1 SubjectAccessReviews (default ' +
      '"v1beta1").',
  },
  {
    name: 'authorization-webhook-cache-authorized-ttl',
    help: 'With --authorization-mode=Webhook: how long allowed answers are cached (default 5m0s).',
  },
  {
    name: 'authorization-webhook-cache-unauthorized-ttl',
    help: 'With --authorization-mode=Webhook: how long other answers are cached (default 30s).',
  },
  {
    name: 'validate-config',
    help:
      'Validate the configuration files given after this flag (any of the five kinds), ' +
      'print every error and exit (1 on errors, 0 otherwise).',
  },
] as const;

export interface ApiserverConfigFileOptions {
  readonly authenticationConfig?: string | undefined;
  readonly authorizationConfig?: string | undefined;
  readonly admissionControlConfigFile?: string | undefined;
  /** Comma-separated list, as given on the command line. */
  readonly enableAdmissionPlugins?: string | undefined;
  readonly disableAdmissionPlugins?: string | undefined;
  /** --default-not-ready-toleration-seconds and --default-unreachable-toleration-seconds. */
  readonly defaultNotReadyTolerationSeconds?: string | undefined;
  readonly defaultUnreachableTolerationSeconds?: string | undefined;
  /** Read by loadEncryptionConfig, before the store (the other files need the store's parts). */
  readonly encryptionProviderConfig?: string | undefined;
  readonly tracingConfigFile?: string | undefined;
  readonly platformDomain: string;
  readonly names: Names;
  /** `--anonymous-auth` was set (then the authentication file must not configure `anonymous`). */
  readonly anonymousAuthFlagSet: boolean;
  /** The --authorization-mode list, used when no --authorization-config is given. */
  readonly authorizationModes: readonly string[];
  /** The RBAC and Node authorizers (built over the server's store before this). */
  readonly modes: ModeAuthorizers;
  /** When given, the chain asks these instead of the configured ones (tests, embedding). */
  readonly replaceAuthorizers?: readonly Authorizer[] | undefined;
  /** --authorization-mode=Webhook settings (the legacy flags). */
  readonly authorizationWebhookConfigFile?: string | undefined;
  readonly authorizationWebhookVersion?: string | undefined;
  readonly authorizationWebhookCacheAuthorizedTtl?: string | undefined;
  readonly authorizationWebhookCacheUnauthorizedTtl?: string | undefined;
  readonly clock: Clock;
  readonly logger: Logger;
  /**
   * The `Node` authorizer, what NodeRestriction reads and the service accounts the ServiceAccount
   * plugin reads (absent: none of them can be enabled).
   */
  readonly nodes?:
    | {
        readonly authorizer: Authorizer;
        readonly objects: NodeObjects;
        readonly leaseNamespace: string;
        readonly serviceAccounts?: ServiceAccountGetter;
      }
    | undefined;
}

export interface ApiserverConfigFiles {
  readonly authenticators: readonly Authenticator[];
  /** From --authorization-config, or else the --authorization-mode chain. */
  readonly authorizers: readonly Authorizer[];
  /** The authorization modes in use (by type), for the start-up warnings. */
  readonly authorizerModes: readonly string[];
  /** The server's one authorizer chain (system:masters first): requests, reviews, admission. */
  readonly chain: AuthorizerChain;
  readonly admission: readonly AdmissionPlugin[];
  readonly tracer: RequestTracer | undefined;
  close(): Promise<void>;
}

const given = (v: string | undefined): v is string => v !== undefined && v !== '';

/** What the builders below share: the options, how files are read, what to close on failure. */
interface Building {
  readonly o: ApiserverConfigFileOptions;
  readonly load: { readonly platformDomain: string; readonly anonymousAuthFlagSet: boolean };
  readonly closers: (() => Promise<void> | void)[];
  readonly log: Logger;
}

export async function loadApiserverConfigFiles(
  o: ApiserverConfigFileOptions,
): Promise<ApiserverConfigFiles> {
  const b: Building = {
    o,
    load: { platformDomain: o.platformDomain, anonymousAuthFlagSet: o.anonymousAuthFlagSet },
    closers: [],
    log: o.logger.child({ component: 'apiserver-config' }),
  };
  try {
    const authenticators = authenticatorsFrom(b);
    const { authorizers, authorizerModes } = await authorizersFrom(b);
    if (authorizerModes.includes('AlwaysAllow')) {
      b.log.warn(
        { modes: authorizerModes },
        'authorization mode AlwaysAllow: every authenticated request is allowed (use ' +
          'Node,RBAC, the default, to restrict what each identity may do)',
      );
    }
    const chain = new AuthorizerChain({ authorizers: o.replaceAuthorizers ?? authorizers });
    const admission = admissionFrom(b, chain);
    const tracer = tracerFrom(b);
    return {
      authenticators,
      authorizers,
      authorizerModes,
      chain,
      admission,
      tracer,
      close: async () => {
        for (const c of b.closers.reverse()) await c();
      },
    };
  } catch (err) {
    // Nothing half-built stays open when a later file is bad.
    for (const c of b.closers.reverse()) await c();
    throw err;
  }
}

/**
 * --authentication-config: the JWT authenticators (discovery started) and configured anonymous
 * access.
 */
function authenticatorsFrom({ o, load, closers, log }: Building): Authenticator[] {
  const authenticators: Authenticator[] = [];
  if (!given(o.authenticationConfig)) return authenticators;
  const cfg = loadConfigFile(
    o.authenticationConfig,
    'AuthenticationConfiguration',
    load,
    '--authentication-config',
  );
  const jwts = (cfg.jwt ?? []).map(
    (config) => new JwtAuthenticator({ config, clock: o.clock, logger: o.logger }),
  );
  if (jwts.length > 0) {
    const set = new JwtAuthenticatorSet({ authenticators: jwts, clock: o.clock });
    closers.push(() => set.close());
    authenticators.push(set);
    // Discovery starts now (without holding up the start), so problems show in the log early;
    // tokens of an issuer are refused until its discovery succeeds.
    void set.ready().then((problems) => {
      for (const p of problems)
        log.warn(
          { problem: p },
          'JWT authenticator not ready yet; its tokens are refused until OIDC discovery succeeds',
        );
    });
  }
  if (cfg.anonymous !== undefined)
    authenticators.push(new ConfiguredAnonymousAuthenticator({ config: cfg.anonymous }));
  return authenticators;
}

/** --authorization-config when given, else the --authorization-mode chain. */
async function authorizersFrom(
  b: Building,
): Promise<{ authorizers: Authorizer[]; authorizerModes: string[] }> {
  const { o, load, closers } = b;
  if (given(o.authorizationConfig)) {
    const cfg = loadConfigFile(
      o.authorizationConfig,
      'AuthorizationConfiguration',
      load,
      '--authorization-config',
    );
    const authorizers: Authorizer[] = [];
    for (const [i, a] of cfg.authorizers.entries()) {
      const one = await configuredAuthorizer(b, o.modes, a, i);
      if (one !== undefined) authorizers.push(one);
    }
    return { authorizers, authorizerModes: cfg.authorizers.map((a) => a.type) };
  }
  let webhook: Authorizer | undefined;
  if (o.authorizationModes.includes('Webhook')) {
    const w = await legacyWebhookAuthorizer(o);
    closers.push(() => w.close());
    webhook = w;
  }
  const authorizers = authorizersForModes(o.authorizationModes, {
    ...o.modes,
    webhook: () => {
      if (webhook === undefined) throw new Error('the Webhook authorization mode was not prepared');
      return webhook;
    },
  });
  return { authorizers, authorizerModes: [...o.authorizationModes] };
}

type ConfiguredAuthorizerEntry = ConfigOf<'AuthorizationConfiguration'>['authorizers'][number];

/** One entry of --authorization-config's chain (a webhook entry opens its connection file). */
async function configuredAuthorizer(
  { o, closers }: Building,
  modes: ModeAuthorizers,
  a: ConfiguredAuthorizerEntry,
  i: number,
): Promise<Authorizer | undefined> {
  if (a.type === 'AlwaysAllow') return alwaysAllow;
  if (a.type === 'AlwaysDeny') return alwaysDeny;
  if (a.type === 'RBAC') return modes.rbac;
  if (a.type === 'Node') return modes.node;
  if (a.webhook === undefined) return undefined;
  const file = a.webhook.connectionInfo.kubeConfigFile ?? '';
  let connection;
  try {
    connection = await loadConnection(file);
  } catch (err) {
    throw new ConfigError(
      `--authorization-config: ${o.authorizationConfig ?? ''}: ` +
        `authorizers[${i}].webhook.connectionInfo.kubeConfigFile: ` +
        (err instanceof Error ? err.message : String(err)),
      {
        file: o.authorizationConfig ?? '',
        field: `authorizers[${i}].webhook.connectionInfo.kubeConfigFile`,
        flag: '--authorization-config',
      },
    );
  }
  const w = new WebhookAuthorizer({
    name: a.name,
    config: a.webhook,
    connection,
    platformDomain: o.platformDomain,
    clock: o.clock,
    logger: o.logger,
  });
  closers.push(() => w.close());
  return w;
}

/** The enabled admission plugins with --admission-control-config-file's settings. */
function admissionFrom({ o, load }: Building, chain: Authorizer): AdmissionPlugin[] {
  let admissionConfig: ResolvedAdmissionConfiguration | undefined;
  if (given(o.admissionControlConfigFile)) {
    admissionConfig = loadConfigFile(
      o.admissionControlConfigFile,
      'AdmissionConfiguration',
      load,
      '--admission-control-config-file',
    );
  }
  const enabled = admissionPluginsEnabled(
    o.enableAdmissionPlugins,
    o.disableAdmissionPlugins,
    o.nodes !== undefined,
  );
  // The certificate plugins ask the same chain the server uses (system:masters first).
  return buildAdmissionPlugins({
    enabled,
    config: admissionConfig,
    platformDomain: o.platformDomain,
    names: o.names,
    authorizer: chain,
    clock: o.clock,
    tolerationSeconds: tolerationSecondsOf(o),
    ...(o.nodes !== undefined ? { nodes: o.nodes } : {}),
  });
}

/** The two toleration-seconds flags, int64 as the reference parses them. */
function tolerationSecondsOf(o: ApiserverConfigFileOptions): TolerationSeconds {
  const read = (v: string | undefined, flag: string): number =>
    v === undefined ? DEFAULT_TOLERATION_SECONDS : parseInt64(v, flag);
  return {
    notReady: read(o.defaultNotReadyTolerationSeconds, 'default-not-ready-toleration-seconds'),
    unreachable: read(
      o.defaultUnreachableTolerationSeconds,
      'default-unreachable-toleration-seconds',
    ),
  };
}

/** What --encryption-provider-config builds: the storage's transformers (before the store). */
export interface StorageEncryption {
  readonly transformers: TransformerRegistry | undefined;
  close(): void;
}

/** --encryption-provider-config (KMS plugins' health said once in the log). */
export async function loadEncryptionConfig(
  o: Pick<
    ApiserverConfigFileOptions,
    'encryptionProviderConfig' | 'platformDomain' | 'anonymousAuthFlagSet' | 'clock' | 'logger'
  > & { readonly localProviders?: LocalProviderFactory | undefined },
): Promise<StorageEncryption> {
  if (!given(o.encryptionProviderConfig))
    return { transformers: undefined, close: () => undefined };
  const file = o.encryptionProviderConfig;
  const load = { platformDomain: o.platformDomain, anonymousAuthFlagSet: o.anonymousAuthFlagSet };
  const cfg = loadConfigFile(file, 'EncryptionConfiguration', load, '--encryption-provider-config');
  const reg = new EncryptionTransformerRegistry({
    config: cfg,
    clock: o.clock,
    logger: o.logger,
    file,
    ...(o.localProviders === undefined ? {} : { localProviders: o.localProviders }),
  });
  try {
    for (const p of await reg.checkKmsPlugins())
      o.logger
        .child({ component: 'apiserver-config' })
        .warn(
          { problem: p },
          'KMS plugin not healthy; writes and reads of its resources fail until it is',
        );
  } catch (err) {
    reg.close();
    throw err;
  }
  return { transformers: reg, close: () => reg.close() };
}

/** --tracing-config-file. */
function tracerFrom({ o, load, closers }: Building): RequestTracer | undefined {
  if (!given(o.tracingConfigFile)) return undefined;
  const cfg = loadConfigFile(
    o.tracingConfigFile,
    'TracingConfiguration',
    load,
    '--tracing-config-file',
  );
  const t = new OtelRequestTracer({ config: cfg, logger: o.logger });
  closers.push(() => t.shutdown());
  return t;
}

/** A webhook cache TTL flag's text (`def` when not given): a non-negative duration. */
function ttlFlag(v: string | undefined, def: string, name: string): string {
  const text = v ?? def;
  const ms = tryDurationMs(text);
  if (ms === undefined || ms < 0)
    throw new FlagError(
      `invalid value "${text}" for flag --${name}: must be a non-negative duration such as "30s"`,
      { flag: name },
    );
  return text;
}

/**
 * --authorization-mode=Webhook with the --authorization-webhook-* flags (failures give no opinion).
 */
async function legacyWebhookAuthorizer(o: ApiserverConfigFileOptions): Promise<WebhookAuthorizer> {
  const flag = '--authorization-webhook-config-file';
  if (!given(o.authorizationWebhookConfigFile)) {
    throw new FlagError(`--authorization-mode=Webhook needs ${flag}`, {
      flag: 'authorization-webhook-config-file',
    });
  }
  const version = o.authorizationWebhookVersion ?? 'v1beta1';
  if (version !== 'v1' && version !== 'v1beta1') {
    throw new FlagError(
      `invalid value "${version}" for flag --authorization-webhook-version: supported ` +
        `values are v1, v1beta1`,
      { flag: 'authorization-webhook-version' },
    );
  }
  const authorizedTTL = ttlFlag(
    o.authorizationWebhookCacheAuthorizedTtl,
    '5m0s',
    'authorization-webhook-cache-authorized-ttl',
  );
  const unauthorizedTTL = ttlFlag(
    o.authorizationWebhookCacheUnauthorizedTtl,
    '30s',
    'authorization-webhook-cache-unauthorized-ttl',
  );
  let connection;
  try {
    connection = await loadConnection(o.authorizationWebhookConfigFile);
  } catch (err) {
    throw new FlagError(`${flag}: ${err instanceof Error ? err.message : String(err)}`, {
      flag: 'authorization-webhook-config-file',
    });
  }
  return new WebhookAuthorizer({
    name: 'webhook',
    config: {
      authorizedTTL,
      cacheAuthorizedRequests: tryDurationMs(authorizedTTL) !== 0,
      unauthorizedTTL,
      cacheUnauthorizedRequests: tryDurationMs(unauthorizedTTL) !== 0,
      timeout: '30s',
      subjectAccessReviewVersion: version,
      matchConditionSubjectAccessReviewVersion: 'v1',
      failurePolicy: 'NoOpinion',
      connectionInfo: { type: 'KubeConfigFile', kubeConfigFile: o.authorizationWebhookConfigFile },
      matchConditions: [],
    },
    connection,
    platformDomain: o.platformDomain,
    clock: o.clock,
    logger: o.logger,
  });
}
