// The one table of every reserved name both programs use, under each naming profile. The spec
// writes its names with two placeholders, `{platform_domain}` and `plat`; the `platform` profile
// fills both from one domain (default platform.io, --platform-domain) and the word `plat`, while
// the `kubernetes` profile is upstream Kubernetes 1.32's names exactly, which are not one domain
// but several (API groups under k8s.io, signers, labels, taints and annotations under
// kubernetes.io). Nothing else in the code spells a reserved domain: it asks this table
// (test/unit/common/names-lint.test.ts fails on a domain literal anywhere else in src/). Below the
// profiles: the reference's own names (REFERENCE_NAMES) for what is the reference's under every
// profile, and the wire identifiers standard clients speak whatever the profile (WIRE_NAMES).
import { isOneOf } from './util/json-shape.js';

export const PLATFORM_PROFILES = ['platform', 'kubernetes'] as const;
export type PlatformProfile = (typeof PLATFORM_PROFILES)[number];
export const DEFAULT_PLATFORM_PROFILE: PlatformProfile = 'platform';
export const DEFAULT_PLATFORM_DOMAIN = 'platform.io';
/** The API group suffix of the kubernetes profile. */
const K8S_GROUPS = 'k8s.io';
/** The label, taint, annotation and signer domain of the kubernetes profile. */
const K8S_NAMES = 'kubernetes.io';

export interface Names {
  readonly profile: PlatformProfile;
  /** The suffix of every API group (`certificates.<groupDomain>`), of meta and config groups. */
  readonly groupDomain: string;
  /** The domain of labels, taints and annotations (`<labelDomain>/hostname`). */
  readonly labelDomain: string;
  /** The product word in identifiers: `plat` or `kube`. */
  readonly product: string;
  /** The agent's word in identifiers: `platlet` or `kubelet`. */
  readonly agentWord: string;
  readonly groups: {
    readonly certificates: string;
    readonly coordination: string;
    readonly authentication: string;
    readonly authorization: string;
    readonly events: string;
    readonly meta: string;
    /** RuntimeClass (`node.<groupDomain>`). */
    readonly node: string;
  };
  readonly signers: {
    /** The agent's client certificate (bootstrap and rotation). */
    readonly agentClient: string;
    /** The agent's serving certificate. */
    readonly agentServing: string;
    /** Any API client. */
    readonly apiClient: string;
    readonly legacyUnknown: string;
  };
  readonly labels: {
    readonly hostname: string;
    readonly os: string;
    readonly arch: string;
    readonly betaOs: string;
    readonly betaArch: string;
    readonly instanceType: string;
    readonly betaInstanceType: string;
    readonly zone: string;
    readonly region: string;
    readonly failureDomainZone: string;
    readonly failureDomainRegion: string;
    /** The prefix of node role labels (`node-role.<labelDomain>/control-plane`). */
    readonly nodeRolePrefix: string;
  };
  /** Label namespaces (a key `<ns>/x` or `<sub>.<ns>/x`) a node may set on itself freely. */
  readonly nodeSelfLabelNamespaces: readonly string[];
  readonly taints: {
    readonly notReady: string;
    readonly unreachable: string;
    readonly memoryPressure: string;
    readonly diskPressure: string;
    readonly pidPressure: string;
    readonly networkUnavailable: string;
    readonly unschedulable: string;
    readonly uninitialized: string;
  };
  /** The Secret types of image pull secrets (`<labelDomain>/dockerconfigjson`, `.../dockercfg`). */
  readonly secretTypes: {
    readonly dockerConfigJson: string;
    readonly dockercfg: string;
  };
  readonly annotations: {
    readonly configMirror: string;
    readonly configHash: string;
    readonly configSource: string;
    readonly configSeen: string;
    readonly initialEventsEnd: string;
    /** On a node: the attach/detach controller attaches and detaches its volumes. */
    readonly controllerManagedAttachDetach: string;
    /** On a node under an external cloud provider: the IPs --node-ip gave (`alpha.<l>/...`). */
    readonly providedNodeIp: string;
    /** A pod's deprecated per-container AppArmor annotation, before the container's name. */
    readonly appArmorContainerPrefix: string;
  };
  readonly namespaces: {
    readonly system: string;
    readonly public: string;
    readonly nodeLease: string;
  };
  /** Service accounts: the root CA ConfigMap, the projected volume, the token user's extra keys. */
  readonly serviceAccounts: {
    /** The ConfigMap the root CA publisher keeps in every namespace (`kube-root-ca.crt`). */
    readonly rootCaConfigMap: string;
    /** The name prefix of the projected volume admission injects (`kube-api-access-`). */
    readonly apiAccessVolumePrefix: string;
    /** UserInfo extra keys of a bound token (`authentication.<labelDomain>/pod-name` ...). */
    readonly extra: {
      readonly podName: string;
      readonly podUid: string;
      readonly nodeName: string;
      readonly nodeUid: string;
      readonly credentialId: string;
    };
  };
  /** The event source component of the agent. */
  readonly agentEventComponent: string;
  /** The agent's configuration file identity. */
  readonly agentConfig: { readonly apiVersion: string; readonly kind: string };
}

