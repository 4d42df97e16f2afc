import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  containerCreateOptions,
  demuxDockerStream,
  sandboxCreateOptions,
} from '../../../../src/agent/runtime/docker/convert.js';
import { defaultPullPolicy, LABELS } from '../../../../src/agent/runtime/types.js';
import type { Pod } from '../../../../src/agent/pod/types.js';

const pod: Pod = {
  metadata: { name: 'web', namespace: 'default', uid: '0123456789abcdef0123' },
  spec: {
    terminationGracePeriodSeconds: 9,
    volumes: [{ name: 'data', emptyDir: {} }],
    containers: [
      {
        name: 'c',
        image: 'busybox:local',
        command: ['httpd'],
        args: ['-f'],
        env: [{ name: 'A', value: '1' }],
        ports: [{ containerPort: 80, hostPort: 8080 }],
        resources: { limits: { memory: '64Mi', cpu: '500m' }, requests: { cpu: '250m' } },
        volumeMounts: [{ name: 'data', mountPath: '/data', readOnly: true }],
        securityContext: { runAsUser: 1000, runAsGroup: 1000 },
      },
    ],
  },
};

test('the sandbox holds the network namespace and publishes host ports on 127.0.0.1', () => {
  const o = sandboxCreateOptions(pod, 2, 'busybox:local', {});
  assert.equal(o.HostConfig?.Init, true);
  assert.equal(o.HostConfig?.NetworkMode, 'bridge');
  assert.deepEqual(o.HostConfig?.PortBindings, {
    '80/tcp': [{ HostIp: '127.0.0.1', HostPort: '8080' }],
  });
  assert.equal(o.Labels?.[LABELS.kind], 'sandbox');
  assert.equal(o.Labels?.[LABELS.podUid], pod.metadata.uid);
  assert.equal(o.Labels?.[LABELS.attempt], '2');
  const host = sandboxCreateOptions(
    { ...pod, spec: { ...pod.spec, hostNetwork: true } },
    0,
    'busybox:local',
    {},
  );
  assert.equal(host.HostConfig?.NetworkMode, 'host');
  assert.deepEqual(host.HostConfig?.PortBindings, {});
});

test('app containers join the sandbox, with labels, limits, mounts and user', () => {
  const o = containerCreateOptions({
    pod,
    container: pod.spec.containers[0]!,
    kind: 'app',
    attempt: 3,
    specHash: 'abc',
    sandboxId: 'sb1',
    volumePaths: { data: '/var/lib/x/data' },
    logOpts: { 'max-size': '1024' },
    nodeName: 'n1',
  });
  assert.equal(
    o.Labels?.[LABELS.node],
    'n1',
    'owned by its node: agents sharing an engine leave each other alone',
  );
  assert.equal(o.HostConfig?.NetworkMode, 'container:sb1');
  assert.equal(o.HostConfig?.Init, true);
  assert.equal(o.HostConfig?.Memory, 64 * 1024 * 1024);
  // the reference's CFS quota and period, not NanoCpus: 500m over 100000us is 50000us
  assert.equal(o.HostConfig?.NanoCpus, undefined);
  assert.equal(o.HostConfig?.CpuQuota, 50000);
  assert.equal(o.HostConfig?.CpuPeriod, 100000);
  assert.equal(o.HostConfig?.CpuShares, 256);
  assert.deepEqual(o.HostConfig?.Binds, ['/var/lib/x/data:/data:ro']);
  assert.deepEqual(o.Entrypoint, ['httpd']);
  assert.deepEqual(o.Cmd, ['-f']);
  assert.deepEqual(o.Env, ['A=1']);
  assert.equal(o.User, '1000:1000');
  assert.deepEqual(
    [
      o.Labels?.[LABELS.containerName],
      o.Labels?.[LABELS.attempt],
      o.Labels?.[LABELS.specHash],
      o.Labels?.[LABELS.sandboxId],
      o.Labels?.[LABELS.grace],
    ],
    ['c', '3', 'abc', 'sb1', '9'],
  );
});

