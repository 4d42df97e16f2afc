// The BUILT agent on a real containerd (CRI runtime.v1; a containerd of the test's own,
// test/helpers/containerd.ts) joined to a BUILT plat-apiserver, driven by kubectl: a pod runs
// with its IP from the CNI bridge and a containerd:// container ID; logs (whole, --tail,
// --timestamps with containerd's own times, -f); exec with the exit code and stdin; port-forward
// into the pod's network namespace through containerd's PortForward; an image that cannot be pulled
// gives ErrImagePull and then ImagePullBackOff; containerd stopped under a running pod makes the
// node NotReady with the reference's "container runtime is down" and, started again, Ready with the
// same container adopted (not restarted). Skipped without containerd or kubectl except under CI=true.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { kubectlSkipReason } from '../helpers/kubectl.js';
import { waitFor } from '../helpers/server-https-request.js';
import { containerdSkipReason, startContainerd, type Containerd } from '../helpers/containerd.js';
import { podRunning, startScene, type Scene } from './kubectl-streaming-harness.js';

const skip =
  kubectlSkipReason('the kubectl containerd suite') ?? (await containerdSkipReason()) ?? false;
const NODE = `cri-node-${process.pid}`;
const POD = 'ticker';
const WEB = 'web';
let s: Scene;
let ctd: Containerd | undefined;

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const podOf = (name: string, c: Obj): Obj => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name },
  spec: { nodeName: NODE, terminationGracePeriodSeconds: 1, containers: [c] },
});

async function getPod(name: string): Promise<Obj> {
  const r = await s.kubectl(['get', 'pod', name, '-o', 'json']);
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(r.stdout) as Obj;
}

before(async () => {
  if (skip !== false) return;
  ctd = await startContainerd();
  s = await startScene(NODE, { runtimeEndpoint: ctd.endpoint });
  const ticker = podOf(POD, {
    name: 'c',
    image: 'busybox:local',
    imagePullPolicy: 'IfNotPresent',
    command: [
      'sh',
      '-c',
      'echo one; echo two; i=0; while true; do i=$((i+1)); echo tick $i; sleep 1; done',
    ],
  });
  const web = podOf(WEB, {
    name: 'web',
    image: 'busybox:local',
    imagePullPolicy: 'IfNotPresent',
    command: [
      'sh',
      '-c',
      'mkdir -p /www && echo hello from containerd > /www/index.html && exec httpd -f -p 8080 -h /www',
    ],
  });
  for (const p of [ticker, web])
    assert.equal((await s.kubectl(['apply', '-f', '-'], { input: JSON.stringify(p) })).code, 0);
  await podRunning(s, POD);
  await podRunning(s, WEB);
});

after(async () => {
  await s?.stop();
  await ctd?.stop();
});

test(
  'a pod runs on containerd: its IP from the CNI bridge, containerd:// container IDs',
  { skip },
  async () => {
    const pod = await getPod(POD);
    const ip = String(pod.status.podIP);
    assert.ok(ip.startsWith(ctd!.subnet.replace(/0\/24$/, '')), `${ip} in ${ctd!.subnet}`);
    assert.deepEqual(pod.status.podIPs, [{ ip }]);
    const cs = pod.status.containerStatuses[0];
    assert.match(cs.containerID, /^containerd:\/\/[0-9a-f]{64}$/);
    assert.ok(cs.state.running);
  },
);

test('containerd pod logs: whole, --tail, --timestamps, -f', { skip }, async () => {
  await waitFor(
    async () => (await s.kubectl(['logs', POD])).stdout.includes('tick 2\n'),
    'the second tick',
    30_000,
    200,
  );
  assert.match((await s.kubectl(['logs', POD])).stdout, /^one\ntwo\ntick 1\n/);
  assert.match((await s.kubectl(['logs', POD, '--tail=1'])).stdout, /^tick \d+\n$/);
  assert.match(
    (await s.kubectl(['logs', POD, '--timestamps', '--limit-bytes=200'])).stdout,
    /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+Z one\n/,
  );
  const seen = Number(/tick (\d+)\n$/.exec((await s.kubectl(['logs', POD])).stdout)?.[1]);
  const follow = s.kubectlRunning(['logs', '-f', POD]);
  await follow.waitOut(
    new RegExp(`tick ${seen + 2}\\n`),
    'a line written after -f started',
    20_000,
  );
  follow.child.kill('SIGKILL');
});

for (const [protocol, env] of [
  ['WebSocket v5', {}],
  ['SPDY', { KUBECTL_REMOTE_COMMAND_WEBSOCKETS: 'false' }],
] as const) {
  test(`containerd exec over ${protocol}: the exit code and stdin`, { skip }, async () => {
    const r = await s.kubectl(['exec', POD, '--', 'sh', '-c', 'echo out; exit 4'], { env });
    assert.deepEqual([r.code, r.stdout], [4, 'out\n'], r.stderr);
    const read = await s.kubectl(['exec', '-i', POD, '--', 'sh', '-c', 'read l; echo got:$l'], {
      env,
      input: 'through containerd stdin\n',
    });
    assert.deepEqual([read.code, read.stdout], [0, 'got:through containerd stdin\n'], read.stderr);
  });
}

test("containerd port-forward into the pod's network namespace", { skip }, async () => {
  for (const env of [{}, { KUBECTL_PORT_FORWARD_WEBSOCKETS: 'false' }]) {
    const pf = s.kubectlRunning(['port-forward', `pod/${WEB}`, ':8080'], env);
    const local = Number(
      (await pf.waitOut(/Forwarding from 127\.0\.0\.1:(\d+)/, 'kubectl port-forward'))[1],
    );
    assert.equal(
      await (await fetch(`http://127.0.0.1:${local}/`)).text(),
      'hello from containerd\n',
    );
    pf.child.kill('SIGTERM');
  }
});

