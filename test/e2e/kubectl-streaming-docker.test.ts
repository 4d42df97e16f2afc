// kubectl through plat-apiserver for Docker pods (busybox:local): logs (whole, --tail,
// --timestamps with the engine's own times, --since and --since-time on those times, -f seeing
// lines written after it started); exec with
// the exit code and stdin, exec -it under tmux, cp both ways and port-forward to a server in the
// pod's network namespace, attach (output written after it started; attach -i to a busybox
// container reading its stdin) over both protocols (these need the agent's Docker streaming:
// hijacked attach through the engine). Skipped without an engine
// except under CI=true (scripts/docker-engine.sh start).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { kubectlSkipReason } from '../helpers/kubectl.js';
import { waitFor } from '../helpers/server-https-request.js';
import {
  DOCKER_ENDPOINT,
  dockerSkipReason,
  removeDockerPodsNamed,
} from '../integration/agent/pods/runtimes.js';
import { podRunning, startScene, type Scene } from './kubectl-streaming-harness.js';

const skip =
  kubectlSkipReason('the kubectl streaming Docker suite') ?? (await dockerSkipReason()) ?? false;
// Unique per run: agents sharing an engine tell their containers apart by node name (the
// io.nodeagent.node label), so two runs under one name would take each other's for orphans.
const NODE = `docker-stream-node-${process.pid}`;
const POD = `ticker-${process.pid}`;
const WEB = `web-${process.pid}`;
const READER = `reader-${process.pid}`;
let s: Scene;

before(async () => {
  if (skip !== false) return;
  s = await startScene(NODE, { runtimeEndpoint: DOCKER_ENDPOINT });
  const pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: POD },
    spec: {
      nodeName: NODE,
      terminationGracePeriodSeconds: 1,
      containers: [
        {
          name: 'c',
          image: 'busybox:local',
          imagePullPolicy: 'Never',
          command: [
            'sh',
            '-c',
            'echo one; echo two; i=0; while true; do i=$((i+1)); echo tick $i; sleep 1; done',
          ],
        },
      ],
    },
  };
  const web = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: WEB },
    spec: {
      nodeName: NODE,
      terminationGracePeriodSeconds: 1,
      containers: [
        {
          name: 'web',
          image: 'busybox:local',
          imagePullPolicy: 'Never',
          command: [
            'sh',
            '-c',
            'mkdir -p /www && echo hello from docker web > /www/index.html && exec httpd -f -p 8080 -h /www',
          ],
        },
      ],
    },
  };
  // A container kept on stdin (not stdinOnce): each attacher's lines reach the same `read` loop.
  const reader = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: READER },
    spec: {
      nodeName: NODE,
      terminationGracePeriodSeconds: 1,
      containers: [
        {
          name: 'r',
          image: 'busybox:local',
          imagePullPolicy: 'Never',
          stdin: true,
          command: ['sh', '-c', 'while read line; do echo "read:$line"; done'],
        },
      ],
    },
  };
  for (const p of [pod, web, reader])
    assert.equal((await s.kubectl(['apply', '-f', '-'], { input: JSON.stringify(p) })).code, 0);
  await podRunning(s, POD);
  await podRunning(s, WEB);
  await podRunning(s, READER);
  await waitFor(
    async () => (await s.kubectl(['logs', POD])).stdout.includes('tick 1\n'),
    'the first tick',
    30_000,
    200,
  );
});

after(async () => {
  await s?.stop();
  spawnSync('tmux', ['kill-session', '-t', `na-docker-it-${process.pid}`]);
  if (skip === false) for (const p of [POD, WEB, READER]) await removeDockerPodsNamed(p);
});

test(
  'Docker pod logs through plat-apiserver: whole, --tail, --timestamps, -f',
  { skip },
  async () => {
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
  },
);

test(
  "Docker pod logs --since and --since-time keep the lines the engine recorded at or after it; --timestamps prints each line's own time",
  { skip },
  async () => {
    const stamped = (await s.kubectl(['logs', POD, '--timestamps'])).stdout
      .split('\n')
      .filter((l) => l !== '');
    const times = stamped.map((l) => l.slice(0, l.indexOf(' ')));
    assert.ok(
      times.every((t) => /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+Z$/.test(t)),
      stamped.slice(0, 3).join('\n'),
    );
    // One tick a second: the engine's times of consecutive ticks are about a second apart (read-time stamps would be equal).
    const ticks = stamped.filter((l) => / tick \d+$/.test(l));
    const gap = Date.parse(ticks.at(-1)!.slice(0, 30)) - Date.parse(ticks.at(-2)!.slice(0, 30));
    assert.ok(gap >= 900 && gap <= 3000, `ticks ${gap} ms apart`);
    // --since-time (whole seconds in PodLogOptions): the second of a tick keeps it and drops the tick before.
    const pick = ticks.at(-2)!;
    const sinceTime = `${pick.slice(0, 19)}Z`;
    const fromTick = (await s.kubectl(['logs', POD, `--since-time=${sinceTime}`])).stdout;
    assert.ok(
      fromTick.startsWith(`${pick.slice(pick.indexOf(' ') + 1)}\n`),
      `--since-time=${sinceTime} gave ${JSON.stringify(fromTick.slice(0, 80))}`,
    );
    // --since=3s: only the last few ticks, never the first lines. Those must be older than 3 s first:
    // a tick a second, so wait for the sixth (a young pod's whole log is within the window).
    await waitFor(
      async () => (await s.kubectl(['logs', POD])).stdout.includes('tick 6\n'),
      'the sixth tick',
      30_000,
      200,
    );
    const recent = (await s.kubectl(['logs', POD, '--since=3s'])).stdout
      .split('\n')
      .filter((l) => l !== '');
    assert.ok(
      recent.length >= 1 && recent.length <= 5 && recent.every((l) => /^tick \d+$/.test(l)),
      JSON.stringify(recent),
    );
  },
);

