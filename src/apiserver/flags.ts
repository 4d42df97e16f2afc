// plat-apiserver's command line, named as the reference control plane names its flags: the table
// FLAG_DEFS, parsed by the pflag-style tokenizer both programs share (src/common/cli): `--x=v` and
// `--x v`, `_` read as `-`, booleans as `--x` or `--x=true|false`, `-v3`, lists that accumulate.
// Every bad value is one FlagError naming the flag and what is accepted.

import {
  DEFAULT_PLATFORM_DOMAIN,
  REFERENCE_NAMES,
  isPlatformProfile,
  namesFor,
  unknownProfileMessage,
  type PlatformProfile,
} from '../common/names.js';
import {
  goQuotedList,
  parseStringFlags,
  type StringFlagDef,
  type StringFlags,
} from '../common/cli/string-flags.js';
import { FlagError } from '../common/util/errors.js';
import { parseBool } from '../common/util/values/bool.js';
import { parseDurationMs } from '../common/util/values/duration.js';
import { parseInt32 } from '../common/util/values/int.js';
import { parseBoolMap, parseStrings } from '../common/util/values/lists.js';
import { AUTHORIZATION_MODES, DEFAULT_AUTHORIZATION_MODES } from './authz/modes.js';
import { checkAddressTypes } from './proxy/node-connection.js';
import { reportedGitVersion, versionOutput } from './version.js';
import { parseVersionValue } from '../common/version.js';
import { isOneOf } from '../common/util/json-shape.js';

export const KNOWN_CONTROLLERS = [
  'csrapproving',
  'csrsigning',
  'tokencleaner',
  'nodelifecycle',
  'serviceaccount',
  'root-ca-cert-publisher',
  'scheduler',
] as const;
export const API_SERVER_FEATURE_GATES: Readonly<Record<string, boolean>> = {
  ShardedListAndWatch: false,
};

export interface ApiServerFlags {
  securePort: number;
  /** --tls-processes: TLS front processes (0: none); -1: one per CPU beyond the first (start/helper-count.ts). */
  tlsProcesses: number;
  /**
   * --worker-threads: threads for body decoding, encryption at rest and the serialisation of
   * lists and protobuf watch frames (0: none); -1 as above.
   */
  workerThreads: number;
  bindAddress: string;
  certDir: string;
  tlsCertFile: string | undefined;
  tlsPrivateKeyFile: string | undefined;
  clientCaFile: string | undefined;
  tokenAuthFile: string | undefined;
  /** Identifiers of this API server: a TokenReview naming other audiences is not authenticated. */
  apiAudiences: string[];
  enableBootstrapTokenAuth: boolean;
  anonymousAuth: boolean;
  /** --anonymous-auth was given explicitly. */
  anonymousAuthSet: boolean;
  authorizationMode: string[];
  platformDomain: string;
  /** --platform-profile: whose names (signers, groups, namespaces) the server uses. */
  platformProfile: PlatformProfile;
  /** --node-monitor-grace-period: a node whose lease and status are older is marked Unknown. */
  nodeMonitorGracePeriodMs: number;
  dataDir: string | undefined;
  clusterSigningCertFile: string | undefined;
  clusterSigningKeyFile: string | undefined;
  clusterSigningDurationMs: number;
  controllers: string[];
  featureGates: Record<string, boolean>;
  minRequestTimeoutSeconds: number;
  defaultWatchCacheSize: number;
  etcdCompactionIntervalMs: number;
  verbosity: number;
  /**
   * --kubelet-client-certificate/--kubelet-client-key: plat-apiserver's identity towards agents.
   */
  kubeletClientCertificate: string | undefined;
  kubeletClientKey: string | undefined;
  /** --kubelet-certificate-authority: verifies the agents' serving certificates. */
  kubeletCertificateAuthority: string | undefined;
  /** --kubelet-preferred-address-types: which node address reaches its agent. */
  kubeletPreferredAddressTypes: string[];
  /** --version=vX.Y.Z: the gitVersion GET /version reports instead of the default. */
  reportedVersion: string | undefined;
  /** Further flags registered by plug-in parts (configuration files), by camelCase name. */
  extra: Record<string, string>;
}

export type ParseOutcome =
  { kind: 'run'; flags: ApiServerFlags } | { kind: 'help' } | { kind: 'version'; text: string };

export interface FlagDef {
  readonly name: string;
  readonly short?: string;
  readonly value: string; // value placeholder; '' for booleans
  readonly def: string | undefined;
  readonly help: string;
}

