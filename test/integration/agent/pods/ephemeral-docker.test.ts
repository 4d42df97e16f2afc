// Ephemeral containers (kubectl debug) on a real Docker engine against a real plat-apiserver:
// one added to a running pod through pods/ephemeralcontainers (a strategic merge patch, as
// kubectl debug sends) starts in the pod, sees its target container's processes
// (targetContainerName: the target's PID namespace), is reported in
// status.ephemeralContainerStatuses as the reference reports it (running, then terminated with
// reason Completed, never ready, restartCount 0) and is not restarted after it exits; the API
// server refuses the fields the reference forbids with its messages.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { waitFor } from './agent-harness.js';
import { dockerRuntime, dockerSkipReason } from './runtimes.js';
import { volumeScene } from './volume-scene.js';

const skip = await dockerSkipReason();

type Json = Record<string, unknown>;

function statusOf(pod: Json | undefined, name: string): Json | undefined {
  const status = pod?.['status'] as Json | undefined;
  const list = (status?.['ephemeralContainerStatuses'] as Json[] | undefined) ?? [];
  return list.find((s) => s['name'] === name);
}

test(
  'ephemeral containers on Docker: added through pods/ephemeralcontainers, started in the running pod sharing the target PID namespace, reported in ephemeralContainerStatuses, never restarted; forbidden fields refused with the reference messages',
  { skip, timeout: 180_000 },
  async (t) => {
    const s = await volumeScene(t, 'docker');
    const name = `${s.node}-dbg`;
    const path = `/api/v1/namespaces/default/pods/${name}`;
    await s.createPod({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name },
      spec: {
        nodeName: s.node,
        terminationGracePeriodSeconds: 1,
        containers: [{ name: 'app', image: 'busybox:local', command: ['sleep', '3601'] }],
      },
    });
    s.start();
    await s.phase(name, 'Running', 90_000);

    // the fields the reference forbids: 422 with its messages, nothing stored
    const bad = await s.api.request('PATCH', `${path}/ephemeralcontainers`, {
      contentType: 'application/strategic-merge-patch+json',
      body: {
        spec: {
          ephemeralContainers: [
            {
              name: 'bad',
              image: 'busybox:local',
              ports: [{ containerPort: 80 }],
              readinessProbe: { exec: { command: ['true'] } },
              targetContainerName: 'nope',
            },
          ],
        },
      },
    });
    assert.equal(bad.status, 422, bad.text);
    assert.equal(
      bad.json?.['message'],
      `Pod "${name}" is invalid: [spec.ephemeralContainers[0].targetContainerName: Not found: "nope", spec.ephemeralContainers[0].ports: Forbidden: cannot be set for an Ephemeral Container, spec.ephemeralContainers[0].readinessProbe: Forbidden: cannot be set for an Ephemeral Container]`,
    );

    // kubectl debug's patch: the debugger lists the processes it sees, then exits
    const added = await s.api.request('PATCH', `${path}/ephemeralcontainers`, {
      contentType: 'application/strategic-merge-patch+json',
      body: {
        spec: {
          ephemeralContainers: [
            {
              name: 'debugger',
              image: 'busybox:local',
              command: ['sh', '-c', 'ps; echo debugger-done'],
              targetContainerName: 'app',
            },
          ],
        },
      },
    });
    assert.equal(added.status, 200, added.text);
    const ec = (added.json?.['spec'] as Json)['ephemeralContainers'] as Json[];
    // defaulted as the reference defaults a container
    assert.equal(ec[0]?.['terminationMessagePolicy'], 'File');
    assert.equal(ec[0]?.['imagePullPolicy'], 'IfNotPresent');

    const done = await waitFor(
      'the debugger reported terminated',
      async () => {
        const r = await s.api.request('GET', path);
        const st = statusOf(r.json, 'debugger');
        const terminated = (st?.['state'] as Json | undefined)?.['terminated'] as Json | undefined;
        return terminated === undefined ? undefined : st;
      },
      90_000,
      200,
    );
    assert.equal(((done['state'] as Json)['terminated'] as Json)['reason'], 'Completed');
    assert.equal(((done['state'] as Json)['terminated'] as Json)['exitCode'], 0);
    assert.equal(done['ready'], false);
    assert.equal(done['restartCount'], 0);
    assert.equal(done['started'], undefined, 'the prober reports no started for ephemeral ones');
    assert.match(String(done['containerID']), /^docker:\/\/[0-9a-f]{64}$/);

    const rt = dockerRuntime.make(s.root);
    const mine = async (): Promise<Awaited<ReturnType<typeof rt.listContainers>>> =>
      (await rt.listContainers({})).filter((c) => c.podName === name);
    const debuggers = (await mine()).filter((c) => c.kind === 'ephemeral');
    assert.equal(debuggers.length, 1);
    const [debuggerInstance] = debuggers;
    assert.ok(debuggerInstance);
    const out = await rt.logs(debuggerInstance.id);
    // the target's PID namespace: the app's sleep is visible from the debugger
    assert.match(out, /sleep 3601/);
    assert.match(out, /debugger-done/);

    // the pass that reported it terminated saw it exited and started no second one
    assert.equal((await mine()).find((c) => c.kind === 'app')?.state, 'running');

    // existing ephemeral containers may not be removed (the reference's message)
    const removed = await s.api.request('PUT', `${path}/ephemeralcontainers`, {
      body: { ...(await s.api.request('GET', path)).json, spec: { containers: [] } },
    });
    assert.equal(removed.status, 422, removed.text);
    assert.match(
      String(removed.json?.['message']),
      /spec\.ephemeralContainers: Forbidden: existing ephemeral containers "debugger" may not be removed/,
    );
  },
);
