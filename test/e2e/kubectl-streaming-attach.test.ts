// kubectl attach and exec -it through plat-apiserver, on an agent that offers attach and a
// terminal (process://: the container's log followed and its held stdin; exec -it in a
// pseudo-terminal): attach sees output written after it started, attach -i reaches a container
// kept on stdin, both over WebSocket v5 (translated) and SPDY (passed through), and `exec -it sh`
// in a real terminal (tmux: keys sent, the pane read) runs a shell.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { kubectlSkipReason } from '../helpers/kubectl.js';
import { waitFor } from '../helpers/server-https-request.js';
import { podRunning, startScene, type Scene } from './kubectl-streaming-harness.js';

const skip = kubectlSkipReason('the kubectl attach suite') ?? false;
const NODE = 'attach-node-1';
const SPDY_EXEC = { KUBECTL_REMOTE_COMMAND_WEBSOCKETS: 'false' };
let s: Scene;
const tmuxSession = `na-exec-it-${process.pid}`;

before(async () => {
  if (skip !== false) return;
  s = await startScene(NODE);
  const ticker = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'ticker' },
    spec: {
      nodeName: NODE,
      terminationGracePeriodSeconds: 1,
      containers: [
        {
          name: 'c',
          image: 'busybox:local',
          command: ['node', '-e', "let i=0;setInterval(()=>console.log('tick '+(++i)),300)"],
        },
      ],
    },
  };
  const echo = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'echo' },
    spec: {
      nodeName: NODE,
      terminationGracePeriodSeconds: 1,
      containers: [
        {
          name: 'c',
          image: 'busybox:local',
          stdin: true,
          command: ['node', '-e', "process.stdin.on('data',d=>process.stdout.write('echo:'+d))"],
        },
      ],
    },
  };
  for (const p of [ticker, echo])
    assert.equal((await s.kubectl(['apply', '-f', '-'], { input: JSON.stringify(p) })).code, 0);
  await podRunning(s, 'ticker');
  await podRunning(s, 'echo');
});

after(async () => {
  spawnSync('tmux', ['kill-session', '-t', tmuxSession]);
  await s?.stop();
});

for (const [protocol, env] of [
  ['WebSocket v5', {}],
  ['SPDY', SPDY_EXEC],
] as const) {
  test(
    `attach over ${protocol}: output written after it started; attach -i reaches the container's stdin`,
    { skip },
    async () => {
      const a = s.kubectlRunning(['attach', 'ticker', '-c', 'c'], env);
      const first = Number((await a.waitOut(/tick (\d+)\n/, 'a tick while attached'))[1]);
      await a.waitOut(new RegExp(`tick ${first + 2}\\n`), 'later ticks');
      a.child.kill('SIGKILL');
      const i = s.kubectlRunning(['attach', '-i', 'echo', '-c', 'c'], env);
      i.child.stdin?.write(`hello ${protocol}\n`);
      await i.waitOut(
        new RegExp(`echo:hello ${protocol}\\n`),
        'the container echoes what attach -i sent',
      );
      i.child.kill('SIGKILL');
    },
  );
}

test(
  "exec -it sh in a real terminal (tmux): keys in, the shell's answer on the pane",
  { skip },
  async () => {
    const cmd = `kubectl --kubeconfig ${s.api.adminPlatconfig} exec -it ticker -c c -- sh`;
    assert.equal(
      spawnSync('tmux', ['new-session', '-d', '-s', tmuxSession, '-x', '120', '-y', '30', cmd])
        .status,
      0,
    );
    const pane = (): string =>
      spawnSync('tmux', ['capture-pane', '-p', '-t', tmuxSession], { encoding: 'utf8' }).stdout ??
      '';
    await waitFor(() => /[$#] ?$/m.test(pane()), `a shell prompt (pane: ${pane()})`, 15_000, 100);
    spawnSync('tmux', ['send-keys', '-t', tmuxSession, 'echo $((6*7)) $(tty)', 'Enter']);
    await waitFor(
      () => /^42 \/dev\/pts\/\d+/m.test(pane()),
      `the shell's answer with a terminal (pane: ${pane()})`,
      15_000,
      100,
    );
    spawnSync('tmux', ['send-keys', '-t', tmuxSession, 'exit', 'Enter']);
    await waitFor(
      () => spawnSync('tmux', ['has-session', '-t', tmuxSession]).status !== 0,
      'the session ends with the shell',
      15_000,
      100,
    );
  },
);
