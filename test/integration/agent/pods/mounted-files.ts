// What the Docker and CRI mount tests share: the pods whose containers write termination messages
// (root at the default path, non-root at a custom one, a failed log with FallbackToLogsOnError),
// the hosts pod's naming fields, and the managed /etc/hosts such a pod's container prints
// followed by its hostname (the reference's file, written out here rather than computed).
export const BUSYBOX = { image: 'busybox:local', imagePullPolicy: 'IfNotPresent' } as const;

export const TERMINATION_CONTAINERS = [
  { name: 'file', ...BUSYBOX, command: ['sh', '-c', 'printf DONE > /dev/termination-log'] },
  {
    name: 'custom',
    ...BUSYBOX,
    command: ['sh', '-c', 'printf DONE > /dev/termination-custom-log'],
    terminationMessagePath: '/dev/termination-custom-log',
    securityContext: { runAsUser: 1000 },
  },
  {
    name: 'fallback',
    ...BUSYBOX,
    command: ['sh', '-c', 'echo DONE; exit 1'],
    terminationMessagePolicy: 'FallbackToLogsOnError',
  },
];

/** The hosts pod's hostname, subdomain and aliases (namespace default). */
export const HOSTS_POD_NAMING = {
  hostname: 'db',
  subdomain: 'backends',
  hostAliases: [{ ip: '123.45.67.89', hostnames: ['foo.local', 'bar.local'] }],
};

/** What `cat /etc/hosts; hostname` prints in the hosts pod whose address is `podIP`. */
export function printedHostsAndName(podIP: string): string[] {
  return [
    '# Kubernetes-managed hosts file.',
    '127.0.0.1\tlocalhost',
    '::1\tlocalhost ip6-localhost ip6-loopback',
    'fe00::0\tip6-localnet',
    'fe00::0\tip6-mcastprefix',
    'fe00::1\tip6-allnodes',
    'fe00::2\tip6-allrouters',
    `${podIP}\tdb.backends.default.svc.cluster.local\tdb`,
    '',
    '# Entries added by HostAliases.',
    '123.45.67.89\tfoo.local\tbar.local',
    'db',
  ];
}
