// kubectl logs through plat-apiserver for a Docker pod (busybox:local): the whole log, --tail,
// --timestamps (the engine's own times), and -f seeing lines written after it started. Skipped
// without an engine except under CI=true (scripts/docker-engine.sh start).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { kubectlSkipReason } from '../helpers/kubectl.js';
import { waitFor } from '../helpers/server-https-request.js';
import { DOCKER_ENDPOINT, dockerSkipReason, removeDockerPodsNamed } from '../integration/agent/pods/runtimes.js';
import { podRunning, startScene, type Scene } from './kubectl-streaming-harness.js';

const skip = kubectlSkipReason('the kubectl streaming Docker suite') ?? (await dockerSkipReason()) ?? false;
const NODE = 'docker-stream-node';
const POD = `ticker-${process.pid}`;
let s: Scene;

before(async () => {
  if (skip !== false) return;
  s = await startScene(NODE, { runtimeEndpoint: DOCKER_ENDPOINT });
  const pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: POD },
    spec: { nodeName: NODE, terminationGracePeriodSeconds: 1, containers: [{ name: 'c', image: 'busybox:local', imagePullPolicy: 'Never', command: ['sh', '-c', 'echo one; echo two; i=0; while true; do i=$((i+1)); echo tick $i; sleep 1; done'] }] },
  };
  assert.equal((await s.kubectl(['apply', '-f', '-'], { input: JSON.stringify(pod) })).code, 0);
  await podRunning(s, POD);
  await waitFor(async () => (await s.kubectl(['logs', POD])).stdout.includes('tick 1\n'), 'the first tick', 30_000, 200);
});

after(async () => {
  await s?.stop();
  if (skip === false) await removeDockerPodsNamed(POD);
});

test('Docker pod logs through plat-apiserver: whole, --tail, --timestamps, -f', { skip }, async () => {
  assert.match((await s.kubectl(['logs', POD])).stdout, /^one\ntwo\ntick 1\n/);
  assert.match((await s.kubectl(['logs', POD, '--tail=1'])).stdout, /^tick \d+\n$/);
  assert.match((await s.kubectl(['logs', POD, '--timestamps', '--limit-bytes=200'])).stdout, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+Z one\n/);
  const seen = Number(/tick (\d+)\n$/.exec((await s.kubectl(['logs', POD])).stdout)?.[1]);
  const follow = s.kubectlRunning(['logs', '-f', POD]);
  await follow.waitOut(new RegExp(`tick ${seen + 2}\\n`), 'a line written after -f started', 20_000);
  follow.child.kill('SIGKILL');
});
