// `plat-apiserver --help`, laid out as kube-apiserver prints its help: the description, the usage
// line, then one section per flag group in the reference's order (component-base's sectioned
// flags: "Generic flags:", "Etcd flags:", ... "Global flags:"), each flag in the group the
// reference puts it in, sorted by name, wrapped to the terminal's width (80 when stdout is not a
// terminal). Flags of ours without a reference counterpart go where their subject belongs.
import { flagUsages, helpWidth, wrapText, type FlagRow } from '../common/cli/help-layout.js';
import { FLAG_DEFS, HELP_FLAG, type ExtraFlag, type FlagDef } from './flags.js';

/** kube-apiserver's sections, in its order; only those holding one of our flags are printed. */
export const HELP_SECTIONS = [
  'generic',
  'etcd',
  'secure serving',
  'auditing',
  'features',
  'authentication',
  'authorization',
  'cloud provider',
  'API enablement',
  'egress selector',
  'admission',
  'metrics',
  'logs',
  'traces',
  'misc',
  'global',
] as const;
export type HelpSection = (typeof HELP_SECTIONS)[number];

/** The section of every flag, as the reference files it (ours: by subject). */
export const SECTION_OF: Readonly<Record<string, HelpSection>> = {
  'default-not-ready-toleration-seconds': 'generic',
  'default-unreachable-toleration-seconds': 'generic',
  'feature-gates': 'generic',
  'min-request-timeout': 'generic',
  'worker-threads': 'generic',
  'platform-domain': 'generic',
  'platform-profile': 'generic',
  'advertise-address': 'generic',
  'data-dir': 'etcd',
  'default-watch-cache-size': 'etcd',
  'encryption-provider-config': 'etcd',
  'etcd-compaction-interval': 'etcd',
  'bind-address': 'secure serving',
  'cert-dir': 'secure serving',
  'secure-port': 'secure serving',
  'tls-cert-file': 'secure serving',
  'tls-private-key-file': 'secure serving',
  'tls-processes': 'secure serving',
  'anonymous-auth': 'authentication',
  'api-audiences': 'authentication',
  'authentication-config': 'authentication',
  'client-ca-file': 'authentication',
  'enable-bootstrap-token-auth': 'authentication',
  'service-account-extend-token-expiration': 'authentication',
  'service-account-issuer': 'authentication',
  'service-account-key-file': 'authentication',
  'service-account-max-token-expiration': 'authentication',
  'service-account-signing-key-file': 'authentication',
  'token-auth-file': 'authentication',
  'authorization-config': 'authorization',
  'authorization-mode': 'authorization',
  'authorization-webhook-cache-authorized-ttl': 'authorization',
  'authorization-webhook-cache-unauthorized-ttl': 'authorization',
  'authorization-webhook-config-file': 'authorization',
  'authorization-webhook-version': 'authorization',
  'admission-control-config-file': 'admission',
  'disable-admission-plugins': 'admission',
  'enable-admission-plugins': 'admission',
  v: 'logs',
  'tracing-config-file': 'traces',
  // kube-apiserver's own flags (misc), and the controller flags kube-controller-manager would take
  'cluster-signing-cert-file': 'misc',
  'cluster-signing-duration': 'misc',
  'cluster-signing-key-file': 'misc',
  controllers: 'misc',
  'kubelet-certificate-authority': 'misc',
  'kubelet-client-certificate': 'misc',
  'kubelet-client-key': 'misc',
  'kubelet-preferred-address-types': 'misc',
  'node-monitor-grace-period': 'misc',
  'service-cluster-ip-range': 'misc',
  'validate-config': 'misc',
  help: 'global',
  version: 'global',
};

export const API_SERVER_DESCRIPTION =
  'plat-apiserver is a lightweight control plane speaking the Kubernetes 1.32 API ' +
  'server protocol. ' +
  'It serves the APIs node agents and kubectl use (nodes, pods, namespaces, leases, certificate ' +
  'signing requests, events, RBAC and more), validates and stores objects (in memory, ' +
  'or in SQLite ' +
  'with --data-dir), authenticates and authorizes every request, and runs the ' +
  'controllers a small ' +
  'cluster needs. `plat-apiserver token create` makes a bootstrap token for joining a node.';

function quoted(f: FlagDef): boolean {
  return f.value === 'string' || f.value === 'ip';
}

function rowOf(f: FlagDef): FlagRow {
  const d =
    f.def === undefined || f.def === '' || f.value === '' || f.value === 'version[=true]'
      ? ''
      : ` (default ${quoted(f) ? `"${f.def}"` : f.def})`;
  return {
    name: f.name,
    short: f.short,
    valueName: f.value,
    usage: `${f.help}${d}`,
  };
}

/** Every flag, own and registered by plug-in parts, with its section. */
export function sectionedFlags(
  extra: readonly ExtraFlag[],
): { section: HelpSection; defs: FlagDef[] }[] {
  const all: FlagDef[] = [
    ...FLAG_DEFS,
    HELP_FLAG,
    ...extra.map((e) => ({
      name: e.name,
      value: e.bool === true ? '' : e.accumulates === true ? 'strings' : 'string',
      def: undefined,
      help: e.help,
    })),
  ];
  return HELP_SECTIONS.map((section) => ({
    section,
    defs: all
      .filter((f) => (SECTION_OF[f.name] ?? 'misc') === section)
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)),
  })).filter((s) => s.defs.length > 0);
}

/** `Secure serving flags:` from `secure serving`. */
export function sectionHeading(section: HelpSection): string {
  return `${section.charAt(0).toUpperCase()}${section.slice(1)} flags:`;
}

export function renderApiServerHelp(
  extra: readonly ExtraFlag[] = [],
  width: number = helpWidth(),
): string {
  const out = [wrapText(API_SERVER_DESCRIPTION, width), '', 'Usage:', '  plat-apiserver [flags]'];
  for (const { section, defs } of sectionedFlags(extra))
    out.push('', sectionHeading(section), '', flagUsages(defs.map(rowOf), width));
  return `${out.join('\n')}\n`;
}