/** The well-known node labels under a label domain. */
function labelsUnder(l: string): Names['labels'] {
  return {
    hostname: `${l}/hostname`,
    os: `${l}/os`,
    arch: `${l}/arch`,
    betaOs: `beta.${l}/os`,
    betaArch: `beta.${l}/arch`,
    instanceType: `node.${l}/instance-type`,
    betaInstanceType: `beta.${l}/instance-type`,
    zone: `topology.${l}/zone`,
    region: `topology.${l}/region`,
    failureDomainZone: `failure-domain.beta.${l}/zone`,
    failureDomainRegion: `failure-domain.beta.${l}/region`,
    nodeRolePrefix: `node-role.${l}/`,
  };
}

/** The node taints under a label domain. */
function taintsUnder(l: string): Names['taints'] {
  return {
    notReady: `node.${l}/not-ready`,
    unreachable: `node.${l}/unreachable`,
    memoryPressure: `node.${l}/memory-pressure`,
    diskPressure: `node.${l}/disk-pressure`,
    pidPressure: `node.${l}/pid-pressure`,
    networkUnavailable: `node.${l}/network-unavailable`,
    unschedulable: `node.${l}/unschedulable`,
    uninitialized: `node.cloudprovider.${l}/uninitialized`,
  };
}

/** The root CA ConfigMap, the projected volume's prefix and a bound token's extra keys. */
function serviceAccountNames(product: string, l: string): Names['serviceAccounts'] {
  return {
    rootCaConfigMap: `${product}-root-ca.crt`,
    apiAccessVolumePrefix: `${product}-api-access-`,
    extra: {
      podName: `authentication.${l}/pod-name`,
      podUid: `authentication.${l}/pod-uid`,
      nodeName: `authentication.${l}/node-name`,
      nodeUid: `authentication.${l}/node-uid`,
      credentialId: `authentication.${l}/credential-id`,
    },
  };
}

function build(
  profile: PlatformProfile,
  groupDomain: string,
  labelDomain: string,
  product: string,
  agentWord: string,
  apiServer: string,
): Names {
  const l = labelDomain;
  return {
    profile,
    groupDomain,
    labelDomain,
    product,
    agentWord,
    groups: {
      certificates: `certificates.${groupDomain}`,
      coordination: `coordination.${groupDomain}`,
      authentication: `authentication.${groupDomain}`,
      authorization: `authorization.${groupDomain}`,
      events: `events.${groupDomain}`,
      node: `node.${groupDomain}`,
      meta: `meta.${groupDomain}`,
    },
    signers: {
      agentClient: `${l}/${apiServer}-client-${agentWord}`,
      agentServing: `${l}/${agentWord}-serving`,
      apiClient: `${l}/${apiServer}-client`,
      legacyUnknown: `${l}/legacy-unknown`,
    },
    labels: labelsUnder(l),
    nodeSelfLabelNamespaces: [`${agentWord}.${l}`, `node.${l}`],
    taints: taintsUnder(l),
    secretTypes: { dockerConfigJson: `${l}/dockerconfigjson`, dockercfg: `${l}/dockercfg` },
    annotations: {
      configMirror: `${l}/config.mirror`,
      configHash: `${l}/config.hash`,
      configSource: `${l}/config.source`,
      configSeen: `${l}/config.seen`,
      initialEventsEnd: `${groupDomain}/initial-events-end`,
      controllerManagedAttachDetach: `volumes.${l}/controller-managed-attach-detach`,
      providedNodeIp: `alpha.${l}/provided-node-ip`,
      appArmorContainerPrefix: `container.apparmor.security.beta.${l}/`,
    },
    namespaces: {
      system: `${product}-system`,
      public: `${product}-public`,
      nodeLease: `${product}-node-lease`,
    },
    serviceAccounts: serviceAccountNames(product, l),
    agentEventComponent: profile === 'kubernetes' ? 'kubelet' : 'nodeagent',
    agentConfig:
      profile === 'kubernetes'
        ? { apiVersion: `kubelet.config.${groupDomain}/v1beta1`, kind: 'KubeletConfiguration' }
        : { apiVersion: `nodeagent.config.${groupDomain}/v1beta1`, kind: 'NodeAgentConfiguration' },
  };
}

