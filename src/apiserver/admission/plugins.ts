// Builds the admission plugins named by --enable-admission-plugins, in the reference's order,
// with their configuration from --admission-control-config-file.
import type { Names } from '../../common/names.js';
import { ADMISSION_PLUGIN_NAMES, type AdmissionPluginName } from '../config/admission.js';
import type { ResolvedAdmissionConfiguration } from '../config/load.js';
import type { Clock } from '../../common/util/clock.js';
import { ConfigError } from '../../common/util/errors.js';
import type { AdmissionPlugin, Authorizer } from '../interfaces.js';
import {
  CertificateApproval,
  CertificateSigning,
  CertificateSubjectRestriction,
} from './certificates.js';
import { DefaultTolerationSeconds, type TolerationSeconds } from './default-toleration-seconds.js';
import { EventRateLimit } from './event-rate-limit.js';
import { NodeRestriction } from './node-restriction.js';
import { ServiceAccountAdmission, type ServiceAccountGetter } from './service-account.js';
import type { NodeObjects } from '../authz/node/objects.js';
import { isOneOf } from '../../common/util/json-shape.js';

export interface AdmissionPluginsOptions {
  readonly enabled: readonly string[];
  readonly config: ResolvedAdmissionConfiguration | undefined;
  readonly platformDomain: string;
  /** The profile's names. */
  readonly names: Names;
  readonly authorizer: Authorizer;
  readonly clock: Clock;
  /** DefaultTolerationSeconds' values (default 300 s each). */
  readonly tolerationSeconds?: TolerationSeconds;
  /**
   * What NodeRestriction reads (pods, nodes) and the node-lease namespace, and the service
   * accounts the ServiceAccount plugin reads; required to enable them.
   */
  readonly nodes?: {
    readonly objects: NodeObjects;
    readonly leaseNamespace: string;
    readonly serviceAccounts?: ServiceAccountGetter;
  };
}

/** The reference runs enabled plugins in its fixed order, not the order of the flag. */
const ORDER: readonly AdmissionPluginName[] = [
  'ServiceAccount',
  'NodeRestriction',
  'DefaultTolerationSeconds',
  'EventRateLimit',
  'CertificateApproval',
  'CertificateSigning',
  'CertificateSubjectRestriction',
];

function serviceAccountPlugin(o: AdmissionPluginsOptions): AdmissionPlugin {
  const accounts = o.nodes?.serviceAccounts;
  if (accounts === undefined)
    throw new ConfigError(
      '--enable-admission-plugins: ServiceAccount needs the service accounts it reads; ' +
        'it cannot run here',
      { flag: '--enable-admission-plugins' },
    );
  return new ServiceAccountAdmission({
    names: o.names,
    accounts,
    clock: o.clock,
  });
}

function nodeRestrictionPlugin(o: AdmissionPluginsOptions): AdmissionPlugin {
  if (o.nodes === undefined)
    throw new ConfigError(
      '--enable-admission-plugins: NodeRestriction needs the cluster objects it reads; ' +
        'it cannot run here',
      { flag: '--enable-admission-plugins' },
    );
  return new NodeRestriction({
    names: o.names,
    nodeLeaseNamespace: o.nodes.leaseNamespace,
    objects: o.nodes.objects,
  });
}

function eventRateLimitPlugin(o: AdmissionPluginsOptions): AdmissionPlugin {
  const cfg = o.config?.eventRateLimit;
  if (cfg === undefined) {
    throw new ConfigError(
      '--enable-admission-plugins: EventRateLimit needs its configuration: add a ' +
        'plugins entry named EventRateLimit to the --admission-control-config-file',
      {
        flag: '--admission-control-config-file',
      },
    );
  }
  return new EventRateLimit({ config: cfg, clock: o.clock });
}

/** One plugin, built from the options it needs (a ConfigError when they are missing). */
function buildPlugin(name: AdmissionPluginName, o: AdmissionPluginsOptions): AdmissionPlugin {
  switch (name) {
    case 'ServiceAccount':
      return serviceAccountPlugin(o);
    case 'NodeRestriction':
      return nodeRestrictionPlugin(o);
    case 'DefaultTolerationSeconds':
      return new DefaultTolerationSeconds(o.names, o.tolerationSeconds);
    case 'EventRateLimit':
      return eventRateLimitPlugin(o);
    case 'CertificateApproval':
      return new CertificateApproval({
        platformDomain: o.platformDomain,
        authorizer: o.authorizer,
      });
    case 'CertificateSigning':
      return new CertificateSigning({ platformDomain: o.platformDomain, authorizer: o.authorizer });
    case 'CertificateSubjectRestriction':
      return new CertificateSubjectRestriction({
        platformDomain: o.platformDomain,
        names: o.names,
      });
  }
}

/** The enabled plugins, in the reference's order; an unknown name is a ConfigError. */
export function buildAdmissionPlugins(o: AdmissionPluginsOptions): AdmissionPlugin[] {
  const unknown = o.enabled.filter((n) => !isOneOf(ADMISSION_PLUGIN_NAMES, n));
  if (unknown.length > 0) {
    throw new ConfigError(
      `--enable-admission-plugins: unknown admission plugin(s) ` +
        `${unknown.map((n) => JSON.stringify(n)).join(', ')}; supported: ` +
        ADMISSION_PLUGIN_NAMES.join(', '),
      { flag: '--enable-admission-plugins' },
    );
  }
  const enabled = new Set(o.enabled);
  return ORDER.filter((name) => enabled.has(name)).map((name) => buildPlugin(name, o));
}
