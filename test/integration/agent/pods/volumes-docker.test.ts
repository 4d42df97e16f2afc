// Pod volumes on a real Docker engine against a real plat-apiserver, the agent reading as its
// node: configMap, secret, downwardAPI, projected and emptyDir volumes seen from inside the
// container with the reference's values (contents, modes with fsGroup, tmpfs with its size,
// read-only mounts, subPath, subPathExpr); a ConfigMap update reaches the running container (a
// subPath mount keeps the old content, as the reference's); a missing ConfigMap leaves the pod
// Pending with the reference's FailedMount event until it exists; a hostPath of the wrong type
// fails with the reference's message; deleting the pod unmounts its tmpfs volumes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { systemMounter } from '../../../../src/agent/volume/mounts.js';
import { waitFor } from './agent-harness.js';
import { dockerRuntime, dockerSkipReason } from './runtimes.js';
import { volumeScene, type VolumeScene } from './volume-scene.js';

const skip = await dockerSkipReason();

/** Runs `sh -c script` in the pod's running container; answers its output. */
async function inPod(s: VolumeScene, pod: string, script: string): Promise<string> {
  const rt = dockerRuntime.make(s.root);
  const c = (await rt.listContainers({})).find(
    (x) => x.podName === pod && x.kind === 'app' && x.state === 'running',
  );
  if (c === undefined) throw new Error(`no running container of ${pod}`);
  const r = await rt.exec(c.id, ['sh', '-c', script], 20_000);
  return r.output.trim();
}

const b64 = (s: string): string => Buffer.from(s).toString('base64');

function volumePod(name: string, node: string): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, labels: { key1: 'value1', key2: 'value2' } },
    spec: {
      nodeName: node,
      terminationGracePeriodSeconds: 1,
      securityContext: { fsGroup: 1234 },
      containers: [
        {
          name: 'c',
          image: 'busybox:local',
          command: ['sleep', '3600'],
          env: [{ name: 'SUB', value: 'by-expr' }],
          volumeMounts: [
            { name: 'cfg', mountPath: '/etc/cfg' },
            { name: 'cfgitems', mountPath: '/etc/cfgitems' },
            { name: 'cfg', mountPath: '/etc/one', subPath: 'data-1' },
            { name: 'sec', mountPath: '/etc/sec' },
            { name: 'dapi', mountPath: '/etc/dapi' },
            { name: 'proj', mountPath: '/etc/proj' },
            { name: 'mem', mountPath: '/mem' },
            { name: 'scratch', mountPath: '/scratch' },
            { name: 'scratch', mountPath: '/sub', subPathExpr: '$(SUB)' },
          ],
        },
      ],
      volumes: [
        { name: 'cfg', configMap: { name: 'cm1' } },
        {
          name: 'cfgitems',
          configMap: {
            name: 'cm1',
            items: [{ key: 'data-2', path: 'path/to/data-2', mode: 0o400 }],
          },
        },
        { name: 'sec', secret: { secretName: 's1', defaultMode: 0o400 } },
        {
          name: 'dapi',
          downwardAPI: {
            items: [
              { path: 'podname', fieldRef: { fieldPath: 'metadata.name' } },
              { path: 'labels', fieldRef: { fieldPath: 'metadata.labels' } },
            ],
          },
        },
        {
          name: 'proj',
          projected: {
            sources: [
              { configMap: { name: 'cm1', items: [{ key: 'data-1', path: 'cm-data' }] } },
              { secret: { name: 's1' } },
              {
                downwardAPI: {
                  items: [{ path: 'ns', fieldRef: { fieldPath: 'metadata.namespace' } }],
                },
              },
            ],
          },
        },
        { name: 'mem', emptyDir: { medium: 'Memory', sizeLimit: '64Mi' } },
        { name: 'scratch', emptyDir: {} },
      ],
    },
  };
}