/**
 * The names of a profile. `platformDomain` (--platform-domain) applies to the `platform`
 * profile only; the `kubernetes` profile's names are fixed.
 */
export function namesFor(
  profile: PlatformProfile = DEFAULT_PLATFORM_PROFILE,
  platformDomain: string = DEFAULT_PLATFORM_DOMAIN,
): Names {
  if (profile === 'kubernetes')
    return build('kubernetes', K8S_GROUPS, K8S_NAMES, 'kube', 'kubelet', 'kube-apiserver');
  return build('platform', platformDomain, platformDomain, 'plat', 'platlet', 'plat-apiserver');
}

/**
 * The reference's own names (Kubernetes 1.32), for what stays the reference's under every profile.
 */
export const REFERENCE_NAMES: Names = namesFor('kubernetes');

/**
 * Wire identifiers standard clients (kubectl, client-go) speak under every profile: the protobuf
 * media type, the SPDY subprotocols of exec/attach and port forwarding, the reference's meta
 * group a Table request may name, the groups of the image credential provider plugins' files
 * and exec protocol.
 */
export const WIRE_NAMES = {
  protobufMediaType: 'application/vnd.kubernetes.protobuf',
  execProtocols: [
    `v4.channel.${K8S_GROUPS}`,
    `v3.channel.${K8S_GROUPS}`,
    `v2.channel.${K8S_GROUPS}`,
    `channel.${K8S_GROUPS}`,
  ],
  portForwardProtocols: [`portforward.${K8S_GROUPS}`],
  referenceMetaGroup: `meta.${K8S_GROUPS}`,
  /** The image credential provider's config file group and its plugins' exec protocol group. */
  credentialProviderConfigGroup: `kubelet.config.${K8S_GROUPS}`,
  credentialProviderPluginGroup: `credentialprovider.kubelet.${K8S_GROUPS}`,
  /**
   * The prefix of the options the agent adds for FlexVolume drivers (kubernetes.io/fsType, ...).
   */
  flexVolumeOptionPrefix: `${K8S_NAMES}/`,
  /** The private claim of a service-account token (namespace, serviceaccount, pod, node). */
  serviceAccountTokenClaim: K8S_NAMES,
  /** Where a pod's service account credentials are mounted: in-cluster clients read this path. */
  serviceAccountMountPath: `/var/run/secrets/${K8S_NAMES}/serviceaccount`,
} as const;

export function isPlatformProfile(v: string): v is PlatformProfile {
  return isOneOf(PLATFORM_PROFILES, v);
}

/** The error text for an unknown profile, naming where it came from and what is accepted. */
export function unknownProfileMessage(value: string, where: string): string {
  return (
    `invalid value ${JSON.stringify(value)} for ${where}: the accepted values are ` +
    PLATFORM_PROFILES.join(', ')
  );
}

/** A label key's namespace is `ns` or a subdomain of it. */
export function inLabelNamespace(key: string, ns: string): boolean {
  const slash = key.indexOf('/');
  if (slash < 0) return false;
  const prefix = key.slice(0, slash);
  return prefix === ns || prefix.endsWith(`.${ns}`);
}