test(
  'an image containerd cannot pull: ErrImagePull, then ImagePullBackOff with the reference message',
  { skip },
  async () => {
    const image = '127.0.0.1:1/nodeagent-test/none:1';
    const bad = podOf('unpullable', { name: 'c', image, imagePullPolicy: 'Always' });
    assert.equal((await s.kubectl(['apply', '-f', '-'], { input: JSON.stringify(bad) })).code, 0);
    const reasons = new Set<string>();
    await waitFor(
      async () => {
        const w = (await getPod('unpullable')).status?.containerStatuses?.[0]?.state?.waiting;
        if (w?.reason !== undefined) reasons.add(String(w.reason));
        if (w?.reason === 'ImagePullBackOff')
          // the reference's since 1.32: the failed pull's reason and message follow
          assert.ok(
            String(w.message).startsWith(`Back-off pulling image "${image}": ErrImagePull: `),
            String(w.message),
          );
        return reasons.has('ErrImagePull') && reasons.has('ImagePullBackOff');
      },
      'ErrImagePull then ImagePullBackOff',
      60_000,
      100,
    );
    assert.equal((await s.kubectl(['delete', 'pod', 'unpullable', '--wait=false'])).code, 0);
  },
);

type Summary = {
  pods: {
    podRef: { name: string };
    cpu: { usageNanoCores?: number; usageCoreNanoSeconds?: number };
    memory: { workingSetBytes?: number };
    network?: { name?: string; rxBytes?: number; txBytes?: number };
    containers: {
      name: string;
      cpu: { usageNanoCores?: number; usageCoreNanoSeconds?: number };
      memory: { workingSetBytes?: number; rssBytes?: number };
    }[];
  }[];
};

test(
  "/stats/summary of a pod on containerd: its container's CPU and memory from CRI ListContainerStats, the pod's from ListPodSandboxStats or its containers' sums",
  { skip },
  async () => {
    const burner = podOf('burner', {
      name: 'burn',
      image: 'busybox:local',
      imagePullPolicy: 'IfNotPresent',
      command: [
        'sh',
        '-c',
        'while true; do i=0; while [ $i -lt 3000 ]; do i=$((i+1)); done; sleep 0.2; done',
      ],
    });
    assert.equal(
      (await s.kubectl(['apply', '-f', '-'], { input: JSON.stringify(burner) })).code,
      0,
    );
    await podRunning(s, 'burner');
    let pod: Summary['pods'][number] | undefined;
    // containerd's nano-cores are the rate since its previous sample: the first answer may be 0
    await waitFor(
      async () => {
        const r = await s.kubectl(['get', '--raw', `/api/v1/nodes/${NODE}/proxy/stats/summary`]);
        assert.equal(r.code, 0, r.stderr);
        pod = (JSON.parse(r.stdout) as Summary).pods.find((p) => p.podRef.name === 'burner');
        return (
          (pod?.containers[0]?.cpu.usageNanoCores ?? 0) > 0 && (pod?.cpu.usageNanoCores ?? 0) > 0
        );
      },
      'non-zero CPU nano-cores for the burner pod and its container',
      60_000,
      500,
    );
    const c = pod!.containers[0]!;
    assert.equal(c.name, 'burn');
    assert.ok((c.cpu.usageCoreNanoSeconds ?? 0) > 0, JSON.stringify(c));
    assert.ok((c.memory.workingSetBytes ?? 0) > 0, JSON.stringify(c));
    assert.ok((pod!.memory.workingSetBytes ?? 0) > 0, JSON.stringify(pod));
    // containerd 1.6 fails ListPodSandboxStats for a sandbox without a cgroup parent ("cgroupPath
    // is empty"; this agent runs without --cgroups-per-qos): the pod is its containers' sums,
    // without network figures (the runtime's own pod measure: the fake-server unit test)
    assert.equal(pod!.cpu.usageNanoCores, c.cpu.usageNanoCores);
    assert.equal(pod!.memory.workingSetBytes, c.memory.workingSetBytes);
    assert.equal(pod!.network, undefined);
    assert.equal((await s.kubectl(['delete', 'pod', 'burner', '--wait=false'])).code, 0);
  },
);

test(
  'containerd stopped under a running pod: the node is NotReady ("container runtime is down"), then Ready again with the same container adopted',
  { skip },
  async () => {
    const before = (await getPod(POD)).status.containerStatuses[0];
    await ctd!.stopDaemon();
    let notReady: Obj | undefined;
    await waitFor(
      async () => {
        const node = JSON.parse(
          (await s.kubectl(['get', 'node', NODE, '-o', 'json'])).stdout,
        ) as Obj;
        const ready = (node.status.conditions as Obj[]).find((c) => c.type === 'Ready');
        if (ready?.status === 'False') notReady = ready;
        return notReady !== undefined;
      },
      'the node NotReady',
      60_000,
      200,
    );
    assert.match(String(notReady?.message), /container runtime is down/);
    await ctd!.startDaemon();
    await waitFor(
      async () => {
        const node = JSON.parse(
          (await s.kubectl(['get', 'node', NODE, '-o', 'json'])).stdout,
        ) as Obj;
        return (node.status.conditions as Obj[]).some(
          (c) => c.type === 'Ready' && c.status === 'True',
        );
      },
      'the node Ready again',
      60_000,
      200,
    );
    const after = (await getPod(POD)).status.containerStatuses[0];
    assert.equal(after.containerID, before.containerID);
    assert.equal(after.restartCount, 0);
    assert.ok(after.state.running);
  },
);