test(
  'volumes on Docker: configMap, secret, downwardAPI, projected, emptyDir (Memory and disk), subPath and subPathExpr as the reference shows them; a ConfigMap update reaches the running container',
  { skip, timeout: 180_000 },
  async (t) => {
    const s = await volumeScene(t, 'docker');
    await s.api.request('POST', '/api/v1/namespaces/default/configmaps', {
      body: { metadata: { name: 'cm1' }, data: { 'data-1': 'value-1', 'data-2': 'value-2' } },
    });
    await s.api.request('POST', '/api/v1/namespaces/default/secrets', {
      body: { metadata: { name: 's1' }, data: { 'data-1': b64('secret-1') } },
    });
    const name = `${s.node}-all`;
    await s.createPod(volumePod(name, s.node));
    s.start();
    await s.phase(name, 'Running', 90_000);
    const out = async (script: string): Promise<string> => inPod(s, name, script);

    assert.equal(await out('cat /etc/cfg/data-1'), 'value-1');
    // the atomic writer's layout, as the reference's
    assert.equal(await out('readlink /etc/cfg/data-1'), '..data/data-1');
    assert.match(
      await out('readlink /etc/cfg/..data'),
      /^\.\.\d{4}_\d\d_\d\d_\d\d_\d\d_\d\d\.\d+$/,
    );
    // items: key -> path with its own mode; fsGroup adds g+r (the reference's -r--r-----)
    assert.equal(await out('cat /etc/cfgitems/path/to/data-2'), 'value-2');
    assert.equal(await out('stat -L -c "%A %g" /etc/cfgitems/path/to/data-2'), '-r--r----- 1234');
    assert.equal(await out('stat -L -c "%A %g" /etc/sec/data-1'), '-r--r----- 1234');
    assert.equal(await out('cat /etc/sec/data-1'), 'secret-1');
    // default mode 0644 (420)
    assert.equal(await out('stat -L -c %A /etc/cfg/data-1'), '-rw-r--r--');
    assert.equal(await out('cat /etc/one'), 'value-1');
    assert.equal(await out('cat /etc/dapi/podname'), name);
    assert.equal(await out('cat /etc/dapi/labels'), 'key1="value1"\nkey2="value2"');
    assert.equal(
      await out('cat /etc/proj/cm-data; echo; cat /etc/proj/data-1; echo; cat /etc/proj/ns'),
      'value-1\nsecret-1\ndefault',
    );
    // configMap, secret, downwardAPI and projected volumes are mounted read-only
    assert.match(await out('touch /etc/cfg/x 2>&1; echo rc=$?'), /Read-only file system\s+rc=1$/);
    // secret, downwardAPI and projected volumes and emptyDir medium Memory are tmpfs
    const mounts = await out('cat /proc/mounts');
    for (const dir of ['/etc/sec', '/etc/dapi', '/etc/proj', '/mem'])
      assert.match(mounts, new RegExp(`^tmpfs ${dir} tmpfs `, 'm'), dir);
    assert.match(mounts, /^tmpfs \/mem tmpfs \S*size=65536k/m);
    assert.doesNotMatch(mounts, /^tmpfs \/scratch /m);
    // emptyDir: 0777 (tmpfs root 1777), with fsGroup setgid and the group
    assert.equal(await out('stat -c "%A %g" /scratch'), 'drwxrwsrwx 1234');
    assert.equal(await out('stat -c "%A %g" /mem'), 'drwxrwsrwt 1234');
    // subPathExpr from the container's env: a directory of the volume
    assert.equal(await out('echo hi > /sub/f && cat /scratch/by-expr/f'), 'hi');

    await s.api.request('PUT', '/api/v1/namespaces/default/configmaps/cm1', {
      body: {
        metadata: { name: 'cm1' },
        data: { 'data-1': 'value-1-updated', 'data-3': 'value-3' },
      },
    });
    await waitFor(
      'the ConfigMap update in the running container',
      async () => (await out('cat /etc/cfg/data-1')) === 'value-1-updated',
      60_000,
      500,
    );
    assert.equal(await out('cat /etc/cfg/data-3'), 'value-3');
    assert.equal(await out('ls /etc/cfg'), 'data-1\ndata-3', 'data-2 went with the update');
    assert.equal(await out('cat /etc/proj/cm-data'), 'value-1-updated');
    // a subPath mount is bound to the file it resolved to, as the reference's: no update
    assert.equal(await out('cat /etc/one'), 'value-1');

    // deleting the pod unmounts its tmpfs volumes
    await s.api.request('DELETE', `/api/v1/namespaces/default/pods/${name}`);
    await waitFor(
      'the pod gone',
      async () =>
        (await s.api.request('GET', `/api/v1/namespaces/default/pods/${name}`)).status === 404,
      60_000,
      200,
    );
    await waitFor(
      'no mount left under the agent root',
      async () => (await systemMounter().mountsUnder(s.root)).length === 0,
      30_000,
      200,
    );
  },
);

test(
  'volumes on Docker: a missing ConfigMap keeps the pod Pending with the reference FailedMount event until it exists; a hostPath of the wrong type fails with the reference message',
  { skip, timeout: 180_000 },
  async (t) => {
    const s = await volumeScene(t, 'docker');
    const name = `${s.node}-wait`;
    const file = join(s.root, '..', 'a-file');
    await writeFile(file, '');
    const pod = (volumes: unknown[]): Record<string, unknown> => ({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: volumes.length === 1 ? name : `${name}-hp` },
      spec: {
        nodeName: s.node,
        terminationGracePeriodSeconds: 1,
        containers: [
          {
            name: 'c',
            image: 'busybox:local',
            command: ['sleep', '3600'],
            volumeMounts: [{ name: 'v', mountPath: '/v' }],
          },
        ],
        volumes,
      },
    });
    await s.createPod(pod([{ name: 'v', configMap: { name: 'later' } }]));
    await s.createPod(
      pod([
        { name: 'v', hostPath: { path: file, type: 'Directory' } },
        { name: 'w', emptyDir: {} },
      ]),
    );
    s.start();
    const failed = await waitFor(
      'the FailedMount event',
      async () => {
        const e = await s.events(name, 'FailedMount');
        return e.length > 0 ? e : undefined;
      },
      60_000,
      200,
    );
    assert.equal(
      failed[0],
      'MountVolume.SetUp failed for volume "v" : configmap "later" not found',
    );
    // Pending from its creation: the agent's first status (ContainerCreating) may follow the event
    const waiting = await waitFor(
      'the container waiting in ContainerCreating',
      async () => {
        const status = await s.phase(name, 'Pending');
        return (
          status['containerStatuses'] as { state: { waiting?: { reason: string } } }[] | undefined
        )?.[0]?.state.waiting;
      },
      30_000,
      200,
    );
    assert.equal(waiting.reason, 'ContainerCreating');
    const hp = await waitFor(
      'the hostPath FailedMount event',
      async () => {
        const e = await s.events(`${name}-hp`, 'FailedMount');
        return e.length > 0 ? e : undefined;
      },
      60_000,
      200,
    );
    assert.equal(
      hp[0],
      `MountVolume.SetUp failed for volume "v" : hostPath type check failed: ${file} is not a directory`,
    );

    await s.api.request('POST', '/api/v1/namespaces/default/configmaps', {
      body: { metadata: { name: 'later' }, data: { k: 'now' } },
    });
    await s.phase(name, 'Running', 90_000);
    assert.equal(await inPod(s, name, 'cat /v/k'), 'now');
  },
);