test('default pull policy and stream demultiplexing', () => {
  assert.equal(defaultPullPolicy('busybox'), 'Always');
  assert.equal(defaultPullPolicy('busybox:latest'), 'Always');
  assert.equal(defaultPullPolicy('busybox:local'), 'IfNotPresent');
  assert.equal(defaultPullPolicy('registry:5000/busybox'), 'Always');
  assert.equal(defaultPullPolicy('x@sha256:abc'), 'IfNotPresent');
  const frame = (type: number, s: string): Buffer => {
    const h = Buffer.alloc(8);
    h[0] = type;
    h.writeUInt32BE(Buffer.byteLength(s), 4);
    return Buffer.concat([h, Buffer.from(s)]);
  };
  assert.equal(
    demuxDockerStream(Buffer.concat([frame(1, 'out\n'), frame(2, 'err\n')])),
    'out\nerr\n',
  );
  assert.equal(demuxDockerStream(Buffer.from('plain text')), 'plain text');
});

test('hostPID, hostIPC and shareProcessNamespace: the host namespaces or the sandbox PID namespace; the termination message file and /etc/hosts bound', () => {
  const input = (spec: Partial<Pod['spec']>) => ({
    pod: { ...pod, spec: { ...pod.spec, ...spec } },
    container: { name: 'c', image: 'busybox:local', terminationMessagePath: '/dev/custom-log' },
    kind: 'app' as const,
    attempt: 0,
    specHash: 'abc',
    sandboxId: 'sb1',
    volumePaths: {},
    logOpts: {},
    terminationMessageFile: '/var/lib/x/pods/u/containers/c/0badf00d',
    hostsPath: '/var/lib/x/pods/u/etc-hosts',
  });
  const shared = containerCreateOptions(input({ shareProcessNamespace: true }));
  assert.equal(shared.HostConfig?.PidMode, 'container:sb1');
  assert.equal(shared.HostConfig?.IpcMode, undefined);
  assert.deepEqual(shared.HostConfig?.Binds, [
    '/var/lib/x/pods/u/etc-hosts:/etc/hosts',
    '/var/lib/x/pods/u/containers/c/0badf00d:/dev/custom-log',
  ]);
  assert.equal(
    shared.Labels?.[LABELS.terminationMessageFile],
    '/var/lib/x/pods/u/containers/c/0badf00d',
  );
  const host = containerCreateOptions(input({ hostPID: true, hostIPC: true }));
  assert.equal(host.HostConfig?.PidMode, 'host');
  assert.equal(host.HostConfig?.IpcMode, 'host');
  const sb = sandboxCreateOptions(
    { ...pod, spec: { ...pod.spec, hostPID: true, hostIPC: true } },
    0,
    'busybox:local',
    {},
    undefined,
    'db.backends.default.svc.cluster.local',
  );
  assert.equal(sb.HostConfig?.PidMode, 'host');
  assert.equal(sb.HostConfig?.IpcMode, 'host');
  assert.equal(sb.Hostname, 'db.backends.default.svc.cluster.local');
});

test('volume mounts from the volume manager: binds with ro and the propagation (None rprivate, the default, HostToContainer rslave, Bidirectional rshared)', () => {
  const o = containerCreateOptions({
    pod,
    container: pod.spec.containers[0]!,
    kind: 'app',
    attempt: 0,
    specHash: 'abc',
    sandboxId: 'sb1',
    volumePaths: { data: '/var/lib/x/data' },
    mounts: [
      {
        name: 'a',
        hostPath: '/h/a',
        containerPath: '/a',
        readOnly: false,
        propagation: 'rprivate',
      },
      { name: 'b', hostPath: '/h/b', containerPath: '/b', readOnly: true, propagation: 'rslave' },
      { name: 'c', hostPath: '/h/c', containerPath: '/c', readOnly: false, propagation: 'rshared' },
    ],
    logOpts: {},
  });
  assert.deepEqual(o.HostConfig?.Binds, ['/h/a:/a', '/h/b:/b:ro,rslave', '/h/c:/c:rshared']);
});