export const FLAG_DEFS: readonly FlagDef[] = [
  {
    name: 'secure-port',
    value: 'int',
    def: '6443',
    help:
      'The port on which to serve HTTPS with authentication and authorization. 0 picks a ' +
      'free port.',
  },
  {
    name: 'tls-processes',
    value: 'int',
    def: '0',
    help:
      'Processes that end TLS on --secure-port and relay each connection to the main process, ' +
      'which keeps storage and the request pipeline: handshakes and record encryption then run ' +
      'on other cores. 0 ends TLS in the main process; -1 starts one per CPU beyond the first ' +
      '(none on a single CPU), at most 8. At most 64.',
  },
  {
    name: 'worker-threads',
    value: 'int',
    def: '0',
    help:
      'Threads that decode and check request bodies (JSON and YAML), run encryption at rest ' +
      '(aesgcm, aescbc and secretbox keys of --encryption-provider-config), serialise list ' +
      "items not served before and make live changes' protobuf watch frames, so that this " +
      'work runs on other cores; storage and the rest of the request pipeline stay on the main ' +
      'thread. 0 does it all on the main thread; -1 starts one per CPU beyond the first (none ' +
      'on a single CPU), at most 8. At most 64.',
  },
  {
    name: 'bind-address',
    value: 'ip',
    def: '127.0.0.1',
    help: 'The IP address on which to listen for the --secure-port port.',
  },
  {
    name: 'cert-dir',
    value: 'string',
    def: '/var/run/plat-apiserver',
    help:
      'The directory where generated TLS certificates, the cluster CA and ' +
      'admin.platconfig are written.',
  },
  {
    name: 'tls-cert-file',
    value: 'string',
    def: undefined,
    help:
      'File containing the default x509 serving certificate (PEM). When absent, a ' +
      'self-signed certificate for localhost, 127.0.0.1 and the host name is generated ' +
      'into --cert-dir.',
  },
  {
    name: 'tls-private-key-file',
    value: 'string',
    def: undefined,
    help: 'File containing the default x509 private key matching --tls-cert-file.',
  },
  {
    name: 'client-ca-file',
    value: 'string',
    def: undefined,
    help:
      'Client certificates signed by one of these authorities (PEM bundle) are ' +
      'authenticated as their CN, with their O values as groups. The cluster signing CA ' +
      'is always trusted.',
  },
  {
    name: 'token-auth-file',
    value: 'string',
    def: undefined,
    help: 'A CSV file of bearer tokens: token,user,uid,"group1,group2".',
  },
  {
    name: 'api-audiences',
    value: 'strings',
    def: '',
    help:
      'Identifiers of the API. Tokens authenticated here (token file, x509, OIDC) are ' +
      'bound to these audiences: a TokenReview whose spec.audiences shares none of them ' +
      'is not authenticated, and an authenticated one reports the shared ones in ' +
      'status.audiences.',
  },
  {
    name: 'enable-bootstrap-token-auth',
    value: '',
    def: 'false',
    help:
      `Enables bootstrap tokens: Secrets of type bootstrap.{platform_domain}/token in the ` +
      `profile's system namespace (${namesFor('platform').namespaces.system}; ` +
      `${REFERENCE_NAMES.namespaces.system} under --platform-profile=kubernetes) ` +
      `authenticate as system:bootstrap:<token-id> (see plat-apiserver token create).`,
  },
  {
    name: 'anonymous-auth',
    value: '',
    def: 'false',
    help: 'Enables anonymous requests (user system:anonymous, group system:unauthenticated).',
  },
  {
    name: 'authorization-mode',
    value: 'strings',
    def: DEFAULT_AUTHORIZATION_MODES.join(','),
    help:
      `Ordered list of authorization plug-ins: ${AUTHORIZATION_MODES.join(', ')} (Webhook ` +
      `with --authorization-webhook-config-file). The first that allows or denies ` +
      `decides. Members of system:masters are always allowed.`,
  },
  {
    name: 'platform-domain',
    value: 'string',
    def: DEFAULT_PLATFORM_DOMAIN,
    help:
      `The reserved domain of API groups, signer names and annotations ` +
      `(${REFERENCE_NAMES.groupDomain} makes the paths those of standard cluster tools).`,
  },
  {
    name: 'platform-profile',
    value: 'string',
    def: 'platform',
    help:
      `The naming profile: platform (names from --platform-domain) or kubernetes ` +
      `(upstream Kubernetes 1.32 names: ${REFERENCE_NAMES.groupDomain} groups, ` +
      `${REFERENCE_NAMES.labelDomain} signers, ${REFERENCE_NAMES.namespaces.nodeLease}).`,
  },
  {
    name: 'node-monitor-grace-period',
    value: 'duration',
    def: '40s',
    help:
      'How long a node may go without renewing its Lease or posting its status before the ' +
      'node lifecycle controller marks it Unknown and taints it unreachable.',
  },
  {
    name: 'data-dir',
    value: 'string',
    def: undefined,
    help: 'Directory of the SQLite database. When absent, everything is kept in memory.',
  },
  {
    name: 'cluster-signing-cert-file',
    value: 'string',
    def: undefined,
    help:
      'PEM CA certificate used to issue cluster-scoped certificates. When absent, a CA is ' +
      'generated into --cert-dir.',
  },
  {
    name: 'cluster-signing-key-file',
    value: 'string',
    def: undefined,
    help: 'PEM private key of --cluster-signing-cert-file.',
  },
  {
    name: 'cluster-signing-duration',
    value: 'duration',
    def: '8760h0m0s',
    help: 'The maximum length of duration signed certificates will be given.',
  },
  {
    name: 'controllers',
    value: 'strings',
    def:
      'csrapproving,csrsigning,tokencleaner,nodelifecycle,serviceaccount,' +
      'root-ca-cert-publisher,scheduler',
    help:
      "Controllers to run: '*' for all, 'name' to enable, '-name' to disable. Known: " +
      'csrapproving, csrsigning, tokencleaner (deletes expired bootstrap tokens; with ' +
      '--enable-bootstrap-token-auth), nodelifecycle, serviceaccount (the default ' +
      'ServiceAccount in every namespace), root-ca-cert-publisher (the root CA ConfigMap ' +
      'in every namespace), scheduler (binds pods without spec.nodeName to a Ready node ' +
      'that fits).',
  },
  {
    name: 'feature-gates',
    value: 'mapStringBool',
    def: '',
    help:
      'key=value pairs of alpha/experimental features. Options: ' +
      'ShardedListAndWatch=true|false (ALPHA - default=false).',
  },
  {
    name: 'min-request-timeout',
    value: 'int',
    def: '1800',
    help:
      'The minimum number of seconds a watch is kept open; the actual timeout is random ' +
      'in [n, 2n) when the client gives no timeoutSeconds.',
  },
  {
    name: 'default-watch-cache-size',
    value: 'int',
    def: '100',
    help:
      'Default watch cache size per resource; a watcher may lag this many times 100 ' +
      'events before it is closed.',
  },
  {
    name: 'etcd-compaction-interval',
    value: 'duration',
    def: '5m0s',
    help:
      'How long superseded resource versions stay readable: watches resume and continue ' +
      'tokens stay valid for this long. 0 disables compaction.',
  },
  {
    name: 'kubelet-client-certificate',
    value: 'string',
    def: undefined,
    help:
      'Client certificate (PEM) for connections to the node agents (logs, exec, attach, ' +
      'port-forward, nodes/proxy). When absent, one is issued from the cluster CA into ' +
      '--cert-dir (CN <product>-apiserver-kubelet-client, O system:masters).',
  },
  {
    name: 'kubelet-client-key',
    value: 'string',
    def: undefined,
    help: 'Private key (PEM) of --kubelet-client-certificate.',
  },
  {
    name: 'kubelet-certificate-authority',
    value: 'string',
    def: undefined,
    help:
      "CA bundle (PEM) that verifies the node agents' serving certificates. When absent " +
      'they are not verified.',
  },
  {
    name: 'kubelet-preferred-address-types',
    value: 'strings',
    // kubeadm's setting, not kube-apiserver's built-in Hostname-first order: a node's host name
    // rarely resolves from the control plane of a small cluster, its InternalIP does.
    def: 'InternalIP,ExternalIP,Hostname',
    help:
      'The preferred NodeAddressTypes to use for connections to the node agents (kubeadm ' +
      'sets this default; kube-apiserver alone uses Hostname,InternalDNS,InternalIP,' +
      'ExternalDNS,ExternalIP).',
  },
  { name: 'v', short: 'v', value: 'Level', def: '0', help: 'Number for the log level verbosity.' },
  {
    name: 'version',
    value: 'version[=true]',
    def: 'false',
    help:
      '--version, --version=raw prints version information and quits; --version=vX.Y.Z... ' +
      'sets the reported version',
  },
];

