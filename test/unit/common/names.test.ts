// The names table: under kubernetes, exactly the reference's names (Kubernetes 1.32, written
// here from ../shared/reference/kubernetes-1.32/README.md, not derived from the code); under
// platform, today's names from --platform-domain.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  REFERENCE_NAMES,
  WIRE_NAMES,
  namesFor,
  isPlatformProfile,
  unknownProfileMessage,
} from '../../../src/common/names.js';

test('kubernetes profile: the reference names', () => {
  const n = namesFor('kubernetes', 'ignored.example');
  assert.deepEqual(n.groups, {
    certificates: 'certificates.k8s.io',
    coordination: 'coordination.k8s.io',
    authentication: 'authentication.k8s.io',
    authorization: 'authorization.k8s.io',
    events: 'events.k8s.io',
    meta: 'meta.k8s.io',
    node: 'node.k8s.io',
  });
  assert.deepEqual(n.signers, {
    agentClient: 'kubernetes.io/kube-apiserver-client-kubelet',
    agentServing: 'kubernetes.io/kubelet-serving',
    apiClient: 'kubernetes.io/kube-apiserver-client',
    legacyUnknown: 'kubernetes.io/legacy-unknown',
  });
  assert.deepEqual(n.labels, {
    hostname: 'kubernetes.io/hostname',
    os: 'kubernetes.io/os',
    arch: 'kubernetes.io/arch',
    betaOs: 'beta.kubernetes.io/os',
    betaArch: 'beta.kubernetes.io/arch',
    instanceType: 'node.kubernetes.io/instance-type',
    betaInstanceType: 'beta.kubernetes.io/instance-type',
    zone: 'topology.kubernetes.io/zone',
    region: 'topology.kubernetes.io/region',
    failureDomainZone: 'failure-domain.beta.kubernetes.io/zone',
    failureDomainRegion: 'failure-domain.beta.kubernetes.io/region',
    nodeRolePrefix: 'node-role.kubernetes.io/',
  });
  assert.deepEqual(n.nodeSelfLabelNamespaces, ['kubelet.kubernetes.io', 'node.kubernetes.io']);
  assert.deepEqual(n.taints, {
    notReady: 'node.kubernetes.io/not-ready',
    unreachable: 'node.kubernetes.io/unreachable',
    memoryPressure: 'node.kubernetes.io/memory-pressure',
    diskPressure: 'node.kubernetes.io/disk-pressure',
    pidPressure: 'node.kubernetes.io/pid-pressure',
    networkUnavailable: 'node.kubernetes.io/network-unavailable',
    unschedulable: 'node.kubernetes.io/unschedulable',
    uninitialized: 'node.cloudprovider.kubernetes.io/uninitialized',
  });
  assert.deepEqual(n.annotations, {
    configMirror: 'kubernetes.io/config.mirror',
    configHash: 'kubernetes.io/config.hash',
    configSource: 'kubernetes.io/config.source',
    configSeen: 'kubernetes.io/config.seen',
    initialEventsEnd: 'k8s.io/initial-events-end',
    controllerManagedAttachDetach: 'volumes.kubernetes.io/controller-managed-attach-detach',
    providedNodeIp: 'alpha.kubernetes.io/provided-node-ip',
    appArmorContainerPrefix: 'container.apparmor.security.beta.kubernetes.io/',
  });
  assert.deepEqual(n.namespaces, {
    system: 'kube-system',
    public: 'kube-public',
    nodeLease: 'kube-node-lease',
  });
  assert.equal(n.agentEventComponent, 'kubelet');
  assert.deepEqual(n.agentConfig, {
    apiVersion: 'kubelet.config.k8s.io/v1beta1',
    kind: 'KubeletConfiguration',
  });
});

test('platform profile: everything from --platform-domain and the word plat', () => {
  const n = namesFor('platform', 'example.org');
  assert.equal(n.groups.certificates, 'certificates.example.org');
  assert.equal(n.signers.agentClient, 'example.org/plat-apiserver-client-platlet');
  assert.equal(n.signers.agentServing, 'example.org/platlet-serving');
  assert.equal(n.signers.apiClient, 'example.org/plat-apiserver-client');
  assert.equal(n.labels.hostname, 'example.org/hostname');
  assert.equal(n.labels.nodeRolePrefix, 'node-role.example.org/');
  assert.equal(n.signers.legacyUnknown, 'example.org/legacy-unknown');
  assert.equal(n.taints.unreachable, 'node.example.org/unreachable');
  assert.equal(n.annotations.configMirror, 'example.org/config.mirror');
  assert.equal(
    n.annotations.controllerManagedAttachDetach,
    'volumes.example.org/controller-managed-attach-detach',
  );
  assert.equal(n.annotations.providedNodeIp, 'alpha.example.org/provided-node-ip');
  assert.equal(
    n.annotations.appArmorContainerPrefix,
    'container.apparmor.security.beta.example.org/',
  );
  assert.deepEqual(n.namespaces, {
    system: 'plat-system',
    public: 'plat-public',
    nodeLease: 'plat-node-lease',
  });
  assert.equal(n.agentEventComponent, 'nodeagent');
  assert.deepEqual(n.agentConfig, {
    apiVersion: 'nodeagent.config.example.org/v1beta1',
    kind: 'NodeAgentConfiguration',
  });
  assert.equal(namesFor().groups.certificates, 'certificates.platform.io');
});

test('an unknown profile names where it came from and the accepted values', () => {
  assert.equal(isPlatformProfile('kubernetes'), true);
  assert.equal(isPlatformProfile('Kubernetes'), false);
  assert.equal(
    unknownProfileMessage('k8s', '--platform-profile'),
    'invalid value "k8s" for --platform-profile: the accepted values are platform, kubernetes',
  );
});

test("the reference's names and the wire identifiers every profile speaks, as kubectl 1.32 and kube-apiserver spell them", () => {
  assert.equal(REFERENCE_NAMES.profile, 'kubernetes');
  assert.equal(REFERENCE_NAMES.signers.legacyUnknown, 'kubernetes.io/legacy-unknown');
  assert.deepEqual(WIRE_NAMES, {
    protobufMediaType: 'application/vnd.kubernetes.protobuf',
    execProtocols: [
      'v4.channel.k8s.io',
      'v3.channel.k8s.io',
      'v2.channel.k8s.io',
      'channel.k8s.io',
    ],
    portForwardProtocols: ['portforward.k8s.io'],
    referenceMetaGroup: 'meta.k8s.io',
    credentialProviderConfigGroup: 'kubelet.config.k8s.io',
    credentialProviderPluginGroup: 'credentialprovider.kubelet.k8s.io',
    // the reference's pkg/volume/flexvolume option keys (kubernetes.io/fsType, ...), which drivers
    // read
    flexVolumeOptionPrefix: 'kubernetes.io/',
    // the reference's service-account token claim and the path in-cluster clients read it from
    serviceAccountTokenClaim: 'kubernetes.io',
    serviceAccountMountPath: '/var/run/secrets/kubernetes.io/serviceaccount',
  });
});