for (const [protocol, env] of [
  ['WebSocket v5', {}],
  ['SPDY', { KUBECTL_REMOTE_COMMAND_WEBSOCKETS: 'false' }],
] as const) {
  test(`Docker exec over ${protocol}: the exit code and stdin`, { skip }, async () => {
    const r = await s.kubectl(['exec', POD, '--', 'sh', '-c', 'echo out; exit 4'], { env });
    assert.deepEqual([r.code, r.stdout], [4, 'out\n'], r.stderr);
    const cat = await s.kubectl(['exec', '-i', POD, '--', 'cat'], {
      env,
      input: 'through docker stdin\n',
    });
    assert.deepEqual([cat.code, cat.stdout], [0, 'through docker stdin\n'], cat.stderr);
  });
}

for (const [protocol, env] of [
  ['WebSocket v5', {}],
  ['SPDY', { KUBECTL_REMOTE_COMMAND_WEBSOCKETS: 'false' }],
] as const) {
  test(
    `Docker attach over ${protocol}: output written after it started; attach -i reaches a busybox container reading stdin`,
    { skip },
    async () => {
      const seen = Number(/tick (\d+)\n$/.exec((await s.kubectl(['logs', POD])).stdout)?.[1]);
      const a = s.kubectlRunning(['attach', POD, '-c', 'c'], env);
      await a.waitOut(new RegExp(`tick ${seen + 2}\\n`), 'a tick written while attached', 20_000);
      a.child.kill('SIGKILL');
      const i = s.kubectlRunning(['attach', '-i', READER, '-c', 'r'], env);
      i.child.stdin?.write(`hello ${protocol}\n`);
      await i.waitOut(
        new RegExp(`read:hello ${protocol}\\n`),
        'the container read what attach -i sent',
        20_000,
      );
      i.child.kill('SIGKILL');
    },
  );
}

test(
  "Docker cp both ways and port-forward into the pod's network namespace",
  { skip },
  async () => {
    const src = join(s.dir, 'docker-in.txt');
    await writeFile(src, 'into the container\n');
    assert.equal((await s.kubectl(['cp', src, `${POD}:/tmp/in.txt`])).code, 0);
    assert.equal(
      (await s.kubectl(['exec', POD, '--', 'cat', '/tmp/in.txt'])).stdout,
      'into the container\n',
    );
    const back = join(s.dir, 'docker-back.txt');
    const down = await s.kubectl(['cp', `${POD}:/tmp/in.txt`, back]);
    assert.equal(down.code, 0, down.stderr);
    assert.equal(await readFile(back, 'utf8'), 'into the container\n');
    for (const env of [{}, { KUBECTL_PORT_FORWARD_WEBSOCKETS: 'false' }]) {
      const pf = s.kubectlRunning(['port-forward', `pod/${WEB}`, ':8080'], env);
      const local = Number(
        (await pf.waitOut(/Forwarding from 127\.0\.0\.1:(\d+)/, 'kubectl port-forward'))[1],
      );
      assert.equal(
        await (await fetch(`http://127.0.0.1:${local}/`)).text(),
        'hello from docker web\n',
      );
      pf.child.kill('SIGTERM');
    }
  },
);

test('Docker exec -it sh under tmux', { skip }, async () => {
  const session = `na-docker-it-${process.pid}`;
  assert.equal(
    spawnSync('tmux', [
      'new-session',
      '-d',
      '-s',
      session,
      '-x',
      '120',
      '-y',
      '30',
      `kubectl --kubeconfig ${s.api.adminPlatconfig} exec -it ${POD} -- sh`,
    ]).status,
    0,
  );
  const pane = (): string =>
    spawnSync('tmux', ['capture-pane', '-p', '-t', session], { encoding: 'utf8' }).stdout ?? '';
  await waitFor(() => /[$#] ?$/m.test(pane()), `a shell prompt (pane: ${pane()})`, 15_000, 100);
  spawnSync('tmux', ['send-keys', '-t', session, 'echo $((6*7)) $(tty)', 'Enter']);
  await waitFor(
    () => /^42 \/dev\/pts\/\d+/m.test(pane()),
    `the shell's answer with a terminal (pane: ${pane()})`,
    15_000,
    100,
  );
  spawnSync('tmux', ['send-keys', '-t', session, 'exit', 'Enter']);
  await waitFor(
    () => spawnSync('tmux', ['has-session', '-t', session]).status !== 0,
    'the session ends with the shell',
    15_000,
    100,
  );
});