export const HELP_FLAG: FlagDef = {
  name: 'help',
  short: 'h',
  value: '',
  def: 'false',
  help: 'help for plat-apiserver',
};

/** Value types whose repeated occurrences add up (pflag's StringSlice and mapStringBool). */
const ACCUMULATING = new Set(['strings', 'mapStringBool']);

function tokenFlags(extra: readonly ExtraFlag[]): StringFlagDef[] {
  const own = [...FLAG_DEFS, HELP_FLAG].map((f) => ({
    name: f.name,
    ...(f.short !== undefined ? { short: f.short } : {}),
    ...(f.value === '' || f.name === 'version' ? { bool: true } : {}),
    ...(ACCUMULATING.has(f.value) ? { accumulates: true } : {}),
    ...(f.def !== undefined ? { def: f.def } : {}),
  }));
  return [
    ...own,
    ...extra.map((e) => ({
      name: e.name,
      ...(e.bool === true ? { bool: true } : {}),
      ...(e.accumulates === true ? { accumulates: true } : {}),
    })),
  ];
}

/** Flags other parts register (for example the configuration-file flags); parsed as strings. */
export interface ExtraFlag {
  readonly name: string;
  readonly help: string;
  /** A boolean: `--x` alone means true. */
  readonly bool?: boolean;
  /** Repeated occurrences add up (their texts joined with commas). */
  readonly accumulates?: boolean;
}

