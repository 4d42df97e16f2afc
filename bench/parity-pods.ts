// The pods the kubelet parity check runs on each node program: one with the features a real
// cluster's pods use (init container, env from fields, ConfigMaps and Secrets, the downward API,
// projected and secret volumes, probes, a postStart hook, a security context) and one per way a
// pod commonly goes wrong (completes, fails, crash-loops, cannot pull, is never ready, fails in
// an init container, cannot start its command). Their main container prints what it sees (id,
// environment, volume listings, mounts, resolv.conf) for the logs to be compared.
import { POD_IMAGE } from './side-by-side-pods.js';

type Spec = Record<string, unknown>;

const c = (name: string, extra: Spec = {}): Spec => ({ name, image: POD_IMAGE, ...extra });

/** What the feature pod's main container prints, then it sleeps. */
const LOOK = [
  'sleep 2; echo ==id; id; echo ==env; env | sort',
  'echo ==ls; for d in /etc/cm /etc/sec /etc/dapi /etc/proj /var/run/secrets/kubernetes.io/serviceaccount /work; do echo "-- $d"; ls -la $d | sed 1d | awk \'{print $1, $3, $4, $9, $10, $11}\'; done',
  'echo ==files; cat /etc/dapi/labels; echo; cat /etc/dapi/cpu; echo; cat /work/ps; cat /etc/sec/s; echo',
  'echo ==hosts; cat /etc/hosts; echo ==resolv; cat /etc/resolv.conf',
  'echo ==mounts; grep -E " /(etc|work|var/run|dev/termination)" /proc/self/mounts | awk \'{print $2, $3, $4}\' | sed -E "s/,?(size|nr_inodes|inode64|mode|uid|gid)=[^,]*//g" | sort',
  'echo ==status; grep -E "^(Cap|NoNewPrivs|Seccomp|Groups)" /proc/self/status; echo ==hostname; hostname',
  'echo ==end; sleep 3600',
].join('; ');

const FEATURES: Spec = {
  securityContext: { runAsUser: 1000, runAsGroup: 3000, fsGroup: 2000, supplementalGroups: [4000] },
  initContainers: [
    c('init', {
      command: ['sh', '-c', 'echo init > /work/i'],
      volumeMounts: [{ name: 'work', mountPath: '/work' }],
    }),
  ],
  containers: [
    c('main', {
      command: ['sh', '-c', LOOK],
      env: [
        { name: 'POD_IP', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } },
        { name: 'NODE', valueFrom: { fieldRef: { fieldPath: 'spec.nodeName' } } },
        {
          name: 'CPU_LIMIT',
          valueFrom: { resourceFieldRef: { resource: 'limits.cpu', divisor: '1m' } },
        },
        { name: 'CMK', valueFrom: { configMapKeyRef: { name: 'cm', key: 'k' } } },
        { name: 'SK', valueFrom: { secretKeyRef: { name: 'sec', key: 's' } } },
        { name: 'COMPOSED', value: '$(NODE)-x' },
      ],
      envFrom: [{ configMapRef: { name: 'cm' }, prefix: 'CM_' }],
      resources: {
        requests: { cpu: '10m', memory: '16Mi' },
        limits: { cpu: '100m', memory: '64Mi' },
      },
      readinessProbe: { exec: { command: ['true'] }, periodSeconds: 2 },
      livenessProbe: { exec: { command: ['true'] }, periodSeconds: 5 },
      lifecycle: { postStart: { exec: { command: ['sh', '-c', 'echo started > /work/ps'] } } },
      volumeMounts: [
        { name: 'work', mountPath: '/work' },
        { name: 'cm', mountPath: '/etc/cm' },
        { name: 'sec', mountPath: '/etc/sec' },
        { name: 'dapi', mountPath: '/etc/dapi' },
        { name: 'proj', mountPath: '/etc/proj' },
      ],
    }),
  ],
  volumes: [
    { name: 'work', emptyDir: {} },
    { name: 'cm', configMap: { name: 'cm' } },
    { name: 'sec', secret: { secretName: 'sec', defaultMode: 0o400 } },
    {
      name: 'dapi',
      downwardAPI: {
        items: [
          { path: 'labels', fieldRef: { fieldPath: 'metadata.labels' } },
          { path: 'cpu', resourceFieldRef: { containerName: 'main', resource: 'requests.cpu' } },
        ],
      },
    },
    {
      name: 'proj',
      projected: {
        sources: [
          { configMap: { name: 'cm', items: [{ key: 'k', path: 'k' }] } },
          { secret: { name: 'sec' } },
        ],
      },
    },
  ],
};

/** The pods by short name; `features` is the one whose logs are compared. */
export const PARITY_PODS: Readonly<Record<string, Spec>> = {
  features: FEATURES,
  done: { restartPolicy: 'Never', containers: [c('c', { command: ['sh', '-c', 'echo bye'] })] },
  fail: {
    restartPolicy: 'Never',
    containers: [
      c('c', {
        command: ['sh', '-c', 'echo oops; exit 3'],
        terminationMessagePolicy: 'FallbackToLogsOnError',
      }),
    ],
  },
  crash: { containers: [c('c', { command: ['sh', '-c', 'echo crash; exit 1'] })] },
  nopull: { containers: [{ name: 'c', image: 'registry.invalid/nope:1' }] },
  unready: {
    containers: [
      c('c', {
        command: ['sleep', '3600'],
        readinessProbe: { exec: { command: ['false'] }, periodSeconds: 2 },
      }),
    ],
  },
  initfail: {
    restartPolicy: 'Never',
    initContainers: [c('i', { command: ['sh', '-c', 'exit 2'] })],
    containers: [c('c', { command: ['sleep', '3600'] })],
  },
  badcmd: { restartPolicy: 'Never', containers: [c('c', { command: ['/no/such/binary'] })] },
};

/** The objects the pods read, in the test namespace. */
export const PARITY_OBJECTS: readonly [string, Spec][] = [
  [
    'configmaps',
    { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm' }, data: { k: 'v' } },
  ],
  [
    'secrets',
    { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'sec' }, stringData: { s: 'hidden' } },
  ],
];

/** A pod of `spec` bound to `node`, named `<short>-<program>`. */
export function parityPod(short: string, program: string, node: string): Spec {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: `${short}-${program}`, labels: { app: 'parity' } },
    spec: {
      nodeName: node,
      tolerations: [{ operator: 'Exists' }],
      terminationGracePeriodSeconds: 2,
      ...PARITY_PODS[short],
    },
  };
}
