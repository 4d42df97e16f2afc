// The pod's hostname, domain and /etc/hosts, with the reference kubelet's exact file text
// (kubelet_pods.go managedHostsFileContent, nodeHostsFileContent; util.GetNodenameForKernel).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Pod } from '../../../../../src/agent/pod/types.js';
import {
  hostNetworkHostsContent,
  kernelHostname,
  managedHostsContent,
  mountsHostsFile,
  podHostnameAndDomain,
} from '../../../../../src/agent/runtime/settings/pod-hosts.js';

function pod(spec: Partial<Pod['spec']>, name = 'web-0'): Pod {
  return {
    metadata: { name, namespace: 'shop', uid: 'u1' },
    spec: { containers: [{ name: 'c' }], ...spec },
  };
}

test('the managed hosts file: the reference header, localhost lines, the pod FQDN, then HostAliases', () => {
  const p = pod({
    hostname: 'db',
    subdomain: 'backends',
    hostAliases: [
      { ip: '123.45.67.89', hostnames: ['foo.local', 'bar.local'] },
      { ip: '10.1.2.3', hostnames: ['foo.remote'] },
    ],
  });
  const { hostname, domain } = podHostnameAndDomain(p, 'cluster.local');
  assert.equal(hostname, 'db');
  assert.equal(domain, 'backends.shop.svc.cluster.local');
  assert.equal(
    managedHostsContent(['10.88.0.7'], hostname, domain, p),
    [
      '# Kubernetes-managed hosts file.',
      '127.0.0.1\tlocalhost',
      '::1\tlocalhost ip6-localhost ip6-loopback',
      'fe00::0\tip6-localnet',
      'fe00::0\tip6-mcastprefix',
      'fe00::1\tip6-allnodes',
      'fe00::2\tip6-allrouters',
      '10.88.0.7\tdb.backends.shop.svc.cluster.local\tdb',
      '',
      '# Entries added by HostAliases.',
      '123.45.67.89\tfoo.local\tbar.local',
      '10.1.2.3\tfoo.remote',
      '',
    ].join('\n'),
  );
  assert.equal(
    managedHostsContent(['10.88.0.7'], 'web-0', '', pod({})).split('\n').at(-2),
    '10.88.0.7\tweb-0',
  );
});

test('hostNetwork: the node file under the host-network header, aliases after it', () => {
  const p = pod({ hostNetwork: true, hostAliases: [{ ip: '1.2.3.4', hostnames: ['x'] }] });
  assert.equal(
    hostNetworkHostsContent('127.0.0.1 localhost\n', p),
    '# Kubernetes-managed hosts file (host network).\n127.0.0.1 localhost\n\n# Entries added by HostAliases.\n1.2.3.4\tx\n',
  );
});

test('hostname: the pod name cut to 63 characters without a trailing - or .; setHostnameAsFQDN up to 64', () => {
  const long = `${'a'.repeat(62)}-bbb`;
  assert.equal(podHostnameAndDomain(pod({}, long), 'cluster.local').hostname, 'a'.repeat(62));
  assert.equal(kernelHostname('db', 'backends.shop.svc.cluster.local', false), 'db');
  assert.equal(
    kernelHostname('db', 'backends.shop.svc.cluster.local', true),
    'db.backends.shop.svc.cluster.local',
  );
  const domain = `s.shop.svc.${'c'.repeat(60)}`;
  assert.throws(
    () => kernelHostname('db', domain, true),
    new RegExp(
      `^RuntimeError: failed to construct FQDN from pod hostname and cluster domain, FQDN db\\.${domain.replace(/\./g, '\\.')} is too long \\(64 characters is the max, 74 characters requested\\)$`,
    ),
  );
  assert.throws(
    () => podHostnameAndDomain(pod({ hostname: 'Bad_Name' }), 'cluster.local'),
    /^RuntimeError: pod Hostname "Bad_Name" is not a valid DNS label: /,
  );
});

test('a container mounting a volume at /etc/hosts keeps it', () => {
  assert.equal(mountsHostsFile({ name: 'c' }), true);
  assert.equal(
    mountsHostsFile({ name: 'c', volumeMounts: [{ name: 'v', mountPath: '/etc/hosts' }] }),
    false,
  );
});