function camel(name: string): string {
  return name.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
}

function durationMs(v: string, flag: string): number {
  const ms = parseDurationMs(v, flag);
  if (ms < 0)
    throw new FlagError(`invalid value "${v}" for flag --${flag}: must not be negative`, { flag });
  return ms;
}

function positiveInt(v: string, flag: string, min: number): number {
  const n = parseInt32(v, flag);
  if (n < min)
    throw new FlagError(`invalid value "${v}" for flag --${flag}: must be at least ${min}`, {
      flag,
    });
  return n;
}

export function parseFlags(
  argv: readonly string[],
  extra: readonly ExtraFlag[] = [],
): ParseOutcome {
  const cl = tokenizeFlags(argv, extra);
  if (parseBool(cl.value('help'), 'help')) return { kind: 'help' };
  // cobra's check of the reference's kube-apiserver (cmd.Args)
  if (cl.positionals.some((a) => a !== ''))
    throw new FlagError(
      `"plat-apiserver" does not take any arguments, got ${goQuotedList(cl.positionals)}`,
    );
  // The reference prints its version in the command's run, after cobra has checked the arguments.
  const version = parseVersionValue(cl.value('version'), 'version');
  const versionText = versionOutput(version);
  if (versionText !== undefined) return { kind: 'version', text: versionText };
  return { kind: 'run', flags: flagsFrom(cl, extra) };
}

function tokenizeFlags(argv: readonly string[], extra: readonly ExtraFlag[]): StringFlags {
  try {
    return parseStringFlags(argv, tokenFlags(extra));
  } catch (err) {
    if (err instanceof FlagError)
      throw new FlagError(`${err.message}; see plat-apiserver --help`, {
        ...(err.flag !== undefined ? { flag: err.flag } : {}),
        cause: err,
      });
    throw err;
  }
}

/** Serving: port, address and TLS files. */
function servingFlags(
  cl: StringFlags,
  tlsCert: string | undefined,
  tlsKey: string | undefined,
): Pick<
  ApiServerFlags,
  | 'securePort'
  | 'tlsProcesses'
  | 'workerThreads'
  | 'bindAddress'
  | 'certDir'
  | 'tlsCertFile'
  | 'tlsPrivateKeyFile'
  | 'clientCaFile'
> {
  return {
    securePort: securePortOf(cl.value('secure-port')),
    tlsProcesses: helperFlagOf(
      cl.value('tls-processes'),
      'tls-processes',
      'TLS in the main process',
    ),
    workerThreads: helperFlagOf(
      cl.value('worker-threads'),
      'worker-threads',
      'all on the main thread',
    ),
    bindAddress: cl.value('bind-address'),
    certDir: cl.value('cert-dir'),
    tlsCertFile: tlsCert,
    tlsPrivateKeyFile: tlsKey,
    clientCaFile: cl.given('client-ca-file'),
  };
}

/** Authentication: token file, audiences, bootstrap tokens, anonymous requests. */
function authenticationFlags(
  cl: StringFlags,
): Pick<
  ApiServerFlags,
  | 'tokenAuthFile'
  | 'apiAudiences'
  | 'enableBootstrapTokenAuth'
  | 'anonymousAuth'
  | 'anonymousAuthSet'
> {
  const val = (name: string): string => cl.value(name);
  return {
    tokenAuthFile: cl.given('token-auth-file'),
    apiAudiences: parseStrings(val('api-audiences'), 'api-audiences').filter((a) => a !== ''),
    enableBootstrapTokenAuth: parseBool(
      val('enable-bootstrap-token-auth'),
      'enable-bootstrap-token-auth',
    ),
    anonymousAuth: parseBool(val('anonymous-auth'), 'anonymous-auth'),
    anonymousAuthSet: cl.given('anonymous-auth') !== undefined,
  };
}

/** The platform, its data and the cluster signer. */
function clusterFlags(
  cl: StringFlags,
  signCert: string | undefined,
  signKey: string | undefined,
): Pick<
  ApiServerFlags,
  | 'platformDomain'
  | 'platformProfile'
  | 'nodeMonitorGracePeriodMs'
  | 'dataDir'
  | 'clusterSigningCertFile'
  | 'clusterSigningKeyFile'
  | 'clusterSigningDurationMs'
> {
  const val = (name: string): string => cl.value(name);
  return {
    platformDomain: val('platform-domain'),
    platformProfile: profileOf(val('platform-profile')),
    nodeMonitorGracePeriodMs: durationMs(
      val('node-monitor-grace-period'),
      'node-monitor-grace-period',
    ),
    dataDir: cl.given('data-dir'),
    clusterSigningCertFile: signCert,
    clusterSigningKeyFile: signKey,
    clusterSigningDurationMs: durationMs(
      val('cluster-signing-duration'),
      'cluster-signing-duration',
    ),
  };
}

/** Request timeouts, the watch cache, compaction and verbosity. */
function runtimeFlags(
  cl: StringFlags,
): Pick<
  ApiServerFlags,
  'minRequestTimeoutSeconds' | 'defaultWatchCacheSize' | 'etcdCompactionIntervalMs' | 'verbosity'
> {
  const val = (name: string): string => cl.value(name);
  return {
    minRequestTimeoutSeconds: positiveInt(val('min-request-timeout'), 'min-request-timeout', 1),
    defaultWatchCacheSize: positiveInt(
      val('default-watch-cache-size'),
      'default-watch-cache-size',
      0,
    ),
    etcdCompactionIntervalMs: durationMs(
      val('etcd-compaction-interval'),
      'etcd-compaction-interval',
    ),
    verbosity: positiveInt(val('v'), 'v', 0),
  };
}

/**
 * The typed flags, each value checked (in the order the checks always ran, so errors stay stable:
 * the groups below are read in that order).
 */
function flagsFrom(cl: StringFlags, extra: readonly ExtraFlag[]): ApiServerFlags {
  const val = (name: string): string => cl.value(name);
  const modes = parseStrings(val('authorization-mode'), 'authorization-mode');
  checkAuthorizationModes(modes);
  const controllers = resolveControllers(parseStrings(val('controllers'), 'controllers'));
  const featureGates = featureGatesOf(val('feature-gates'));
  const [tlsCert, tlsKey] = givenTogether(cl, 'tls-cert-file', 'tls-private-key-file');
  const [signCert, signKey] = givenTogether(
    cl,
    'cluster-signing-cert-file',
    'cluster-signing-key-file',
  );
  const [kubeletCert, kubeletKey] = givenTogether(
    cl,
    'kubelet-client-certificate',
    'kubelet-client-key',
  );
  const addressTypes = addressTypesOf(val('kubelet-preferred-address-types'));
  return {
    ...servingFlags(cl, tlsCert, tlsKey),
    ...authenticationFlags(cl),
    authorizationMode: modes,
    ...clusterFlags(cl, signCert, signKey),
    controllers,
    featureGates,
    ...runtimeFlags(cl),
    kubeletClientCertificate: kubeletCert,
    kubeletClientKey: kubeletKey,
    kubeletCertificateAuthority: cl.given('kubelet-certificate-authority'),
    kubeletPreferredAddressTypes: addressTypes,
    reportedVersion: reportedGitVersion(parseVersionValue(val('version'), 'version')),
    extra: extraValuesOf(cl, extra),
  };
}

function featureGatesOf(text: string): Record<string, boolean> {
  const gates = { ...API_SERVER_FEATURE_GATES };
  const given = text === '' ? {} : parseBoolMap(text, 'feature-gates');
  for (const [k, v] of Object.entries(given)) {
    if (!(k in gates)) {
      throw new FlagError(
        `invalid value "${text}" for flag --feature-gates: unrecognized feature gate: ` +
          `${k}; known: ${Object.keys(gates).join(', ')}`,
        { flag: 'feature-gates' },
      );
    }
    gates[k] = v;
  }
  return gates;
}

/** A file pair (certificate and key): both or neither. */
function givenTogether(
  cl: StringFlags,
  first: string,
  second: string,
): [string | undefined, string | undefined] {
  const a = cl.given(first);
  const b = cl.given(second);
  if ((a === undefined) !== (b === undefined))
    throw new FlagError(`flags --${first} and --${second} must be given together`, {
      flag: a === undefined ? first : second,
    });
  return [a, b];
}

function addressTypesOf(text: string): string[] {
  const types = parseStrings(text, 'kubelet-preferred-address-types');
  const problem = checkAddressTypes(types);
  if (problem !== undefined)
    throw new FlagError(
      `invalid value "${text}" for flag --kubelet-preferred-address-types: ${problem}`,
      { flag: 'kubelet-preferred-address-types' },
    );
  return types;
}

/** --tls-processes or --worker-threads: -1, 0 (`zero` says what that means) or a count. */
function helperFlagOf(text: string, flag: string, zero: string): number {
  const n = parseInt32(text, flag);
  if (n < -1 || n > MAX_HELPERS)
    throw new FlagError(
      `invalid value "${text}" for flag --${flag}: must be -1 (one per CPU beyond the ` +
        `first), 0 (${zero}) or a count up to ${MAX_HELPERS}`,
      { flag },
    );
  return n;
}

/** The most helpers --tls-processes and --worker-threads each take. */
export const MAX_HELPERS = 64;

function securePortOf(text: string): number {
  const port = parseInt32(text, 'secure-port');
  if (port < 0 || port > 65535)
    throw new FlagError(
      `invalid value "${text}" for flag --secure-port: must be between 0 and 65535`,
      { flag: 'secure-port' },
    );
  return port;
}

/** The configuration-file flags, by camelCase name, when given. */
function extraValuesOf(cl: StringFlags, extra: readonly ExtraFlag[]): Record<string, string> {
  const values: Record<string, string> = {};
  for (const e of extra) {
    const v = cl.given(e.name);
    if (v !== undefined) values[camel(e.name)] = v;
  }
  return values;
}

function profileOf(v: string): PlatformProfile {
  if (!isPlatformProfile(v))
    throw new FlagError(unknownProfileMessage(v, 'flag --platform-profile'), {
      flag: 'platform-profile',
    });
  return v;
}

/** `*`, `name` and `-name` entries, as the reference's --controllers. */
export function resolveControllers(list: readonly string[]): string[] {
  const on = new Set<string>();
  const star = list.includes('*');
  for (const c of list) {
    const name = c.startsWith('-') ? c.slice(1) : c;
    if (c !== '*' && !isOneOf(KNOWN_CONTROLLERS, name)) {
      throw new FlagError(
        `invalid value "${list.join(',')}" for flag --controllers: unknown controller ` +
          `"${name}"; known: ${KNOWN_CONTROLLERS.join(', ')}`,
        {
          flag: 'controllers',
        },
      );
    }
  }
  for (const k of KNOWN_CONTROLLERS) {
    if (list.includes(`-${k}`)) continue;
    if (star || list.includes(k)) on.add(k);
  }
  return [...on];
}

/** The reference's checks: known modes, each at most once, at least one. */
function checkAuthorizationModes(modes: readonly string[]): void {
  const known: readonly string[] = AUTHORIZATION_MODES;
  const seen = new Set<string>();
  for (const m of modes) {
    if (!known.includes(m)) {
      throw new FlagError(
        `invalid value "${m}" for flag --authorization-mode: supported modes are ` +
          AUTHORIZATION_MODES.join(', '),
        { flag: 'authorization-mode' },
      );
    }
    if (seen.has(m))
      throw new FlagError(
        `invalid value "${modes.join(',')}" for flag --authorization-mode: ` +
          `authorization-mode "${m}" has mode specified more than once`,
        { flag: 'authorization-mode' },
      );
    seen.add(m);
  }
  if (modes.length === 0)
    throw new FlagError(
      `flag --authorization-mode: at least one mode is required ` +
        `(${AUTHORIZATION_MODES.join(', ')})`,
      { flag: 'authorization-mode' },
    );
}
